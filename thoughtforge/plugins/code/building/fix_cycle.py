"""Stage 3: run the suite, give the failures to the coding agent, repeat until green; the stuck
rules and `code.max_fix_cycles` halt `stuck`.

Green means more than the suite's exit code in a pytest project: every acceptance criterion has
a test named after it (`test_ac_<n>_...`) and each of those passes when ThoughtForge runs it
itself (a skipped or xfailed one does not). What is missing is given to the fixer as failures."""

from __future__ import annotations

from thoughtforge.core.project_log import log_event
from thoughtforge.errors import AgentFailure, PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.plugins.code.acceptance.lock import LOCK_FILE
from thoughtforge.plugins.code.acceptance.verdict import untested
from thoughtforge.plugins.code.build_state import CodeBuildState
from thoughtforge.plugins.code.building.base import BuilderBase, Work
from thoughtforge.plugins.code.suite import FAILING_SHOWN, describe, listing
from thoughtforge.plugins.code.suite_run import TestRun


class FixCycleStage(BuilderBase):
    def _test_until_green(self, state: CodeBuildState, work: Work) -> None:
        while True:
            run = self.runner(f"test run #{state.cycles + 1}", self.suite.run)
            run = self._with_acceptance(run)
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

    def _with_acceptance(self, run: TestRun) -> TestRun:
        """The run, with each criterion lacking a passing test of its own counted as failing."""
        if not run.succeeded:
            return run
        stated = self.acceptance.criteria()
        now = self.acceptance.survey()
        named = [t.node_id for c in stated for t in now.for_criterion(c.number)]
        ran = self.acceptance.run(named, run)
        problems = self.acceptance.problems(ran, untested(stated, now))
        if not problems:
            self.green = ran
            return run
        log_event(self.dir, "acceptance_unmet", problems=problems[:FAILING_SHOWN])
        return run.model_copy(
            update={
                "failed": run.failed + len(problems),
                "total": run.total + len(problems),
                "failing": problems + run.failing,
                "note": "each acceptance criterion needs a passing test named after it",
            }
        )

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
            with self.engine.agent_at_work("code-test-fix", also=(LOCK_FILE,)):
                self.code(prompt, self.engine.call("code-test-fix"))
        except AgentFailure as exc:
            stuck = state.stuck.agent_failed(task)
            self._save(state)
            log_event(self.dir, "fix_failed", level="warning", cycle=state.cycles, failure=str(exc))
            if stuck is not None:
                raise PhaseHalt(HaltReason.STUCK, f"Stuck: {stuck.reason}. Last: {exc}") from None
            return
        refusal = self._lock_refusal(task)
        if refusal is not None:
            stuck = state.stuck.agent_failed(task)
            self._save(state)
            if stuck is not None:
                raise PhaseHalt(HaltReason.STUCK, f"Stuck: {stuck.reason}. Last: {refusal}")
            return
        state.stuck.agent_succeeded(task)
        self._save(state)
