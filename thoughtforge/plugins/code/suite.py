"""The project's test suite as Phase 3 and Phase 4 run it: the command its language needs, a run
that is logged, and the rule for a runner that crashes (once is retried, twice halts).

A command that cannot start at all halts at once: nothing the coding agent writes can fix it.
"""

from __future__ import annotations

import shlex

from thoughtforge.config import CodeConfig
from thoughtforge.core.project import SPEC_FILE
from thoughtforge.core.project_log import log_event
from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish.review import TestResults
from thoughtforge.phases.safety import Operation, OperationKind, SafetyViolation
from thoughtforge.plugins.code.suite_run import (
    TestRun,
    detect_language,
    install_hint,
    run_tests,
)
from thoughtforge.prompting import truncate_text

FAILING_SHOWN = 50
"""At most this many failing test names go into a log line or a prompt."""


class Suite:
    """The test suite of the engine's project, under the `code` settings."""

    def __init__(self, engine: PhaseEngine, settings: CodeConfig) -> None:
        self.engine = engine
        self.settings = settings

    def command(self) -> list[str]:
        return self.settings.test_commands[self.language()]

    def language(self) -> str:
        """The project's language among `code.test_commands` (`detect_language`), or a halt."""
        commands = self.settings.test_commands
        spec = self.engine.read(SPEC_FILE)
        language = detect_language(spec, self.engine.project.dir, commands)
        if language is None:
            raise PhaseHalt(
                HaltReason.TEST_RUNNER_FAILED,
                "Cannot tell which test command to run: the spec's Deliverable Structure names "
                f"none of {', '.join(sorted(commands))} and no project file shows the language. "
                "Add the language to code.test_commands or to the spec, then resume.",
            )
        return language

    def run(self) -> TestRun:
        """The suite's verdict; a crash of the runner is retried once, then halts."""
        run = self.run_once()
        if run.crashed:
            log_event(
                self.engine.project.dir,
                "test_runner_crashed",
                level="warning",
                reason=run.crash_reason,
            )
            run = self.run_once()
        if run.crashed:
            tail = truncate_text(run.output_tail, 300).text.strip()
            raise PhaseHalt(
                HaltReason.TEST_RUNNER_FAILED,
                f"The test runner failed twice: {run.crash_reason}."
                + (f" End of its output: {tail}" if tail else ""),
            )
        return run

    def run_once(self) -> TestRun:
        """One run, crashed or not; a command that cannot start halts."""
        try:
            self.engine.rules.validate(Operation(kind=OperationKind.RUN_TESTS))
        except SafetyViolation as exc:
            raise PhaseHalt(HaltReason.AGENT_FAILURE, str(exc)) from None
        project_dir = self.engine.project.dir
        language = self.language()
        command = self.settings.test_commands[language]
        run = run_tests(project_dir, command, self.settings.test_timeout_seconds)
        if run.start_failure is not None:
            raise PhaseHalt(
                HaltReason.TEST_RUNNER_FAILED,
                f"The test command `{shlex.join(command)}` could not start: {run.start_failure}"
                f" — set `code.test_commands.{language}` or {install_hint(command)}, then resume.",
            )
        if run.exit_code is None:
            raise PhaseHalt(
                HaltReason.TEST_RUNNER_FAILED,
                f"The test command cannot run: {run.crash_reason}. Fix code.test_commands or "
                "the machine, then resume.",
            )
        log_event(
            project_dir,
            "tests_run",
            total=run.total,
            passed=run.passed,
            failed=run.failed,
            failing=run.failing[:FAILING_SHOWN],
            crash=run.crash_reason,
        )
        return run


def results(run: TestRun) -> TestResults:
    """The counts a review records; a suite whose output named no counts failed if it exited
    non-zero, as one failure."""
    if run.runner:
        return TestResults(total=run.total, passed=run.passed, failed=run.failed)
    return TestResults(total=0, passed=0, failed=0 if run.succeeded else 1)


def describe(run: TestRun) -> str:
    """One line for a prompt or a halt message."""
    counted = f"{run.failed} of {run.total} tests failed" if run.runner else f"exit {run.exit_code}"
    return counted + (f" ({run.note})" if run.note else "")


def listing(failing: list[str]) -> str:
    return "\n".join(f"- {name}" for name in failing[:FAILING_SHOWN]) or "None named."
