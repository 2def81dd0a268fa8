"""What every stage of the code build works with: the engine, the step runner, the code
settings, the suite and the coder, the progress file, and what the coding prompts are built from."""

from __future__ import annotations

from dataclasses import dataclass

from thoughtforge.config import Config
from thoughtforge.core.hooks import TransitionHooks
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import CODE_BUILD_FILE, read_state_file, write_state_file
from thoughtforge.errors import PhaseHalt, StateFileError
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.engine import PhaseEngine, StepRunner, run_direct
from thoughtforge.phases.plugin_contract import BuildProgress, ProgressItem, ProgressListener
from thoughtforge.plugins.code.acceptance.check import Acceptance
from thoughtforge.plugins.code.acceptance.runner import AcceptanceRun
from thoughtforge.plugins.code.build_state import CodeBuildState
from thoughtforge.plugins.code.coder import coder_for
from thoughtforge.plugins.code.suite import Suite

ATTEMPTS = 2  # ask for a usable answer, then re-ask once


@dataclass(frozen=True)
class Work:
    """What every coding prompt is built from, read once per run (the human may edit them); the
    person's guidance is read again for each step (`PhaseEngine.human_guidance`)."""

    spec: str
    constraints: str
    plan: str
    test_command: list[str]


class BuilderBase:
    """The builder's collaborators and its progress file, which each stage reads and saves."""

    def __init__(
        self,
        project: Project,
        config: Config,
        *,
        runner: StepRunner = run_direct,
        on_progress: ProgressListener | None = None,
        hooks: TransitionHooks | None = None,
    ) -> None:
        self.engine = PhaseEngine(project, config, Phase.BUILDING, hooks)
        self.runner = runner
        self.on_progress = on_progress or (lambda progress: None)
        self.settings = config.code
        self.suite = Suite(self.engine, config.code)
        self.acceptance = Acceptance(self.engine, self.suite)
        self.green: AcceptanceRun | None = None
        """The acceptance tests' results when the suite last came out green."""
        self.code = coder_for(config, self.engine.agent, self.suite.command)
        self.dir = project.dir

    def _lock_refusal(self, task: str) -> str | None:
        """In a revision's build (the tests were locked when the first build ended): why the
        step that just ran may not stand, when it touched a locked test of a criterion the
        revision left as it was, or the runner's files. Its work is then undone, as a failed
        attempt's is."""
        if self.acceptance.lock() is None:
            return None
        verdict = self.acceptance.verdict(None).model_copy(update={"untested": []})
        if not verdict.refused:
            return None
        touched = [str(t) for t in verdict.touched]
        log_event(
            self.dir, "locked_acceptance_refused", level="warning", task=task, touched=touched
        )
        self.acceptance.undo()
        return verdict.reason

    def _load(self) -> CodeBuildState:
        if not (self.dir / CODE_BUILD_FILE).exists():
            return CodeBuildState()
        try:
            return read_state_file(self.dir, CODE_BUILD_FILE, CodeBuildState)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{exc}.") from None

    def _save(self, state: CodeBuildState) -> None:
        try:
            write_state_file(self.dir, CODE_BUILD_FILE, state)
        except OSError as exc:
            why = f"cannot write {CODE_BUILD_FILE}: {exc}"
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, why) from None
        self.on_progress(progress_of(state))


def progress_of(state: CodeBuildState) -> BuildProgress:
    """Each step (once the steps are known), then whether the build passed its tests."""
    items = [
        ProgressItem(label=step.title, done=step.done, detail=f"step {n}")
        for n, step in enumerate(state.steps or [], start=1)
    ]
    items.append(
        ProgressItem(label="built", done=state.built, detail=f"{state.cycles} test-fix cycle(s)")
    )
    return BuildProgress(items=items)
