"""Phase 4 in code mode with a scripted reviewer and coding fixer over a real pytest: the tests
run before each review, the review records them as measured, the fixer's edits are committed,
and the loop ends only when the tests pass."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.code_setup import (
    BUGGY_BUILD,
    CALC_BUGGY,
    CALC_FIXED,
    GOOD_BUILD,
    ISSUE,
    TEST_CALC,
    code_review,
    code_sections,
    polishing_code_project,
    wrote,
)
from tests.polish_setup import calls
from thoughtforge.config import Config, load_config
from thoughtforge.core import git_repo
from thoughtforge.core.state import read_polish_state, read_status
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.polish.loop import PolishLoop

CLEAN = code_review({"total": 2, "passed": 2, "failed": 0})


@pytest.fixture
def code_config(tmp_path: Path, write_config: Callable[..., Path]) -> Config:
    return load_config(write_config(**code_sections(tmp_path)))


def test_a_clean_review_of_failing_code_is_not_done_until_the_tests_pass(
    code_config: Config, script: Callable[..., Path]
) -> None:
    script(**{"code-review": {"text": CLEAN}, "code-fix": wrote({"calc.py": CALC_FIXED})})
    project = polishing_code_project(code_config, BUGGY_BUILD)

    outcome = PolishLoop(project, code_config).run()

    assert outcome.verdict == "done", outcome.reason
    assert outcome.deliverable == project.dir
    state = read_polish_state(project.dir)
    assert [(e.iteration, e.total, e.fix_applied) for e in state.trajectory] == [
        (1, 0, True),
        (2, 0, False),
    ]
    assert state.tests_passed is True
    assert calls(project) == {"code-review": 2, "code-fix": 1}
    subjects = git_repo._repo(project.dir).git.log("--format=%s").splitlines()
    assert subjects[:3] == ["Done", "review #2: no issues", "fix #1: changed calc.py"]
    prompts = sorted((project.dir / ".scripted-agent" / "prompts").glob("*code-review.md"))
    first = prompts[0].read_text()
    assert "1 passed, 1 failed, 2 in total" in first
    assert "test_calc.py::test_ac_2_mul" in first
    assert "### calc.py" in first and "status.json" not in first


def test_the_review_keeps_the_measured_tests_not_the_reviewers(
    code_config: Config, script: Callable[..., Path]
) -> None:
    lying = code_review({"total": 2, "passed": 2, "failed": 0})
    script(**{"code-review": {"by_iteration": {1: {"text": lying}}}, "code-fix": {"text": "no"}})
    project = polishing_code_project(code_config, BUGGY_BUILD)
    config = code_config.model_copy(
        update={"polish": code_config.polish.model_copy(update={"max_iterations": 1})}
    )

    outcome = PolishLoop(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.GUARD_MAX_ITERATIONS)
    review = (project.dir / "review.json").read_text()
    assert '"failed": 1' in review
    assert read_polish_state(project.dir).tests_passed is False


def test_the_fixer_gets_the_files_the_issues_name_and_its_edit_is_committed(
    code_config: Config, script: Callable[..., Path]
) -> None:
    reviews = {
        1: {"text": code_review({"total": 2, "passed": 1, "failed": 1}, ISSUE)},
        "default": {"text": CLEAN},
    }
    script(**{"code-review": {"by_iteration": reviews}, "code-fix": wrote({"calc.py": CALC_FIXED})})
    project = polishing_code_project(code_config, BUGGY_BUILD)

    outcome = PolishLoop(project, code_config).run()

    assert outcome.verdict == "done", outcome.reason
    assert read_status(project.dir).phase is Phase.DONE
    fix_prompt = next((project.dir / ".scripted-agent" / "prompts").glob("*code-fix.md"))
    text = fix_prompt.read_text()
    assert "mul adds its arguments" in text and "return a + b" in text
    committed = git_repo._repo(project.dir).git.show("HEAD:calc.py", strip_newline_in_stdout=False)
    assert committed == CALC_FIXED


def test_passing_code_with_a_clean_review_is_done_at_once(
    code_config: Config, script: Callable[..., Path]
) -> None:
    script(**{"code-review": {"text": CLEAN}})
    project = polishing_code_project(code_config, GOOD_BUILD)

    assert PolishLoop(project, code_config).run().verdict == "done"
    assert calls(project) == {"code-review": 1}


CALC_AS_DIFF = (
    "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n def mul(a, b):\n-    return a + b\n"
    "+    return a * b\n"
)
CALC_ELIDED = "# ... existing code unchanged ...\n\n\ndef mul(a, b):\n    return a * b\n"


@pytest.mark.slow
@pytest.mark.parametrize("written", [CALC_AS_DIFF, CALC_ELIDED], ids=["diff", "elided"])
def test_a_coder_that_leaves_a_diff_or_an_elided_file_is_refused_and_its_change_undone(
    code_config: Config, script: Callable[..., Path], written: str
) -> None:
    """Before: the file that was a patch (or lost `add`) was committed as the fix."""
    failing = code_review({"total": 2, "passed": 1, "failed": 1}, ISSUE)
    script(**{"code-review": {"text": failing}, "code-fix": wrote({"calc.py": written})})
    project = polishing_code_project(code_config, BUGGY_BUILD)

    outcome = PolishLoop(project, code_config).run()

    assert outcome.halt_reason is HaltReason.FIX_OUTPUT_INVALID, outcome.reason
    assert (project.dir / "calc.py").read_text() == CALC_BUGGY, "the coder's change was undone"
    assert "the fixer left calc.py broken" in outcome.reason
    assert [e.fix for e in read_polish_state(project.dir).trajectory] == ["refused", "refused"]


@pytest.mark.slow
def test_a_coder_that_changes_nothing_twice_halts_as_idle(
    code_config: Config, script: Callable[..., Path]
) -> None:
    failing = code_review({"total": 2, "passed": 1, "failed": 1}, ISSUE)
    script(**{"code-review": {"text": failing}, "code-fix": {"text": "I looked at it."}})
    project = polishing_code_project(code_config, BUGGY_BUILD)

    outcome = PolishLoop(project, code_config).run()

    assert outcome.halt_reason is HaltReason.GUARD_FIX_UNCHANGED, outcome.reason
    subjects = git_repo._repo(project.dir).git.log("--format=%s").splitlines()
    assert "fix #1: unchanged: the fixer changed no file" in subjects


# --- done rests on every criterion's tests passing in ThoughtForge's own run --------------------

SMALL_ISSUE = {**ISSUE, "description": "mul has no docstring", "location": "calc.py:5"}
PASSING_WITH_ISSUE = code_review({"total": 2, "passed": 2, "failed": 0}, SMALL_ISSUE)
XFAILED_CRITERION_TEST = (
    "import pytest\n\nfrom calc import mul\n\n\n@pytest.mark.xfail(reason='negative numbers')\n"
    "def test_ac_2_mul_negative():\n    assert mul(-2, 3) == 6\n"
)


def test_a_criterion_test_added_xfailed_is_no_evidence_and_stops_done(
    code_config: Config, script: Callable[..., Path]
) -> None:
    """Before: the fix added a test of criterion 2 marked xfail; the loop said "All tests
    pass" and ended done while `docs/traceability.md` said criterion 2 did not hold."""
    script(
        **{
            "code-review": {"text": PASSING_WITH_ISSUE},
            "code-fix": wrote({"test_more.py": XFAILED_CRITERION_TEST}),
        }
    )
    project = polishing_code_project(code_config, GOOD_BUILD)

    outcome = PolishLoop(project, code_config).run()

    assert outcome.halt_reason is HaltReason.CRITERION_WITHOUT_EVIDENCE, outcome.reason
    assert "#2 “mul(2, 3) is 6” (test_more.py::test_ac_2_mul_negative xfailed)" in outcome.reason
    assert "All tests pass" not in outcome.reason
    assert read_status(project.dir).phase is Phase.HALTED
    trace = (project.dir / "docs" / "traceability.md").read_text()
    assert "| test_more.py::test_ac_2_mul_negative | xfailed |" in trace


