"""The public API: sorted, complete, lazy, and cheap to import."""

from __future__ import annotations

import subprocess
import sys

import tether


def test_all_is_sorted_and_resolvable() -> None:
    assert tether.__all__ == sorted(tether.__all__)
    for name in tether.__all__:
        assert getattr(tether, name) is not None, name


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        tether.no_such_thing  # noqa: B018 - the attribute access is the test
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_import_tether_loads_no_heavy_module() -> None:
    """`import tether` is on every hook's path: it must not pull in the parser or YAML."""
    code = (
        "import sys, tether; "
        "heavy = [m for m in ('tree_sitter', 'ruamel', 'redis', 'tether.guard', 'argparse') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
