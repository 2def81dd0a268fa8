"""Phase 3 in plan mode: fill the OPA template section by section, then hand over to Phase 4.

Plain Python like the polish loop: the Prefect flow passes a `runner` that makes each section a
named task. The plan on disk is the build's only record, which makes a kill at any point safe:

* every accepted slot is written into `docs/plan.md` at once, so a kill loses at most the answer
  being waited for, and a re-run reads the filled slots back and starts at the first unfilled one;
* every halt commits the partial plan first.

Asking, re-asking, safety checks, commits and halts are the shared `PhaseEngine`'s.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from thoughtforge.config import Config
from thoughtforge.core.hooks import TransitionHooks
from thoughtforge.core.project import PLAN_FILE, Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.revisions import record_built_from
from thoughtforge.errors import PhaseHalt, UnusableReply
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.engine import (
    OUTPUT_INCOMPLETE,
    PhaseEngine,
    StepRunner,
    run_direct,
)
from thoughtforge.phases.failure_halts import HALTING_FAILURES, halt_for, unusable_twice
from thoughtforge.phases.plugin_contract import (
    BuildOutcome,
    BuildProgress,
    ProgressItem,
    ProgressListener,
)
from thoughtforge.phases.revision import finish_build
from thoughtforge.plugins.plan.builder_response import (
    check_slots,
    parse_builder_response,
    response_schema,
)
from thoughtforge.plugins.plan.draft import Draft, SectionProgress, load_draft, progress_markdown
from thoughtforge.plugins.plan.revision import PlanReviser, revision_builder
from thoughtforge.plugins.plan.section_prompt import BUILD_STEP, section_prompt
from thoughtforge.plugins.plan.slot_content import unfilled_reason
from thoughtforge.plugins.plan.template import PlanTemplate, PlanTemplateError, Section
from thoughtforge.plugins.plan.template_selection import TEMPLATES_DIR
from thoughtforge.plugins.plan.traceability_file import write_plan_traceability
from thoughtforge.plugins.plan.validation import check_plan

ATTEMPTS = 2  # ask, then re-ask once

MILESTONE = "Phase 3 complete. Deliverable built. Polish loop starting."
OUTPUT_MISSING = (
    "Phase 3 reported success but deliverable files are missing. Review project directory."
)


class _SlotsRejected(UnusableReply):
    """A readable answer that left some of the section's slots without usable content."""

    def __init__(self, rejected: dict[str, str]) -> None:
        self.rejected = rejected
        super().__init__("; ".join(f"{slot_id} ({why})" for slot_id, why in rejected.items()))


