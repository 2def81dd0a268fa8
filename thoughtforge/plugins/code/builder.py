"""Phase 3 in code mode: gate the plan, build, then test and fix until the suite passes.

1. **Plan Completeness Gate**: a plan among the resources (`plan_gate.find_plan`) is judged by
   the agent; a failing one halts `plan_incomplete` until the human overrides (build from it as
   it is) or terminates. No plan, no gate.
2. **Build**: the coding agent (`coder`: called directly, or as a Vibe Kanban task attempt),
   working in the project directory, builds from `spec.md`,
   `constraints.md` and the plan (not `intent.md`: the spec supersedes it). In step mode
   (`code.step_mode`) it first lists ordered steps; each step is built, checked (the agent exited
   0 and the test suite still runs) and committed as `<project> step <n>: <title>`. A failed
   attempt is undone to the last commit (`git reset --hard` + `git clean -fd`, ThoughtForge's own
   files kept) and retried up to `code.max_step_attempts`, so earlier steps are never lost.
3. **Test-fix cycle**: run the suite, give the failures to the agent, repeat until green. The
   spec's stuck rules (`stuck.StuckTracker`) halt `stuck` until the human provides input, which
   resets the counters; a runner that crashes twice in a row halts `test_runner_failed`.
4. One commit when the build succeeds, then Phase 4.

Progress lives in `code_build.json` (`build_state`) and in git, so a kill at any point resumes
where the files say: the next uncommitted step, or the test-fix cycle.

The stages are parts of `CodeBuilder` in `building/` (`gate`, `construction`, `fix_cycle`, on
`base`); this module runs them in order and ends the phase.
"""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.revisions import record_built_from
from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.engine import (
    OUTPUT_INCOMPLETE,
    StepRunner,
)
from thoughtforge.phases.failure_halts import HALTING_FAILURES, halt_for
from thoughtforge.phases.plugin_contract import BuildOutcome, ProgressListener
from thoughtforge.phases.revision import finish_build
from thoughtforge.plugins.code.build_state import CodeBuildState
from thoughtforge.plugins.code.building.construction import ConstructionStage
from thoughtforge.plugins.code.building.fix_cycle import FixCycleStage
from thoughtforge.plugins.code.building.gate import PlanGateStage
from thoughtforge.plugins.code.building.source_files import source_files
from thoughtforge.plugins.code.revision import begin_revision_build

MILESTONE = "Phase 3 complete. Deliverable built. Polish loop starting."


class CodeBuilder(PlanGateStage, ConstructionStage, FixCycleStage):
    """One run of Phase 3 (code mode) over a project in `building`, from where its files stop."""

    def run(self) -> BuildOutcome:
        try:
            self.engine.start(self.engine.agent)
            state = self._load()
            self._take_input(state)
            self._gate(state)
            work = self._work()
            if not state.built:
                self._build(state, work)
            self._test_until_green(state, work)
            return self._finish()
        except HALTING_FAILURES as failure:
            return self._halt(halt_for(failure))

    def _take_input(self, state: CodeBuildState) -> None:
        """Back from a `stuck` halt: the human's input is a new attempt, so counts start again."""
        if state.awaiting_input:
            state.stuck.reset(state.stuck.last_task or "")
            state.cycles = 0
            state.awaiting_input = False
            self._save(state)

    def _finish(self) -> BuildOutcome:
        minimum = self.engine.config.phase3_completeness.code_min_source_files
        sources = source_files(self.dir)
        if len(sources) < minimum:
            raise PhaseHalt(
                HaltReason.PHASE3_OUTPUT_INCOMPLETE,
                f"{OUTPUT_INCOMPLETE} (the project has {len(sources)} source file(s) besides "
                f"its tests; phase3_completeness.code_min_source_files is {minimum})",
            )
        self.acceptance.take_lock(self.green)
        self.acceptance.write_traceability(self.acceptance.traces(self.green))
        finish_build(self.engine.project)
        record_built_from(self.dir)
        self.engine.commit("Phase 3 complete: code built, all tests pass")
        self.engine.advance(Phase.POLISHING)
        return BuildOutcome(
            verdict="built", halt_reason=None, reason=MILESTONE, deliverable=self.dir
        )

    def _halt(self, halt: PhaseHalt) -> BuildOutcome:
        if halt.halt_reason is HaltReason.STUCK:
            self._mark_awaiting_input()
        return self.engine.halt_build(halt, "code build", self.dir)

    def _mark_awaiting_input(self) -> None:
        try:
            state = self._load()
            state.awaiting_input = True
            self._save(state)
        except PhaseHalt as exc:
            log_event(self.dir, "code_build_state_unsaved", level="warning", error=str(exc))


def build(
    project: Project, config: Config, *, runner: StepRunner, on_progress: ProgressListener
) -> CodeBuilder:
    """The plugin contract's builder (`phases.plugin_contract`): progress by step, reported each
    time `code_build.json` is saved. In a revision, the new steps start on top of the code."""
    begin_revision_build(project)
    return CodeBuilder(project, config, runner=runner, on_progress=on_progress)
