"""The code reviewer is told what ThoughtForge measured, its own run of the locked acceptance
tests among it, never only the project's suite line, which the code under test can influence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.code_setup import BUGGY_BUILD, ISSUE, code_review, code_sections, polishing_code_project
from thoughtforge.config import Config, load_config
from thoughtforge.phases.polish.loop import PolishLoop

FAILING = code_review({"total": 2, "passed": 1, "failed": 1}, ISSUE)
PATCH = "import calc\n\ncalc.mul = lambda a, b: 6\n\n\ndef test_patched():\n    assert True\n"


@pytest.fixture
def code_config(tmp_path: Path, write_config: Callable[..., Path]) -> Config:
    return load_config(write_config(**code_sections(tmp_path)))


def test_a_suite_made_green_by_a_patch_is_shown_to_the_reviewer_as_the_locked_run_failing(
    code_config: Config, script: Callable[..., Path]
) -> None:
    """The fixer adds a test module that patches `mul` when the suite imports it: the project's
    suite says 3 passed, 0 failed. Before: that line was all review 2 was shown. Now it is
    shown ThoughtForge's measure and its own run of the locked test, which still fails."""
    script(
        **{
            "code-review": {"text": FAILING},
            "code-fix": {"text": "fixed", "write": {"test_aaa_setup.py": PATCH}},
        }
    )
    project = polishing_code_project(code_config, BUGGY_BUILD)
    config = code_config.model_copy(
        update={"polish": code_config.polish.model_copy(update={"max_iterations": 2})}
    )

    PolishLoop(project, config).run()

    prompts = sorted((project.dir / ".scripted-agent" / "prompts").glob("*code-review.md"))
    second = prompts[1].read_text()
    line = next(row for row in second.splitlines() if row.startswith("Test results"))
    assert "2 passed, 1 failed, 3 in total (the project's own suite: 0 of 3 tests failed)" in line
    assert (
        "ThoughtForge's own run of the locked acceptance tests: 1 of 2 passed; not passing: "
        "test_calc.py::test_ac_2_mul (failed)"
    ) in line
    first = prompts[0].read_text()
    assert "locked acceptance tests: 1 of 2 passed" in first
