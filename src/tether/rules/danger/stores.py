"""DG501: data stores: SQL and Redis commands that destroy data, however they are spelt.

A statement is read where the client reads it: an operand or option (``psql -c``, ``mysql -e``,
``sqlite3 DB SQL``), a here-document or here-string, the literal output piped into the client,
or a variable assigned a literal earlier on the line. Comments are read as SQL reads them
(``DROP/**/TABLE`` is ``DROP TABLE``; MySQL runs the text of ``/*! … */``), and for a keyword
split by a comment (``DR/**/OP``) both readings are judged. The database shells' own commands
that run shell text (sqlite3 ``.shell``, psql ``\\!``, mysql ``system``) are payloads
(``tether.shell.payloads``), judged like any typed command, from the same texts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger._files import read_file
from tether.rules.danger._registry import program_check
from tether.rules.danger._stdin import stdin_texts
from tether.rules.danger.interp import literal_output
from tether.shell.model import SimpleCommand, Word
from tether.shell.payloads import console_payloads

SQL_DESTRUCTIVE = Rule(
    code="DG501",
    name="sql-destructive",
    tier=Tier.ASK,
    summary="SQL DROP, TRUNCATE, ALTER … DROP or an unqualified DELETE sent to a database "
    "client; a Redis flush or mass delete",
    why="Dropped tables and unqualified deletes are gone unless someone restores a backup. "
    "Ask, not hardline: the database may be a scratch or test one; only a human knows.",
    instead="Run a SELECT to show what would go, back the table up, or add a WHERE clause.",
    match=(
        "psql -c 'DROP TABLE users'",
        "mysql -e 'TRUNCATE orders' shop",
        'sqlite3 app.db "DELETE FROM users"',
        "echo 'DROP DATABASE prod;' | psql",
        "redis-cli FLUSHALL",
        "dropdb prod",
        "mysqladmin drop mydb",
        "psql -c 'DR/**/OP TABLE users'",
        "psql -c 'DROP/**/TABLE users'",
        "mysql -e '/*!50000 DROP */ TABLE users'",
        "psql -c 'DELETE FROM users WHERE 1=1'",
        "psql -c \"DELETE FROM users WHERE 'a' = 'a'\"",
        "sqlite3 app.db 'DELETE FROM users WHERE true;'",
        "psql -c 'ALTER TABLE users DROP COLUMN email'",
        "psql -c 'TRUNCATE users'",
        "psql -c 'DROP FUNCTION f'",
        "Q='DROP TABLE users'; psql -c \"$Q\"",
        'psql -c "$SQL"',
        "psql <<'EOF'\nDROP TABLE users;\nEOF",
        "sqlite3 app.db <<< 'DELETE FROM t'",
        "redis-cli --scan | xargs redis-cli del",
        "redis-cli --scan --pattern 'user:*' | xargs -n 100 redis-cli unlink",
        "redis-cli keys '*' | xargs redis-cli DEL",
        "echo FLUSHALL | redis-cli",
        "redis-cli <<< 'FLUSHDB'",
        "printf 'SELECT 1\\nFLUSHALL\\n' | redis-cli -n 2",
        "redis-cli -n 0 flushdb",
        "redis-cli EVAL \"return redis.call('flushall')\" 0",
        'psql -f "$F"',
        "psql -f /nonexistent/down.sql",
        "sqlite3 app.db < /nonexistent/down.sql",
        "sqlite3 app.db '.read /nonexistent/down.sql'",
    ),
    not_match=(
        "psql -c 'SELECT 1'",
        'sqlite3 app.db "DELETE FROM users WHERE id = 1"',
        "echo 'DROP TABLE x' >> notes.md",
        "redis-cli GET key",
        "psql -c 'SELECT 1 /* DROP TABLE x */'",
        "psql -c 'DELETE FROM users WHERE id = 1 -- WHERE 1=1'",
        "psql -c 'ALTER TABLE users ADD COLUMN drop_at date'",
        "psql -c \"SELECT * FROM t WHERE name = 'truncate'\"",
        "sqlite3 app.db \"UPDATE issues SET status = 'done' WHERE number = 5\"",
        "Q='SELECT 1'; psql -c \"$Q\"",
        "redis-cli --scan --pattern 'user:*'",
        "redis-cli del session:1",
        "echo PING | redis-cli",
        "redis-cli --scan | xargs redis-cli get",
    ),
)

RULES = (SQL_DESTRUCTIVE,)

SQL_CLIENTS = frozenset(
    {
        "psql",
        "mysql",
        "mariadb",
        "sqlite3",
        "duckdb",
        "clickhouse-client",
        "clickhouse",
        "cockroach",
        "sqlcmd",
        "mongosh",
        "mongo",
        "snowsql",
        "bq",
        "pgcli",
        "mycli",
        "litecli",
    }
)
_REDIS = frozenset({"redis-cli", "valkey-cli"})
_SQL_DANGER = re.compile(
    r"\b(drop\s+(?:table|database|schema|index|view|materialized\s+view|collection|keyspace|user"
    r"|role|function|procedure|trigger|sequence|type|extension|tablespace|owned|domain|event)\b"
    r"|^\s*truncate\b|alter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?[\w.\"`\[\]]+\s+drop\b"
    r"|delete\s+from\s+[\w.\"`\[\]]+\s*(?:;|$)|\.drop(?:Database)?\(\)|dropDatabase"
    r"|\.deleteMany\(\s*\{\s*\}\s*\))",
    re.I | re.M,
)
# A WHERE clause every row satisfies: ``1=1``, ``true``, ``1``, ``'a'='a'``, ``x = x``.
_ALWAYS_TRUE = re.compile(
    r"\bwhere\s+(?:\(\s*)?(?:true|1|(\d+)\s*=\s*\1|'(\w*)'\s*=\s*'\2'|(\w+)\s*=\s*\3)"
    r"(?:\s*\))?\s*(?:;|$|\bor\b)",
    re.I,
)
_BLOCK_COMMENT = re.compile(r"/\*(.*?)\*/", re.S)
_LINE_COMMENT = re.compile(r"(?:--|#)[^\n]*")


def _readings(text: str) -> list[str]:
    """Return the statement text as SQL reads it: comments as a space, and as nothing."""
    if "/*" not in text and "--" not in text and "#" not in text:
        return [text]
    # MySQL runs the text of ``/*! … */`` (and ``/*!50000 … */``); other comments are spaces.
    kept = _BLOCK_COMMENT.sub(
        lambda m: " " + m.group(1)[1:].lstrip("0123456789") + " " if m.group(1)[:1] == "!"
        else "\0", text)  # fmt: skip
    kept = _LINE_COMMENT.sub("\n", kept)
    return [kept.replace("\0", " "), kept.replace("\0", "")]


def sql_danger(text: str) -> str | None:
    """Return the destructive SQL statement found in ``text`` (an unqualified DELETE too)."""
    for reading in _readings(text):
        for statement in reading.split(";"):
            m = _SQL_DANGER.search(
                statement.strip() + ";" if "delete" in statement.lower() else statement
            )
            if m is None:
                m = _ALWAYS_TRUE.search(statement) if "delete" in statement.lower() else None
                if m is None or not re.search(r"\bdelete\s+from\b", statement, re.I):
                    continue
                return " ".join(statement.split())[:60]
            if m.group(0).lower().startswith("delete") and re.search(r"\bwhere\b", statement, re.I):
                continue
            return " ".join(m.group(0).split())[:60]
    return None


def _assigned(word: Word, cmd: SimpleCommand, scope: Scope) -> str | None:
    """Return the literal a ``$NAME`` word holds when assigned earlier on the line."""
    m = re.fullmatch(r"\$\{?(\w+)\}?", word.value)
    if m is None:
        return None
    for a in cmd.assignments:
        if a.name == m.group(1):
            return a.value.value if a.value.literal else None
    for other in scope.before(cmd):
        values = [a.value for a in other.assignments if a.name == m.group(1)]
        if values and not other.argv:
            return values[-1].value if values[-1].literal else None
    return None


def _statements(cmd: SimpleCommand, scope: Scope, name: str) -> tuple[list[str], list[str]]:
    """Return the SQL texts ``cmd`` is given, and the run-time ones it cannot read."""
    parsed = options_of(name, cmd.args)
    # No client here has a grammar in the table: a statement given to an option (``-c SQL``)
    # reads as an operand, one given attached (``--command=SQL``) as the option's value.
    words = [*parsed.operands, *(Word(v) for _, v in parsed.options if v)]
    texts: list[str] = []
    unknown: list[str] = []
    for w in words:
        if w.literal:
            texts.append(w.value)
            continue
        value = _assigned(w, cmd, scope)
        if value is not None:
            texts.append(value)
        elif re.fullmatch(r"\$\{?\w+\}?", w.value) and name != "sqlite3":
            unknown.append(w.value)  # the whole statement only known at run time
        else:
            texts.append(w.value)
    texts += [r.body for r in cmd.redirects if r.body]
    texts += [r.target.value for r in cmd.redirects if r.op == "<<<" and r.target is not None]
    for up in scope.upstream(cmd):
        texts += literal_output(up)
    return texts, unknown


@program_check(*SQL_CLIENTS, *_REDIS, "dropdb", "dropuser", "mysqladmin", rules=(SQL_DESTRUCTIVE,))
def check_sql(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag destructive SQL given to a database client by flag, operand, heredoc, pipe or file."""
    name = name_of(cmd)
    if name in ("dropdb", "dropuser"):
        operands = options_of(name, cmd.args).operands
        yield SQL_DESTRUCTIVE.hit(f"{name} {' '.join(w.value for w in operands[-1:])}")
        return
    if name == "mysqladmin":
        if "drop" in [w.value for w in options_of(name, cmd.args).operands]:
            yield SQL_DESTRUCTIVE.hit("mysqladmin drop")
        return
    if name in _REDIS:
        yield from _redis(cmd, scope, name)
        return
    if name not in SQL_CLIENTS:
        return
    texts, unknown = _statements(cmd, scope, name)
    for text in texts:
        found = sql_danger(text)
        if found:
            yield SQL_DESTRUCTIVE.hit(f"{name}: {found}")
            break
    else:
        if unknown:
            yield SQL_DESTRUCTIVE.hit(f"{name}: a statement only known at run time ({unknown[0]})")
        else:
            yield from _script_files(cmd, scope, name, texts)
    # The shell's own commands that run shell text, read from its input as well.
    for text in [r.body for r in cmd.redirects if r.body] + stdin_texts(cmd, scope):
        for payload in console_payloads(name, text):
            for hit in scope.reparse(payload.text):
                yield Hit(hit.code, f"{payload.how} runs {hit.detail}")


