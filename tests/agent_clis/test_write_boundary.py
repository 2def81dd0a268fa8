"""ThoughtForge's write boundary holds each real CLI (Landlock, on this kernel): a code build
whose model writes `../escape.txt` and a file under /tmp with the CLI's own edit tool, or whose
tests do when they run, writes neither; a direct write is refused and halts the run, named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent_clis.conftest import CLIS, Bench
from tests.agent_clis.model_answers import Write
from tests.agent_clis.test_real_clis import CODE_BRAIN_DUMP, _halted_agent_failure, _run
from thoughtforge.adapters.agents.landlock import abi_version

pytestmark = pytest.mark.slow


def _outside(bench: Bench, cli: str, what: str) -> tuple[Path, Path]:
    """A place beside the project folder, and one under /tmp outside the test's own folder."""
    beside = bench.tmp_path / "projects" / f"escape-{what}.txt"
    under_tmp = Path(f"/tmp/thoughtforge-escape-{bench.tmp_path.name}-{cli}-{what}.txt")
    return beside, under_tmp


@pytest.mark.parametrize("cli", CLIS)
def test_the_clis_own_edit_tool_cannot_write_outside_the_project(cli: str, bench: Bench) -> None:
    """Before, Codex's `workspace-write` wrote both (its sandbox opens /tmp, where the project
    is), and the run reached `done`."""
    assert abi_version() >= 1, "the test machine's kernel offers Landlock"
    beside, under_tmp = _outside(bench, cli, "edit")
    bench.api.wander = (
        Write("../escape-edit.txt", "escaped\n"),
        Write(str(under_tmp), "escaped\n"),
    )
    try:
        project = _run(bench, cli, CODE_BRAIN_DUMP)
        written = [str(place) for place in (beside, under_tmp) if place.exists()]
    finally:
        under_tmp.unlink(missing_ok=True)
        beside.unlink(missing_ok=True)
    assert written == [], f"{cli} wrote outside its project"
    reason = _halted_agent_failure(project)
    named = [place.name for place in (beside, under_tmp) if place.name in reason]
    assert "refused" in reason and named, reason


@pytest.mark.parametrize("cli", CLIS)
def test_the_projects_tests_cannot_write_outside_the_project(cli: str, bench: Bench) -> None:
    """The model writes a `conftest.py` that writes beside the project and under /tmp, then runs
    the test command its CLI may run; ThoughtForge runs the suite too. Before, every CLI's run
    of the tests, and ThoughtForge's own, wrote both."""
    beside, under_tmp = _outside(bench, cli, "tests")
    conftest = (
        "import pathlib\n"
        "pathlib.Path('tests-ran-here.txt').write_text('ran')\n"
        f"for place in ({str(beside)!r}, {str(under_tmp)!r}):\n"
        "    try:\n"
        "        pathlib.Path(place).write_text('escaped')\n"
        "    except OSError:\n"
        "        pass\n"
    )
    bench.api.wander = (Write("conftest.py", conftest),)
    try:
        project = _run(bench, cli, CODE_BRAIN_DUMP)
        written = [str(place) for place in (beside, under_tmp) if place.exists()]
    finally:
        under_tmp.unlink(missing_ok=True)
        beside.unlink(missing_ok=True)
    assert (project / "tests-ran-here.txt").exists(), "the project's tests never ran"
    assert written == [], f"the tests {cli}'s build wrote escaped its project"
