"""A change request on a finished code project: the builder adds the feature on top of the
existing code (test-fix cycle as usual), Phase 4 polishes, and the project is done as revision 2."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.code_setup import (
    CALC_FIXED,
    GOOD_BUILD,
    TEST_CALC,
    code_project,
    code_review,
    code_sections,
    write_script,
    wrote,
)
from tests.flows.conftest import run_cli
from tests.polish_setup import calls
from thoughtforge.config import load_config
from thoughtforge.core.history import project_history
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_status
from thoughtforge.models import Phase
from thoughtforge.plugins.code.acceptance.lock import read_lock

pytestmark = pytest.mark.slow

CALC_WITH_SUB = CALC_FIXED + "\n\ndef sub(a, b):\n    return a - b\n"
TEST_SUB = "from calc import sub\n\n\ndef test_ac_3_sub():\n    assert sub(5, 3) == 2\n"
GAMED_MUL = TEST_CALC.replace("assert mul(2, 3) == 6", "assert True")
PROPOSAL = """## Deliverable Overview
A Python library that adds, multiplies and subtracts integers.

## Deliverable Structure
Language: Python 3.11 on Linux. Tools: pytest. One module `calc.py`.

## Key Decisions
- Plain functions, no classes.

## Resolved Unknowns
None

## Dependencies
None

## Scope Boundaries
- Integers only.

## Priorities
- Correctness.

## Exclusions
- None.

## Severity Definitions
- Critical: a wrong result.

## Acceptance Criteria
- add(2, 3) is 5
- mul(2, 3) is 6
- sub(5, 3) is 2
"""
CHANGE = "Add sub(a, b), which subtracts b from a."


def test_a_change_request_adds_a_feature_on_top_of_the_built_code(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], prefect_api_url: str
) -> None:
    config_path = cli_config(**code_sections(tmp_path))
    project = code_project(load_config(config_path))
    clean = {"text": code_review({"total": 3, "passed": 3, "failed": 0})}
    script = write_script(
        tmp_path / "s.yaml",
        **{
            "code-build": [
                wrote(GOOD_BUILD),
                wrote(
                    {"calc.py": CALC_WITH_SUB, "test_sub.py": TEST_SUB, "test_calc.py": GAMED_MUL}
                ),
                wrote({"calc.py": CALC_WITH_SUB, "test_sub.py": TEST_SUB}),
            ],
            "code-review": clean,
            "spec-building": {"text": PROPOSAL},
        },
    )
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    first = run_cli(env, config_path, "continue", project.id, "--auto-confirm")
    assert first.returncode == 0, first.stdout + first.stderr
    assert read_status(project.dir).phase is Phase.DONE
    test_calc = (project.dir / "test_calc.py").read_text()

    revised = run_cli(env, config_path, "revise", project.id, CHANGE, "--auto-confirm")
    assert revised.returncode == 0, revised.stdout + revised.stderr
    assert read_status(project.dir).phase is Phase.DONE
    assert (project.dir / "calc.py").read_text() == CALC_WITH_SUB
    assert (project.dir / "test_calc.py").read_text() == test_calc  # built on top, kept
    assert calls(project)["code-build"] == 3, "the attempt that weakened a locked test was redone"
    refused = [e for e in read_events(project.dir) if e["event"] == "locked_acceptance_refused"]
    assert [e["touched"] for e in refused] == [
        [
            "test_calc.py::test_ac_2_mul (edited: its decorators, body, assertions or expected "
            "values changed)"
        ]
    ]
    lock = read_lock(project.dir)
    assert lock is not None and [t.node_id for t in lock.tests] == [
        "test_calc.py::test_ac_1_add",
        "test_calc.py::test_ac_2_mul",
        "test_sub.py::test_ac_3_sub",
    ]
    assert (project.dir / "docs" / "traceability.md").read_text().count("| passed |") == 3
    builds = sorted((project.dir / ".scripted-agent" / "prompts").glob("*code-build.md"))
    assert "build this change on top of the existing code" in builds[-1].read_text()
    assert CHANGE in builds[-1].read_text()
    assert "sub(5, 3) is 2" in (project.dir / "docs" / "constraints.md").read_text()
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project.dir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tests.returncode == 0 and "3 passed" in tests.stdout, tests.stdout
    names = [item.name for item in project_history(project.dir) if item.name]
    assert "r2-phase3" in names and "r2-phase4" in names
    shown = run_cli(env, config_path, "status", project.id).stdout
    assert "revision" in shown and "2" in shown.split("revision", 1)[1][:20]