_REDIS_WIPES = frozenset({"FLUSHALL", "FLUSHDB"})
_REDIS_DELETES = frozenset({"DEL", "UNLINK"})


def _redis(cmd: SimpleCommand, scope: Scope, name: str) -> Iterator[Hit]:
    operands = [w.value for w in options_of(name, cmd.args).operands]
    first = operands[0].upper() if operands else ""
    if first in _REDIS_WIPES:
        yield SQL_DESTRUCTIVE.hit(f"redis {first}")
        return
    if first in ("EVAL", "EVALSHA", "FCALL") and any(
        re.search(r"flush(?:all|db)", v, re.I) for v in operands[1:2]
    ):
        yield SQL_DESTRUCTIVE.hit("redis EVAL of a script that flushes")
        return
    if first in _REDIS_DELETES and any(w.name == "xargs" for w in cmd.wrappers):
        # ``redis-cli --scan | xargs redis-cli del``: every key the listing prints.
        yield SQL_DESTRUCTIVE.hit(f"redis {first} of keys read from xargs input")
        return
    if not operands:  # commands read on stdin, one a line
        for text in stdin_texts(cmd, scope):
            for line in text.splitlines():
                word = line.split(maxsplit=1)[0].upper() if line.split() else ""
                if word in _REDIS_WIPES:
                    yield SQL_DESTRUCTIVE.hit(f"redis {word} read on stdin")
                    return


