"""Phase 3 for a checklist: the agent writes the whole checklist in one answer, which must hold at
least `MIN_ITEMS` unticked items; then the project moves on to Phase 4.

Asking, re-asking, the safety check of the write, the commit and every halt are the shared
engine's (`thoughtforge.phases.engine`); this module only says what to ask and what to accept.
"""

from __future__ import annotations

import re

from thoughtforge.config import Config
from thoughtforge.core.project import CONSTRAINTS_FILE, SPEC_FILE, Project
from thoughtforge.errors import PhaseHalt, UnusableReply
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.engine import PhaseEngine, StepRunner
from thoughtforge.phases.failure_halts import HALTING_FAILURES, halt_for
from thoughtforge.phases.plugin_contract import (
    BuildOutcome,
    BuildProgress,
    ProgressItem,
    ProgressListener,
)
from thoughtforge.phases.reasking import UNUSABLE_HELP, reask

DOCUMENT = "docs/checklist.md"
STEP = "checklist-build"
MIN_ITEMS = 3
_ITEM = re.compile(r"^\s*- \[ \] \S", re.MULTILINE)


def build(
    project: Project, config: Config, *, runner: StepRunner, on_progress: ProgressListener
) -> ChecklistBuilder:
    """The plugin contract's builder: one step, reported before and after."""
    return ChecklistBuilder(project, config, runner, on_progress)


class ChecklistBuilder:
    def __init__(
        self, project: Project, config: Config, runner: StepRunner, on_progress: ProgressListener
    ) -> None:
        self.engine = PhaseEngine(project, config, Phase.BUILDING, hooks=None)
        self.runner = runner
        self.on_progress = on_progress

    def run(self) -> BuildOutcome:
        path = self.engine.project.dir / DOCUMENT
        try:
            self.engine.start(self.engine.agent)
            self.on_progress(_progress(done=False, detail="asking the agent"))
            checklist = self.runner("write the checklist", self._ask)
            self.engine.write(DOCUMENT, checklist)
            self.on_progress(_progress(done=True, detail=f"{len(_ITEM.findall(checklist))} items"))
            self.engine.commit("Phase 3 complete: checklist built")
            self.engine.advance(Phase.POLISHING)
        except HALTING_FAILURES as failure:
            return self.engine.halt_build(halt_for(failure), "checklist build", path)
        return BuildOutcome(
            verdict="built", halt_reason=None, reason="Checklist built.", deliverable=path
        )

    def _ask(self) -> str:
        prompt = self.engine.prompts.render(
            STEP,
            spec=self.engine.read(SPEC_FILE),
            constraints=self.engine.read(CONSTRAINTS_FILE),
        )
        try:
            return self.engine.ask_until_usable(
                self.engine.agent,
                self.engine.call(STEP),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal, _AGAIN),
                _checklist,
                attempts=2,
            )
        except UnusableReply as exc:
            raise PhaseHalt(
                HaltReason.ANSWER_UNUSABLE,
                f"The checklist was unusable twice: {exc}. {UNUSABLE_HELP}",
            ) from None


def _progress(*, done: bool, detail: str) -> BuildProgress:
    return BuildProgress(
        items=[ProgressItem(label="write the checklist", done=done, detail=detail)]
    )


_AGAIN = "Answer again with the whole checklist in Markdown, one `- [ ] ` line per item."


def _checklist(answer: str) -> str:
    items = len(_ITEM.findall(answer))
    if items < MIN_ITEMS:
        raise UnusableReply(f"it holds {items} `- [ ]` items; at least {MIN_ITEMS} are needed")
    return answer.strip() + "\n"
