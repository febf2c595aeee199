"""The README's first commands stay true: CI runs its test command, its main job runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _first_block() -> list[str]:
    match = re.search(r"```bash\n(.*?)```", README, re.S)
    assert match, "README must open with a ```bash block of the two commands"
    lines = [line for line in match.group(1).splitlines() if line.strip()]
    assert len(lines) == 2, lines
    return lines


def test_ci_runs_the_readme_test_command() -> None:
    test_command = _first_block()[1]
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_main_job_runs_on_the_embedded_defaults(tmp_path: Path) -> None:
    """Everything after `pip install . &&` runs as written, with no user or project config."""
    main_job = _first_block()[0]
    assert main_job.startswith("pip install . && ")
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    result = subprocess.run(
        main_job.removeprefix("pip install . && "),
        shell=True,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "TL2" in result.stdout, "the replay shows the guard stepping in"
    assert "read-only" in result.stdout and "hardline" in result.stdout


def test_library_snippet_runs() -> None:
    snippet = re.search(r"```python\n(.*?)```", README, re.S)
    assert snippet
    exec(compile(snippet.group(1), "README.md", "exec"), {})