# The options that name a script the client runs (``psql -f FILE``), by client.
_FILE_OPTIONS: dict[str, tuple[str, ...]] = {
    "psql": ("-f", "--file"),
    "pgcli": ("-f", "--file"),
    "duckdb": ("-f",),
    "sqlite3": ("-init",),
    "sqlcmd": ("-i",),
    "clickhouse-client": ("--queries-file",),
    "clickhouse": ("--queries-file",),
}
# A script's own include commands: sqlite3/duckdb ``.read``, psql ``\\i``/``\\ir``,
# mysql ``source``/``\\.``.
_INCLUDE = re.compile(
    r"^\s*(?:\.read|\\ir?|\\include(?:_relative)?|source|\\\.)\s+(['\"]?)([^'\";\s]+)\1",
    re.I | re.M,
)
# How many script files one command may lead to (includes of includes …).
MAX_SCRIPTS = 8


def _file_words(cmd: SimpleCommand, name: str) -> list[Word]:
    """Return the files ``cmd`` runs as scripts: by option, and by a ``<`` redirect."""
    found: list[Word] = []
    flags = _FILE_OPTIONS.get(name, ())
    args = cmd.args
    for i, w in enumerate(args):
        v = w.value
        if v in flags and i + 1 < len(args):
            found.append(args[i + 1])
        for flag in flags:
            if flag.startswith("--") and v.startswith(flag + "="):
                found.append(Word(v[len(flag) + 1 :], w.literal))
            elif len(flag) == 2 and v.startswith(flag) and len(v) > 2 and not v.startswith("--"):
                found.append(Word(v[2:], w.literal))
    for r in cmd.redirects:
        if r.op == "<" and r.fd in (None, 0) and r.target is not None:
            found.append(r.target)
    return found


