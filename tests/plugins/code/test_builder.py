"""Phase 3 in code mode with a scripted coding agent that writes real files and a real pytest
that runs them: the build, the test-fix cycle, the stuck rules, step mode and the plan gate."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.code_setup import (
    BUGGY_BUILD,
    CALC_BUGGY,
    CALC_FIXED,
    COMPLETE_PLAN,
    FAIL,
    GOOD_BUILD,
    PASS,
    TEST_CALC,
    code_project,
    code_sections,
    wrote,
)
from tests.polish_setup import calls
from thoughtforge.config import Config, load_config
from thoughtforge.core import git_repo
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import CODE_BUILD_FILE, read_chat, read_state_file, read_status
from thoughtforge.errors import TransitionError
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import add_human_message, human_decisions
from thoughtforge.phases.engine import OUTPUT_INCOMPLETE
from thoughtforge.plugins.code.build_state import CodeBuildState
from thoughtforge.plugins.code.builder import CodeBuilder

# Whole flows and CLI processes, minutes in all: CI runs them in its slow suite.
pytestmark = pytest.mark.slow


@pytest.fixture
def code_config(tmp_path: Path, write_config: Callable[..., Path]) -> Callable[..., Config]:
    def make(**code: object) -> Config:
        return load_config(write_config(**code_sections(tmp_path, code=code)))

    return make


T = TypeVar("T")
TEST_ADD = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _log(project: Project) -> list[str]:
    return git_repo._repo(project.dir).git.log("--format=%s").splitlines()


def _committed(project: Project, path: str, ref: str = "HEAD") -> str:
    """The file as `ref` has it (git's output keeps its last newline here)."""
    return git_repo._repo(project.dir).git.show(f"{ref}:{path}", strip_newline_in_stdout=False)


def _state(project: Project) -> CodeBuildState:
    return read_state_file(project.dir, CODE_BUILD_FILE, CodeBuildState)


def test_a_failing_test_is_fixed_in_the_cycle_then_polishing(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(**{"code-build": wrote(BUGGY_BUILD), "code-test-fix": wrote({"calc.py": CALC_FIXED})})
    project = code_project(code_config())

    outcome = CodeBuilder(project, project_config := code_config()).run()

    assert outcome.verdict == "built", outcome.reason
    assert read_status(project.dir).phase is Phase.POLISHING
    assert calls(project) == {"code-build": 1, "code-test-fix": 1}
    runs = [e for e in read_events(project.dir) if e["event"] == "tests_run"]
    assert [(r["passed"], r["failed"], r["failing"]) for r in runs[-2:]] == [
        (1, 1, ["test_calc.py::test_ac_2_mul"]),
        (2, 0, []),
    ]
    assert _log(project)[0] == "Phase 3 complete: code built, all tests pass"
    assert _committed(project, "calc.py") == CALC_FIXED
    assert _committed(project, "test_calc.py") == TEST_CALC
    assert git_repo.changed_paths(project.dir) == ["status.json"]  # polishing, from the advance
    tracked = git_repo._repo(project.dir).git.ls_files().splitlines()
    assert not [path for path in tracked if "__pycache__" in path or ".scripted-agent" in path]
    assert project_config.code.max_fix_cycles == 10


def test_the_same_failing_tests_three_times_halt_stuck_and_input_resumes(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(
        **{
            "code-build": wrote(BUGGY_BUILD),
            "code-test-fix": [
                wrote({}, "tried"),
                wrote({}, "tried"),
                wrote({}, "tried"),
                wrote({"calc.py": CALC_FIXED}),
            ],
        }
    )
    project = code_project(config := code_config())

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.STUCK)
    assert "test_calc.py::test_ac_2_mul" in outcome.reason and "3 consecutive" in outcome.reason
    assert calls(project)["code-test-fix"] == 2
    assert _state(project).awaiting_input
    assert "provide input, terminate" in read_chat(project.dir)[-1].content

    human_decisions.provide_input(project, "mul must multiply, not add")
    outcome = CodeBuilder(project, config).run()

    assert outcome.verdict == "built", outcome.reason
    prompts = sorted((project.dir / ".scripted-agent" / "prompts").glob("*code-test-fix.md"))
    assert "mul must multiply, not add" in prompts[-1].read_text()
    assert "mul must multiply" not in prompts[0].read_text()
    state = _state(project)
    assert (state.awaiting_input, state.stuck.test_repeats) == (False, 0)


def test_a_failed_step_is_undone_and_retried_and_earlier_steps_stay(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    steps = '{"steps": [{"title": "add", "details": "add()"}, {"title": "mul"}]}'
    add_only = {"calc.py": "def add(a, b):\n    return a + b\n", "pyproject.toml": "[project]\n"}
    add_test = {
        "test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    }
    script(
        **{
            "code-steps": {"text": steps},
            "code-build": [
                wrote({**add_only, **add_test}),
                wrote({"calc.py": "broken", "junk.py": "half"}, exit=1),
                wrote({"calc.py": CALC_FIXED, "test_calc.py": TEST_CALC}),
            ],
        }
    )
    project = code_project(config := code_config(step_mode=True))

    outcome = CodeBuilder(project, config).run()

    assert outcome.verdict == "built", outcome.reason
    log = _log(project)
    assert log[:3] == [
        "Phase 3 complete: code built, all tests pass",
        "Pocket Calculator step 2/2: mul",
        "Pocket Calculator step 1/2: add",
    ]
    assert _committed(project, "calc.py", "HEAD~2") == add_only["calc.py"]
    assert not (project.dir / "junk.py").exists()
    assert _committed(project, "calc.py") == CALC_FIXED
    failed = [e for e in read_events(project.dir) if e["event"] == "build_attempt_failed"]
    assert [(e["task"], e["attempt"]) for e in failed] == [("step 2/2: mul", 1)]
    assert all(step.done for step in _state(project).steps or [])


def test_a_message_sent_mid_build_reaches_the_next_step_and_is_marked_read(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    """Before, the guidance was read once when the run started."""
    add_only = {"calc.py": "def add(a, b):\n    return a + b\n", "pyproject.toml": "[project]\n"}
    script(
        **{
            "code-steps": {"text": '{"steps": [{"title": "add"}, {"title": "mul"}]}'},
            "code-build": [
                wrote({**add_only, "test_add.py": TEST_ADD}),
                wrote({"calc.py": CALC_FIXED, "test_calc.py": TEST_CALC}),
            ],
        }
    )
    project = code_project(config := code_config(step_mode=True))

    def runner(name: str, step: Callable[[], T]) -> T:
        result = step()
        if name == "step 1/2: add":
            add_human_message(project, "Integers only, please.")
        return result

    assert CodeBuilder(project, config, runner=runner).run().verdict == "built"
    folder = project.dir / ".scripted-agent" / "prompts"
    builds = [p.read_text() for p in sorted(folder.glob("*code-build.md"))]
    assert ["Integers only, please." in prompt for prompt in builds] == [False, True]
    [said] = [m for m in read_chat(project.dir) if m.content == "Integers only, please."]
    assert said.read_by == "step 2/2: mul"


def test_two_non_zero_exits_in_a_row_on_a_step_are_stuck_and_leave_no_half_work(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(**{"code-build": wrote({"calc.py": "half"}, exit=2)})
    project = code_project(config := code_config())

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.STUCK)
    assert "2 times in a row" in outcome.reason
    assert not (project.dir / "calc.py").exists()
    assert calls(project)["code-build"] == 2


def test_a_step_that_breaks_the_suite_is_undone_until_attempts_run_out(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    broken = {"calc.py": CALC_BUGGY, "test_calc.py": "import nowhere\n", "pyproject.toml": ""}
    script(**{"code-build": wrote(broken)})
    project = code_project(config := code_config(max_step_attempts=2))

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.STUCK)
    assert "failed 2 times" in outcome.reason and "no longer runs" in outcome.reason
    assert calls(project)["code-build"] == 2
    assert not (project.dir / "test_calc.py").exists()


def test_an_incomplete_plan_halts_and_override_builds_from_it(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(**{"plan-completeness": {"text": FAIL}, "code-build": wrote(GOOD_BUILD)})
    project = code_project(config := code_config(), resources={"plan.md": COMPLETE_PLAN})

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.PLAN_INCOMPLETE)
    assert "resources/plan.md" in outcome.reason and "storage format" in outcome.reason
    assert "override, terminate" in read_chat(project.dir)[-1].content
    with pytest.raises(TransitionError, match="takes override"):
        human_decisions.apply(project, "resume")

    assert human_decisions.apply(project, "override").phase is Phase.BUILDING
    outcome = CodeBuilder(project, config).run()

    assert outcome.verdict == "built", outcome.reason
    assert calls(project) == {"plan-completeness": 1, "code-build": 1}
    assert _state(project).gate == "overridden"
    prompt = next((project.dir / ".scripted-agent" / "prompts").glob("*code-build.md"))
    assert "| Objective | Plan | Assessment |" in prompt.read_text()


def test_a_complete_plan_passes_and_no_plan_skips_the_gate(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(**{"plan-completeness": {"text": PASS}, "code-build": wrote(GOOD_BUILD)})
    with_plan = code_project(config := code_config(), resources={"plan.md": COMPLETE_PLAN})
    without = code_project(config)

    assert CodeBuilder(with_plan, config).run().verdict == "built"
    assert CodeBuilder(without, config).run().verdict == "built"

    assert (_state(with_plan).gate, _state(without).gate) == ("passed", "skipped")
    assert calls(without) == {"code-build": 1}


def test_a_test_command_that_cannot_start_halts_at_once(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(**{"code-build": wrote(GOOD_BUILD)})
    project = code_project(config := code_config(test_commands={"python": ["no-such-runner"]}))

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.TEST_RUNNER_FAILED)
    assert "command not found: no-such-runner" in outcome.reason
    assert calls(project) == {"code-build": 1}
    assert "resume, terminate" in read_chat(project.dir)[-1].content


def test_a_python_without_pytest_halts_at_once_saying_so_and_how_to_fix_it(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    """Before: the run counted as failing tests the runner named none of, three cycles on, and
    halted stuck."""
    script(**{"code-build": wrote(GOOD_BUILD)})
    no_pytest = [sys.executable, "-S", "-m", "pytest"]  # -S: an interpreter without site-packages
    project = code_project(config := code_config(test_commands={"python": no_pytest}))

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.TEST_RUNNER_FAILED)
    assert (
        f"The test command `{shlex.join(no_pytest)}` could not start: No module named pytest — "
        "set `code.test_commands.python` or install pytest for that interpreter, then resume."
    ) in outcome.reason
    assert calls(project) == {"code-build": 1}, "no fix-and-retest cycle was asked for"


def test_a_suite_that_crashes_twice_in_the_cycle_halts(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(
        **{
            "code-build": wrote(BUGGY_BUILD),
            "code-test-fix": wrote({"test_calc.py": "import nowhere\n"}),
        }
    )
    project = code_project(config := code_config())

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.TEST_RUNNER_FAILED)
    assert "failed twice" in outcome.reason
    crashes = [e for e in read_events(project.dir) if e["event"] == "test_runner_crashed"]
    assert len(crashes) == 1


def test_a_corrupt_build_state_halts_and_is_kept(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(**{"code-build": wrote(GOOD_BUILD)})
    project = code_project(config := code_config())
    (project.dir / CODE_BUILD_FILE).write_text("{not json")

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.FILE_SYSTEM_ERROR)
    assert CODE_BUILD_FILE in outcome.reason
    assert (project.dir / CODE_BUILD_FILE).read_text() == "{not json"
    assert "code-build" not in calls(project)


def test_with_vibe_kanban_execution_an_unreachable_board_fails_like_an_agent(
    tmp_path: Path, write_config: Callable[..., Path], script: Callable[..., Path]
) -> None:
    script(**{"code-build": wrote(GOOD_BUILD)})
    vibekanban = {"code_execution": True, "url": "http://127.0.0.1:9", "timeout_seconds": 1}
    config = load_config(write_config(**code_sections(tmp_path, vibekanban=vibekanban)))
    project = code_project(config)

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.STUCK)
    assert "vibe-kanban:CLAUDE_CODE" in outcome.reason and "2 times in a row" in outcome.reason
    assert "code-build" not in calls(project)  # the scripted agent was never called directly


class _Killed(BaseException):
    """Stands in for a kill: nothing after it runs, no handler catches it."""


def test_a_run_killed_after_a_step_was_written_redoes_it_from_the_last_commit(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    steps = '{"steps": [{"title": "add"}, {"title": "mul"}]}'
    first = {"calc.py": "def add(a, b):\n    return a + b\n", "test_add.py": TEST_ADD}
    script(
        **{
            "code-steps": {"text": steps},
            "code-build": [
                wrote(first),
                wrote({"calc.py": CALC_BUGGY, "leftover.py": "x"}),
                wrote({"calc.py": CALC_FIXED, "test_calc.py": TEST_CALC}),
            ],
        }
    )
    project = code_project(config := code_config(step_mode=True))

    def killed_after_step_two(name: str, step: Callable[[], object]) -> object:
        result = step()
        if name.startswith("step 2/2"):
            raise _Killed
        return result

    with pytest.raises(_Killed):
        CodeBuilder(project, config, runner=killed_after_step_two).run()
    assert (project.dir / "leftover.py").exists()  # written, never committed

    outcome = CodeBuilder(project, config).run()

    assert outcome.verdict == "built", outcome.reason
    assert not (project.dir / "leftover.py").exists()
    assert calls(project) == {"code-steps": 1, "code-build": 3}
    assert _log(project)[1:3] == [
        "Pocket Calculator step 2/2: mul",
        "Pocket Calculator step 1/2: add",
    ]


def test_a_spec_naming_no_known_language_halts_before_any_build(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    script(**{"code-build": wrote(GOOD_BUILD)})
    project = code_project(config := code_config())
    spec = project.docs_dir / "spec.md"
    spec.write_text(spec.read_text().replace("Python 3.11", "Brainfuck").replace("pytest", "x"))

    outcome = CodeBuilder(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.TEST_RUNNER_FAILED)
    assert "Cannot tell which test command to run" in outcome.reason
    assert "code-build" not in calls(project)


def test_a_build_with_tests_but_no_source_halts_incomplete_before_polishing(
    code_config: Callable[..., Config], script: Callable[..., Path]
) -> None:
    """Before, a green suite was enough: the code path never read code_min_source_files."""
    truths = (
        "def test_ac_1_truth():\n    assert 1 + 1 == 2\n\n\ndef test_ac_2_truth():\n    assert 2\n"
    )
    only_tests = {"test_truth.py": truths, "NOTES.md": "x\n"}
    script(**{"code-build": wrote(only_tests)})
    project = code_project(code_config())

    outcome = CodeBuilder(project, code_config()).run()

    assert outcome.halt_reason is HaltReason.PHASE3_OUTPUT_INCOMPLETE, outcome.reason
    assert outcome.reason.startswith(OUTPUT_INCOMPLETE)
    assert "0 source file(s)" in outcome.reason and "code_min_source_files is 1" in outcome.reason
    assert read_status(project.dir).phase is Phase.HALTED
