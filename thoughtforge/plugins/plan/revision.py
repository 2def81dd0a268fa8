"""Phase 3 of a revision, in plan mode: re-fill only the plan sections the change touches.

The agent names the touched sections once (kept in `revisions.json`, so a re-run does not ask
again); each is then rewritten and written into `docs/plan.md` at once, every other byte of the
plan kept. A kill loses at most the section being asked for.
"""

from __future__ import annotations

from functools import partial

from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.hooks import TransitionHooks
from thoughtforge.core.project import CONSTRAINTS_FILE, PLAN_FILE, SPEC_FILE, Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.revisions import (
    REVISION_TAG_PREFIX,
    Revision,
    open_revision,
    record_built_from,
    update_revision,
)
from thoughtforge.errors import UnusableReply
from thoughtforge.models import Phase
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.engine import (
    PhaseEngine,
    StepRunner,
    run_direct,
)
from thoughtforge.phases.failure_halts import HALTING_FAILURES, halt_for, unusable_twice
from thoughtforge.phases.plugin_contract import BuildOutcome
from thoughtforge.phases.reasking import reask
from thoughtforge.phases.revision import finish_build
from thoughtforge.phases.revision_text import (
    SUPERSEDED,
    SectionChoice,
    chosen_sections,
    readable_diff,
    replace_sections,
    section_body,
    split_sections,
)
from thoughtforge.plugins.plan.traceability_file import write_plan_traceability

ATTEMPTS = 2
SECTIONS_STEP = "plan-revise-sections"
REVISE_STEP = "plan-revise"
MILESTONE = "Phase 3 complete. The change is built into the plan. Polish loop starting."
_PLAN_NAME = PLAN_FILE.rsplit("/", 1)[-1]
UNCHANGED_MILESTONE = (
    "Phase 3 complete. The rebuild changed nothing in the plan. Polish loop starting."
)


