"""Words as bash splits them: tether.shell's argv against real bash's, on generated input.

Each example is ``printf '%s\\0' BODY`` with BODY drawn from quotes, backslashes, blanks,
newlines, ``#``, ``;`` and ``=``; bash prints the words it passed, and tether.shell must
report the same ones (or a parse error, which proves nothing read-only). This is how
tree-sitter-bash's gaps were found: a newline inside double quotes in no node, ``'-'\\o``
split into two words, an escaped blank dropped.
"""

from __future__ import annotations

import shutil
import subprocess

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tether.shell import parse_command

ALPHABET = ["a", "b", "-", "=", "x", '"', "'", "\\", "\n", " ", "\t", "#", ";"]


@settings(max_examples=300, deadline=None, database=None)
@given(body=st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=12).map("".join))
def test_literal_words_are_the_words_bash_passes(body: str) -> None:
    bash = shutil.which("bash")
    assert bash is not None, "bash is needed to compare words with"
    source = "printf '%s\\0' " + body
    done = subprocess.run([bash, "-c", source], capture_output=True, timeout=5, check=False)
    assume(done.returncode == 0 and not done.stderr)
    model = parse_command(source)
    # Where bash keeps a backslash-newline (single quotes, comments), the text is also read
    # joined everywhere, as a second reading after the first: the first must be bash's.
    readings = (1, 2) if "\\\n" in source else (1,)
    assume(not model.errors and not model.unprovable and len(model.commands) in readings)
    argv = model.commands[0].argv
    assume(all(w.literal for w in argv))
    want = [w.decode() for w in done.stdout.split(b"\0")[:-1]]
    got = [w.value for w in argv[2:]]
    if want == [""] and not got:  # printf with no argument prints its format once
        return
    assert got == want, (source, want, got)