def test_a_fix_after_the_last_test_run_is_run_again_before_done(
    code_config: Config, script: Callable[..., Path]
) -> None:
    """Before: the review found a small issue in passing code, the fix broke `mul`, and the
    loop ended done saying "All tests pass" from the run made before the fix."""
    script(
        **{
            "code-review": {"text": PASSING_WITH_ISSUE},
            "code-fix": wrote({"calc.py": CALC_BUGGY}),
        }
    )
    project = polishing_code_project(code_config, GOOD_BUILD)

    outcome = PolishLoop(project, code_config).run()

    assert outcome.halt_reason is HaltReason.CRITERION_WITHOUT_EVIDENCE, outcome.reason
    assert "#2 “mul(2, 3) is 6” (test_calc.py::test_ac_2_mul failed)" in outcome.reason
    assert read_status(project.dir).phase is Phase.HALTED
    assert (
        "| test_calc.py::test_ac_2_mul | failed |"
        in (project.dir / "docs" / "traceability.md").read_text()
    )


def test_an_xfail_marked_criterion_test_that_passes_is_no_evidence(
    code_config: Config, script: Callable[..., Path]
) -> None:
    """Before: the locked test of criterion 2 carried `@pytest.mark.xfail`; it passed
    unexpectedly, pytest's report called that a pass, and the loop ended done at once."""
    marked = TEST_CALC.replace("def test_ac_2_mul", "@pytest.mark.xfail\ndef test_ac_2_mul")
    build = {**GOOD_BUILD, "test_calc.py": "import pytest\n" + marked}
    script(**{"code-review": {"text": CLEAN}, "code-fix": {"text": "I looked at it."}})
    project = polishing_code_project(code_config, build)
    config = code_config.model_copy(
        update={"polish": code_config.polish.model_copy(update={"max_iterations": 1})}
    )

    outcome = PolishLoop(project, config).run()

    assert outcome.verdict == "halt" and "All tests pass" not in outcome.reason, outcome.reason
    assert read_polish_state(project.dir).tests_passed is False
    assert (
        "| test_calc.py::test_ac_2_mul | failed |"
        in (project.dir / "docs" / "traceability.md").read_text()
    )