class PlanReviser:
    """One run of a revision's Phase 3 over a plan project in `building`."""

    def __init__(
        self,
        project: Project,
        config: Config,
        revision: Revision,
        *,
        runner: StepRunner = run_direct,
        hooks: TransitionHooks | None = None,
    ) -> None:
        self.engine = PhaseEngine(project, config, Phase.BUILDING, hooks)
        self.runner = runner
        self.revision = revision

    def run(self) -> BuildOutcome:
        try:
            self.engine.start(self.engine.agent)
            headings = _headings(self.engine.read(PLAN_FILE))
            if self.revision.sections is None:
                chosen = self.runner(
                    "choose the sections to revise", lambda: self._choose(headings)
                )
                self._save(sections=chosen)
                self.engine.say(
                    f"Revision {self.revision.number}: rebuilding {len(chosen)} of "
                    f"{len(headings)} plan sections ({', '.join(chosen)}); the others are kept "
                    "as they are."
                )
            for heading in self.revision.sections or []:
                if heading in self.revision.rebuilt:
                    continue
                self.runner(f"revise section: {heading}", partial(self._rewrite, heading))
                self._save(rebuilt=[*self.revision.rebuilt, heading])
            return self._finish()
        except HALTING_FAILURES as failure:
            halt = halt_for(failure)
            return self.engine.halt_build(
                halt, "plan revision", self.engine.project.dir / PLAN_FILE
            )

    def _choose(self, headings: list[str]) -> list[str]:
        spec_diff = "\n\n".join(
            diff
            for name, before in (
                (SPEC_FILE, self.revision.spec_before),
                (CONSTRAINTS_FILE, self.revision.constraints_before),
            )
            if (diff := readable_diff(before, self.engine.read(name), name))
        )
        prompt = self.engine.prompts.render(
            SECTIONS_STEP,
            change=self.revision.change,
            spec_diff=spec_diff or "(no line of the spec changed)",
            sections="\n".join(f"- {h}" for h in headings),
        )
        try:
            return self.engine.ask_until_usable(
                self.engine.agent,
                self.engine.call(SECTIONS_STEP, schema=SectionChoice.model_json_schema()),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal),
                lambda answer: chosen_sections(answer, headings),
                attempts=ATTEMPTS,
            )
        except UnusableReply as exc:
            raise unusable_twice(exc, "The agent's choice of sections to revise") from None

    def _rewrite(self, heading: str) -> None:
        plan = self.engine.read(PLAN_FILE)
        part = next((p for p in split_sections(plan) if p.heading == heading), None)
        if part is None:  # the person removed it meanwhile: nothing to rewrite
            log_event(self.engine.project.dir, "revised_section_missing", section=heading)
            return
        prompt = self.engine.prompts.render(
            REVISE_STEP,
            change=self.revision.change,
            spec=self.engine.read(SPEC_FILE),
            heading=heading,
            section=section_body(part).strip(),
            guidance=self.engine.human_guidance(f"revise section: {heading}"),
        )

        def use(answer: str) -> str:
            body = _without_heading(answer, heading)
            if not body.strip():
                raise UnusableReply("it was empty", answer)
            revised = replace_sections(plan, {heading: body})
            verdict = self.engine.plugin.check_deliverable(
                self.engine.project, Candidate(stage="revision", text=revised, previous=plan)
            )
            if not verdict.accepted:
                raise UnusableReply(f"the revised plan would be refused: {verdict.reason}", answer)
            if verdict.stripped:
                log_event(
                    self.engine.project.dir, "outside_text_stripped", stripped=verdict.stripped
                )
            return verdict.document + "\n"

        try:
            revised = self.engine.ask_until_usable(
                self.engine.agent,
                self.engine.call(REVISE_STEP),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal),
                use,
                attempts=ATTEMPTS,
            )
        except UnusableReply as exc:
            raise unusable_twice(exc, f"The agent's revised section '{heading}'") from None
        self.engine.write(PLAN_FILE, revised)

    def _finish(self) -> BuildOutcome:
        project = self.engine.project
        number = self.revision.number
        rebuilt = ", ".join(self.revision.rebuilt) or "no section"
        tag = f"{REVISION_TAG_PREFIX}{number}"
        unchanged = git_repo.changed_since(project.dir, tag, [PLAN_FILE]) == []
        self._save(unchanged=unchanged)
        write_plan_traceability(self.engine)  # the revised criteria, as the first build's end
        finish_build(project)
        record_built_from(project.dir)
        if unchanged:
            self.engine.say(
                f"Revision {number}: the rebuild changed nothing in {_PLAN_NAME} ({rebuilt} "
                "came back word for word). Say the change differently with Revise, or edit the "
                "plan yourself."
            )
        kept = f" ({_PLAN_NAME} unchanged)" if unchanged else ""
        self.engine.commit(f"Phase 3 complete: revision {number} rebuilt {rebuilt}{kept}")
        self.engine.advance(Phase.POLISHING)
        path = project.dir / PLAN_FILE
        reason = UNCHANGED_MILESTONE if unchanged else MILESTONE
        return BuildOutcome(verdict="built", halt_reason=None, reason=reason, deliverable=path)

    def _save(self, **changes: object) -> None:
        self.revision = self.revision.model_copy(update=changes)
        update_revision(self.engine.project.dir, self.revision)


def revision_builder(project: Project, config: Config, *, runner: StepRunner) -> PlanReviser | None:
    """The reviser, when the project is in a revision whose build is open and has a plan."""
    revision = open_revision(project.dir)
    if revision is None or not (project.dir / PLAN_FILE).is_file():
        return None
    return PlanReviser(project, config, revision, runner=runner)


def _headings(plan: str) -> list[str]:
    return [p.heading for p in split_sections(plan) if p.heading and p.heading != SUPERSEDED]


def _without_heading(answer: str, heading: str) -> str:
    """The agent may repeat the section's heading (or fence the body): both are dropped."""
    text = answer.strip()
    if text.startswith("```") and text.endswith("```"):
        text = text.split("\n", 1)[1].rsplit("```", 1)[0].strip() if "\n" in text else ""
    parts = split_sections(text)
    if parts and parts[0].heading == heading:
        return section_body(parts[0]) + "".join(p.text for p in parts[1:])
    return text