class PlanBuilder:
    """One run of Phase 3 (plan mode) over a project in `building`, from wherever plan.md stops."""

    def __init__(
        self,
        project: Project,
        config: Config,
        *,
        runner: StepRunner = run_direct,
        on_progress: ProgressListener | None = None,
        hooks: TransitionHooks | None = None,
        templates_dir: Path = TEMPLATES_DIR,
    ) -> None:
        self.engine = PhaseEngine(project, config, Phase.BUILDING, hooks)
        self.runner = runner
        self.on_progress = on_progress or (lambda progress: None)
        self.templates_dir = templates_dir

    def run(self) -> BuildOutcome:
        try:
            self.engine.start(self.engine.agent)
            draft = load_draft(self.engine, self.templates_dir)
            sections = draft.template.sections()
            for number, section in enumerate(sections, start=1):
                if not draft.missing(section):
                    continue
                step = f"build section {number}/{len(sections)}: {section.heading}"
                label = f"section {number}/{len(sections)} '{section.heading}'"
                draft.guidance = self.engine.human_guidance(step)
                self.runner(step, partial(self._fill_section, draft, section, label))
                progress = draft.progress()
                log_event(
                    self.engine.project.dir,
                    "build_progress",
                    sections=[p.model_dump() for p in progress],
                )
                self.on_progress(_reported(progress))
            return self._finish(draft.template)
        except HALTING_FAILURES as failure:
            return self._halt(halt_for(failure))

    def _fill_section(self, draft: Draft, section: Section, label: str) -> None:
        """Ask for the section's missing slots; re-ask once for what is still missing, then halt."""

        def prompt(refusal: UnusableReply | None) -> str:
            rejected = refusal.rejected if isinstance(refusal, _SlotsRejected) else {}
            unreadable = None if rejected else refusal
            return section_prompt(self.engine, draft, section, rejected, unreadable)

        schema = response_schema([slot.id for slot in draft.missing(section)])
        try:
            self.engine.ask_until_usable(
                self.engine.agent,
                self.engine.call(BUILD_STEP, schema=schema),
                prompt,
                partial(self._use, draft, section, label),
                attempts=ATTEMPTS,
            )
        except _SlotsRejected as exc:
            raise PhaseHalt(
                HaltReason.BUILD_INCOMPLETE,
                f"Plan build incomplete: no usable content for {exc} in {label} after one re-ask.",
            ) from None
        except UnusableReply as exc:
            raise unusable_twice(exc, f"The agent's answer for {label}") from None

    def _use(self, draft: Draft, section: Section, label: str, answer: str) -> None:
        """Keep new content for unfilled slots (of any section) and save; refuse what is missing."""
        response = parse_builder_response(answer)
        check = check_slots(response, draft.template.slot_ids)
        if check.unknown:
            log_event(
                self.engine.project.dir,
                "unknown_slots_discarded",
                level="warning",
                slots=check.unknown,
            )
        fresh = {
            slot_id: text
            for slot_id, text in check.accepted.items()
            if unfilled_reason(draft.filled.get(slot_id, "")) is not None
        }
        if fresh:
            draft.filled.update(fresh)
            self._save(draft)
        if response.stuck:
            why = response.stuck_reason or "the agent reported stuck without saying why"
            raise PhaseHalt(HaltReason.STUCK, f"The agent is stuck on {label}: {why}")
        asking = draft.missing(section)
        if asking:
            refused = check.rejected
            raise _SlotsRejected({s.id: refused.get(s.id, "no content was given") for s in asking})

    def _save(self, draft: Draft) -> None:
        try:
            text = draft.template.render(self.engine.project_name, draft.filled)
        except PlanTemplateError as exc:
            raise PhaseHalt(
                HaltReason.FILE_SYSTEM_ERROR, f"cannot save {PLAN_FILE}: {exc}"
            ) from None
        self.engine.write(PLAN_FILE, text)

    def _finish(self, template: PlanTemplate) -> BuildOutcome:
        """The spec's Phase 3 → 4 checks, in its order, then commit and move to `polishing`."""
        path = self.engine.project.dir / PLAN_FILE
        if not path.is_file():
            raise PhaseHalt(HaltReason.PHASE3_OUTPUT_MISSING, OUTPUT_MISSING)
        plan = self.engine.read(PLAN_FILE)
        verdict = check_plan(Candidate(stage="build", text=plan), template)
        if verdict.problem == "not_following":
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{path}: {verdict.reason}")
        if not verdict.accepted:
            raise PhaseHalt(
                HaltReason.BUILD_INCOMPLETE, f"Plan build incomplete: {verdict.reason}."
            )
        minimum = self.engine.config.phase3_completeness.plan_min_chars
        if len(plan) < minimum:
            raise PhaseHalt(
                HaltReason.PHASE3_OUTPUT_INCOMPLETE,
                f"{OUTPUT_INCOMPLETE} ({PLAN_FILE} has {len(plan)} characters; "
                f"phase3_completeness.plan_min_chars is {minimum})",
            )
        write_plan_traceability(self.engine)
        finish_build(self.engine.project)
        record_built_from(self.engine.project.dir)
        self.engine.commit("Phase 3 complete: plan built")
        self.engine.advance(Phase.POLISHING)
        return BuildOutcome(verdict="built", halt_reason=None, reason=MILESTONE, deliverable=path)

    def _halt(self, halt: PhaseHalt) -> BuildOutcome:
        return self.engine.halt_build(halt, "plan build", self.engine.project.dir / PLAN_FILE)


def build(
    project: Project,
    config: Config,
    *,
    runner: StepRunner,
    on_progress: ProgressListener,
) -> PlanBuilder | PlanReviser:
    """The plugin contract's builder (`phases.plugin_contract`): progress by section. In a
    revision, the reviser that re-fills only the sections the change touches."""
    reviser = revision_builder(project, config, runner=runner)
    if reviser is not None:
        return reviser
    return PlanBuilder(project, config, runner=runner, on_progress=on_progress)


def _reported(progress: list[SectionProgress]) -> BuildProgress:
    return BuildProgress(
        items=[
            ProgressItem(
                label=p.heading, done=p.filled == p.slots, detail=f"{p.filled}/{p.slots} slots"
            )
            for p in progress
        ],
        markdown=progress_markdown(progress),
    )
