"""tree-sitter-bash node type names, in one place: grammar upgrades rename them."""

from __future__ import annotations

SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
DECLARATIONS = frozenset({"declaration_command", "unset_command"})
# Nodes whose named children are statements (or words scanned for substitutions).
CONTAINERS = frozenset(
    {
        "program",
        "list",
        "compound_statement",
        "subshell",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "negated_command",
        "ERROR",
    }
)
# Nodes that are statements: the walker handles them wherever a scan meets them.
COMMAND_NODES = CONTAINERS | {
    "command",
    "redirected_statement",
    "pipeline",
    "function_definition",
    "test_command",
    *DECLARATIONS,
}
# Leaf-like nodes whose text is literal after unquoted-escape removal.
LITERAL_WORDS = frozenset(
    {"word", "number", "variable_name", "test_operator", "file_descriptor", "heredoc_start"}
)