_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})


def _written_on_the_line(spelled: str, cmd: SimpleCommand, scope: Scope) -> str | None:
    """Return the program of another command of the input that names the script (a redirect
    into it, or an argument: ``cp``, ``tee``, ``sed -i``, ``ln -sf`` …), or None.

    What the file holds when the client reads it is then not what it holds now: the file
    read at judging time does not decide.
    """
    base = spelled.rpartition("/")[2]
    models = [scope.model]
    if scope.budget.source is not None and scope.budget.source is not scope.model:
        models.append(scope.budget.source)
    for model in models:
        for other in model.commands:
            if other is cmd:
                continue
            for r in other.redirects:
                if r.op in _WRITES and r.target is not None and r.target.value.endswith(base):
                    return name_of(other) or "a redirect"
            if any(w.value.endswith(base) for w in other.args):
                return name_of(other)
    return None


def _statement_number(text: str) -> int:
    """Return the 1-based number of the first destructive statement of ``text`` (0: not one)."""
    for n, statement in enumerate(text.split(";"), 1):
        if sql_danger(statement + ";"):
            return n
    return 0


def _script_files(cmd: SimpleCommand, scope: Scope, name: str, texts: list[str]) -> Iterator[Hit]:
    """Read the scripts ``cmd`` runs (``-f FILE``, ``< FILE``, ``.read FILE``) and judge them.

    Each is read from the assessment's working tree (``Scope.tree``) at judging time; a script
    that cannot be read (no tree, a run-time name, not a regular file, too large) asks, since
    what it holds is what the client runs.
    """
    queue = [(w.value, w.literal) for w in _file_words(cmd, name)]
    queue += [(m.group(2), True) for t in texts for m in _INCLUDE.finditer(t)]
    seen: set[str] = set()
    cwd = scope.cwd(cmd)
    while queue and len(seen) < MAX_SCRIPTS:
        spelled, literal = queue.pop(0)
        if spelled in seen:
            continue
        seen.add(spelled)
        if not literal:
            yield SQL_DESTRUCTIVE.hit(f"{name} runs the script {spelled}, named only at run time")
            return
        writer = _written_on_the_line(spelled, cmd, scope)
        if writer is not None:
            yield SQL_DESTRUCTIVE.hit(
                f"{name} runs the script {spelled}, which {writer} on the same line may change"
            )
            return
        got = read_file(spelled, scope.tree, cwd, scope.budget.file_bytes)
        if got.text is None:
            yield SQL_DESTRUCTIVE.hit(f"{name} runs the script {spelled}, not read: {got.why}")
            return
        found = sql_danger(got.text)
        if found:
            n = _statement_number(got.text)
            where = f"statement {n} of {spelled}" if n else spelled
            yield SQL_DESTRUCTIVE.hit(f"{name}: {found} ({where})")
            return
        queue += [(m.group(2), True) for m in _INCLUDE.finditer(got.text)]
    if queue:
        yield SQL_DESTRUCTIVE.hit(f"{name}: scripts include more than {MAX_SCRIPTS} scripts")
