"""Stage 3: run the suite, give the failures to the coding agent, repeat until green; the stuck
rules and `code.max_fix_cycles` halt `stuck`."""

from __future__ import annotations

from thoughtforge.core import log_event
from thoughtforge.errors import AgentFailure, PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.plugins.code.build_state import CodeBuildState
from thoughtforge.plugins.code.building.base import BuilderBase, Work
from thoughtforge.plugins.code.suite import describe, listing
from thoughtforge.plugins.code.test_runner import TestRun


class FixCycleStage(BuilderBase):
    def _test_until_green(self, state: CodeBuildState, work: Work) -> None:
        while True:
            run = self.runner(f"test run #{state.cycles + 1}", self.suite.run)
            if run.succeeded:
                state.stuck.tests_passed()
                self._save(state)
                return
            stuck = state.stuck.tests_failed(run.failing)
            self._save(state)
            if stuck is not None:
                raise PhaseHalt(HaltReason.STUCK, f"Stuck: {stuck.reason}.")
            if state.cycles >= self.settings.max_fix_cycles:
                raise PhaseHalt(
                    HaltReason.STUCK,
                    f"The tests still fail after {state.cycles} fix cycles "
                    f"(code.max_fix_cycles): {describe(run)}.",
                )
            state.cycles += 1
            self._save(state)
            self.runner(f"fix cycle #{state.cycles}", lambda: self._fix(state, work, run))  # noqa: B023

    def _fix(self, state: CodeBuildState, work: Work, run: TestRun) -> None:
        """One fix; a failed one is counted (stuck rule) and the next test run judges the tree."""
        task = "fix the failing tests"
        prompt = self.engine.prompts.render(
            "code-test-fix",
            test_command=" ".join(work.test_command),
            result=describe(run),
            failing=listing(run.failing),
            output=run.output_tail,
            spec=work.spec,
            constraints=work.constraints,
            guidance=self.engine.human_guidance(f"fix cycle #{state.cycles}"),
        )
        try:
            self.code(prompt, self.engine.call("code-test-fix"))
        except AgentFailure as exc:
            stuck = state.stuck.agent_failed(task)
            self._save(state)
            log_event(self.dir, "fix_failed", level="warning", cycle=state.cycles, failure=str(exc))
            if stuck is not None:
                raise PhaseHalt(HaltReason.STUCK, f"Stuck: {stuck.reason}. Last: {exc}") from None
            return
        state.stuck.agent_succeeded(task)
        self._save(state)
