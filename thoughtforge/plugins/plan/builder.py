"""Phase 3 in plan mode: fill the OPA template section by section, then hand over to Phase 4.

Plain Python like the polish loop: the Prefect flow passes a `runner` that makes each section a
named task. The plan on disk is the build's only record, which makes a kill at any point safe:

* every accepted slot is written into `docs/plan.md` at once, so a kill loses at most the answer
  being waited for, and a re-run reads the filled slots back and starts at the first unfilled one;
* every halt commits the partial plan first.

Safety is the orchestrator's, not the prompt's: an agent whose flags grant tools is refused before
any call, and every write passes the plan rules' `validate`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from thoughtforge import git_repo
from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.config import Config
from thoughtforge.context_window import estimate_tokens, truncate_text
from thoughtforge.errors import (
    AgentFailure,
    PhaseHalt,
    StateFileError,
    ThoughtForgeError,
    TransitionError,
)
from thoughtforge.markdown_sections import SectionedText, heading_key
from thoughtforge.models import DeliverableType, HaltReason, Phase
from thoughtforge.plugins.plan.builder_response import (
    BuilderResponseError,
    PlanBuilderResponse,
    check_slots,
    parse_builder_response,
)
from thoughtforge.plugins.plan.slot_content import unfilled_reason
from thoughtforge.plugins.plan.template import (
    PlanTemplate,
    PlanTemplateError,
    Section,
    Slot,
    SlotKind,
    load_template,
)
from thoughtforge.plugins.plan.template_selection import (
    TEMPLATES_DIR,
    NoPlanTemplatesError,
    select_template,
)
from thoughtforge.plugins.safety import SafetyViolation, check_agent, load_rules, write_checked
from thoughtforge.project import CONSTRAINTS_FILE, INTENT_FILE, PLAN_FILE, Project
from thoughtforge.project_log import log_event
from thoughtforge.prompts import PromptLibrary
from thoughtforge.spec_phase import SPEC_FILE
from thoughtforge.state import ChatMessage, append_chat, read_chat
from thoughtforge.step_runner import StepRunner, run_direct
from thoughtforge.transition import TransitionHooks, transition

BUILD_STEP = "plan-build"
# Halts that the human answers with input (Phase 3 offers provide input or terminate).
INPUT_HALTS = frozenset({HaltReason.STUCK, HaltReason.BUILD_INCOMPLETE})
ATTEMPTS = 2  # ask, then re-ask once

MILESTONE = "Phase 3 complete. Deliverable built. Polish loop starting."
OUTPUT_MISSING = (
    "Phase 3 reported success but deliverable files are missing. Review project directory."
)
OUTPUT_INCOMPLETE = "Phase 3 deliverable appears incomplete. Review before proceeding."
CONSTRAINTS_UNREADABLE = (
    "constraints.md missing or unreadable. Cannot start polish loop. Review project `/docs/` "
    "directory."
)
FALLBACK_SPEC_SECTION = "Deliverable Structure"

_WORD = re.compile(r"[^\W_]+")
_STOP_WORDS = frozenset({"a", "an", "and", "the", "of", "for", "to", "in", "on", "with"})


class SectionProgress(BaseModel):
    heading: str
    filled: int
    slots: int


class BuildOutcome(BaseModel):
    verdict: Literal["built", "halt"]
    halt_reason: HaltReason | None
    reason: str
    deliverable: Path


ProgressListener = Callable[[list[SectionProgress]], None]


@dataclass
class _Draft:
    """What one run works from: read once at its start, `filled` growing as slots are accepted."""

    template: PlanTemplate
    spec: str
    guidance: str
    filled: dict[str, str]


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
        self.project = project
        self.config = config
        self.runner = runner
        self.on_progress = on_progress or (lambda progress: None)
        self.hooks = hooks
        self.templates_dir = templates_dir
        self.prompts = PromptLibrary(config.prompts.directory)
        self.rules = load_rules(DeliverableType.PLAN)
        status = project.status()
        if status.phase is not Phase.BUILDING:
            raise TransitionError(f"project {project.id} is in '{status.phase}', not 'building'")
        if status.deliverable_type is DeliverableType.CODE:
            raise ThoughtForgeError("the code-mode builder is not available yet")
        self.agent = status.agent
        self.project_name = status.project_name or project.id

    def run(self) -> BuildOutcome:
        try:
            self._check_agent()
            git_repo.remove_stale_lock(self.project.dir)
            draft = self._draft()
            sections = draft.template.sections()
            for number, section in enumerate(sections, start=1):
                if not _missing(section, draft.filled):
                    continue
                step = f"build section {number}/{len(sections)}: {section.heading}"
                label = f"section {number}/{len(sections)} '{section.heading}'"
                self.runner(step, partial(self._fill_section, draft, section, label))
                self.on_progress(_progress(sections, draft.filled))
            return self._finish(draft.template)
        except PhaseHalt as halt:
            return self._halt(halt)

    # --- one section -----------------------------------------------------------------------

    def _fill_section(self, draft: _Draft, section: Section, label: str) -> None:
        """Ask for the section's missing slots; re-ask once for what is still missing, then halt."""
        asking = _missing(section, draft.filled)
        rejected: dict[str, str] = {}
        unreadable = ""
        for _attempt in range(ATTEMPTS):
            answer = self._ask(self._prompt(draft, section, asking, rejected, unreadable))
            try:
                response = parse_builder_response(answer)
            except BuilderResponseError as exc:
                unreadable = str(exc)
                log_event(
                    self.project.dir, "build_answer_unreadable", level="warning", why=str(exc)
                )
                continue
            unreadable = ""
            refused = self._accept(draft, response)
            if response.stuck:
                why = response.stuck_reason or "the agent reported stuck without saying why"
                raise PhaseHalt(HaltReason.STUCK, f"The agent is stuck on {label}: {why}")
            asking = _missing(section, draft.filled)
            if not asking:
                return
            rejected = {s.id: refused.get(s.id, "no content was given") for s in asking}
            log_event(self.project.dir, "slots_rejected", level="warning", slots=rejected)
        if unreadable:
            raise PhaseHalt(
                HaltReason.AGENT_FAILURE,
                f"The agent's answer for {label} was unreadable twice: {unreadable}",
            )
        named = "; ".join(f"{slot_id} ({why})" for slot_id, why in rejected.items())
        raise PhaseHalt(
            HaltReason.BUILD_INCOMPLETE,
            f"Plan build incomplete: no usable content for {named} in {label} after one re-ask.",
        )

    def _accept(self, draft: _Draft, response: PlanBuilderResponse) -> dict[str, str]:
        """Keep new content for unfilled slots (of any section) and save; return the refusals."""
        check = check_slots(response, draft.template.slot_ids)
        if check.unknown:
            log_event(
                self.project.dir, "unknown_slots_discarded", level="warning", slots=check.unknown
            )
        fresh = {
            slot_id: text
            for slot_id, text in check.accepted.items()
            if unfilled_reason(draft.filled.get(slot_id, "")) is not None
        }
        if fresh:
            draft.filled.update(fresh)
            self._save(draft)
        return check.rejected

    def _prompt(
        self,
        draft: _Draft,
        section: Section,
        asking: list[Slot],
        rejected: Mapping[str, str],
        unreadable: str,
    ) -> str:
        """The whole plan and spec if they fit the agent's window; else just this section's part."""
        slots = _slot_list(asking, rejected)
        plan = draft.template.render(self.project_name, draft.filled)
        full = self._render(slots, draft.spec, plan, draft.guidance, unreadable)
        window = self.config.agent(self.agent).context_window_tokens
        if estimate_tokens(full) <= window:
            return full
        preceding = _preceding_section(draft, section)
        frame = self._render(slots, "", preceding, draft.guidance, unreadable)
        spec_part = truncate_text(
            _spec_part(draft.spec, section.heading), max(window - estimate_tokens(frame), 0)
        )
        log_event(
            self.project.dir,
            "build_context_truncated",
            level="warning",
            section=section.heading,
            prompt_tokens=estimate_tokens(full),
            window=window,
        )
        return self._render(slots, spec_part.text, preceding, draft.guidance, unreadable)

    def _render(self, slots: str, spec: str, plan: str, guidance: str, unreadable: str) -> str:
        prompt = self.prompts.render(
            BUILD_STEP, slots=slots, spec=spec, plan_so_far=plan, guidance=guidance
        )
        if not unreadable:
            return prompt
        return (
            f"{prompt}\n\nYour previous answer could not be used: {unreadable}. "
            "Answer again with the JSON object only."
        )

    def _ask(self, prompt: str) -> str:
        call = AgentCall(step=BUILD_STEP, project_dir=self.project.dir, phase=Phase.BUILDING.value)
        try:
            return invoke_agent(self.config, self.agent, prompt, call)
        except AgentFailure as exc:
            raise PhaseHalt(HaltReason.AGENT_FAILURE, str(exc)) from None

    # --- files -----------------------------------------------------------------------------

    def _check_agent(self) -> None:
        try:
            check_agent(self.config, self.agent, self.rules)
        except SafetyViolation as exc:
            raise PhaseHalt(HaltReason.AGENT_FAILURE, f"agent '{self.agent}': {exc}") from None

    def _draft(self) -> _Draft:
        """Re-read intent, spec, plan and chat: the human may have edited any of them."""
        template = self._template()
        return _Draft(
            template=template,
            spec=self._read(SPEC_FILE),
            guidance=self._guidance(),
            filled=self._resume(template),
        )

    def _template(self) -> PlanTemplate:
        plan_type = SectionedText.parse(self._read(INTENT_FILE)).get("Deliverable Type")
        try:
            choice = select_template(self.templates_dir, plan_type)
            template = load_template(choice.path)
        except (NoPlanTemplatesError, PlanTemplateError) as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None
        log_event(
            self.project.dir, "template_selected", template=choice.name, warning=choice.warning
        )
        if choice.warning:
            self._notice_once(choice.warning)
        return template

    def _resume(self, template: PlanTemplate) -> dict[str, str]:
        path = self.project.dir / PLAN_FILE
        if not path.exists():
            return {}
        try:
            on_disk = template.read_filled(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, PlanTemplateError) as exc:
            raise PhaseHalt(
                HaltReason.FILE_SYSTEM_ERROR,
                f"{path} cannot be resumed: {exc}. Restore it from git, or delete it to build the "
                "plan again.",
            ) from None
        filled = {k: v for k, v in on_disk.items() if unfilled_reason(v) is None}
        log_event(self.project.dir, "build_resumed", filled=len(filled), slots=len(template.slots))
        return filled

    def _guidance(self) -> str:
        """The human's Phase 3 messages (stuck recovery): the chat is cleared as Phase 3 begins."""
        try:
            history = read_chat(self.project.dir)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None
        said = [m.content for m in history if m.role == "human" and m.phase is Phase.BUILDING]
        return "\n\n".join(said) or "None."

    def _read(self, relpath: str) -> str:
        path = self.project.dir / relpath
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{path} is unreadable: {exc}") from None

    def _save(self, draft: _Draft) -> None:
        try:
            text = draft.template.render(self.project_name, draft.filled)
            write_checked(self.project.dir, PLAN_FILE, text, self.rules)
        except (PlanTemplateError, SafetyViolation, OSError) as exc:
            raise PhaseHalt(
                HaltReason.FILE_SYSTEM_ERROR, f"cannot save {PLAN_FILE}: {exc}"
            ) from None

    def _notice_once(self, text: str) -> None:
        history = read_chat(self.project.dir)
        if not any(m.role == "system" and m.content == text for m in history):
            append_chat(
                self.project.dir, ChatMessage(role="system", content=text, phase=Phase.BUILDING)
            )

    def _commit(self, subject: str) -> None:
        git_repo.commit_or_halt(self.project.dir, subject)

    # --- endings ---------------------------------------------------------------------------

    def _finish(self, template: PlanTemplate) -> BuildOutcome:
        """The spec's Phase 3 → 4 checks, in its order, then commit and move to `polishing`."""
        path = self.project.dir / PLAN_FILE
        if not path.is_file():
            raise PhaseHalt(HaltReason.PHASE3_OUTPUT_MISSING, OUTPUT_MISSING)
        plan = self._read(PLAN_FILE)
        try:
            unfilled = template.unfilled(template.read_filled(plan))
        except PlanTemplateError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{path}: {exc}") from None
        if unfilled:
            raise PhaseHalt(
                HaltReason.BUILD_INCOMPLETE, f"Plan build incomplete: {_describe(unfilled)}."
            )
        minimum = self.config.phase3_completeness.plan_min_chars
        if len(plan) < minimum:
            raise PhaseHalt(
                HaltReason.PHASE3_OUTPUT_INCOMPLETE,
                f"{OUTPUT_INCOMPLETE} ({PLAN_FILE} has {len(plan)} characters; "
                f"phase3_completeness.plan_min_chars is {minimum})",
            )
        try:
            (self.project.dir / CONSTRAINTS_FILE).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PhaseHalt(
                HaltReason.FILE_SYSTEM_ERROR, f"{CONSTRAINTS_UNREADABLE} ({exc})"
            ) from None
        self._commit("Phase 3 complete: plan built")
        transition(self.project, Phase.POLISHING, summary=MILESTONE, hooks=self.hooks)
        return BuildOutcome(verdict="built", halt_reason=None, reason=MILESTONE, deliverable=path)

    def _halt(self, halt: PhaseHalt) -> BuildOutcome:
        reason = str(halt)
        try:
            git_repo.commit_all(self.project.dir, f"Phase 3 halted ({halt.halt_reason})")
        except Exception as exc:  # noqa: BLE001 - the halt goes on; the plan stays on disk
            log_event(self.project.dir, "halt_commit_failed", level="warning", error=repr(exc))
            reason += f" (The partial plan could not be committed: {exc}.)"
        options = (
            "provide input, terminate" if halt.halt_reason in INPUT_HALTS else "resume, terminate"
        )
        append_chat(
            self.project.dir,
            ChatMessage(
                role="system", content=f"Halted: {reason} Options: {options}.", phase=Phase.BUILDING
            ),
        )
        transition(
            self.project,
            Phase.HALTED,
            halt_reason=halt.halt_reason,
            summary=f"Project '{self.project_name}' — plan build halted: {reason}",
            hooks=self.hooks,
        )
        return BuildOutcome(
            verdict="halt",
            halt_reason=halt.halt_reason,
            reason=reason,
            deliverable=self.project.dir / PLAN_FILE,
        )


def _missing(section: Section, filled: Mapping[str, str]) -> list[Slot]:
    return [s for s in section.slots if unfilled_reason(filled.get(s.id, "")) is not None]


def _progress(sections: list[Section], filled: Mapping[str, str]) -> list[SectionProgress]:
    return [
        SectionProgress(
            heading=s.heading, filled=len(s.slots) - len(_missing(s, filled)), slots=len(s.slots)
        )
        for s in sections
    ]


def _slot_list(asking: list[Slot], rejected: Mapping[str, str]) -> str:
    lines = []
    for slot in asking:
        place = "table cell" if slot.kind is SlotKind.CELL else "paragraph"
        line = f'- `{slot.id}`: {place} in section "{slot.section}"'
        if slot.id in rejected:
            line += (
                f" — asked again: your previous answer was not usable ({rejected[slot.id]}); "
                "write decided content"
            )
        lines.append(line)
    return "\n".join(lines)


def _preceding_section(draft: _Draft, section: Section) -> str:
    sections = draft.template.sections()
    index = next(i for i, s in enumerate(sections) if s.heading == section.heading)
    note = "(Only the preceding section is shown, so the prompt fits your context window.)"
    if index == 0:
        return f"{note}\n\nThis is the first section."
    previous = sections[index - 1]
    lines = [f"- `{s.id}`: {draft.filled.get(s.id, '(empty)')}" for s in previous.slots]
    return f"{note}\n\n## {previous.heading}\n\n" + "\n".join(lines)


def _spec_part(spec: str, heading: str) -> str:
    """The spec section sharing most words with the plan section, else the plan's structure."""
    sections = SectionedText.parse(spec).sections
    wanted = _words(heading)
    matching = [s for s in sections if wanted & _words(s.heading)]
    chosen = max(matching, key=lambda s: len(wanted & _words(s.heading)), default=None) or next(
        (s for s in sections if heading_key(s.heading) == heading_key(FALLBACK_SPEC_SECTION)),
        None,
    )
    if chosen is None:
        return spec
    return (
        "(Only the part of the specification for this section is shown, so the prompt fits your "
        f"context window.)\n\n## {chosen.heading}\n\n{chosen.body}"
    )


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP_WORDS}


def _describe(unfilled: list[Slot]) -> str:
    by_section: dict[str, list[str]] = {}
    for slot in unfilled:
        by_section.setdefault(slot.section, []).append(slot.id)
    return "; ".join(
        f"section '{h}' has unfilled slots {', '.join(ids)}" for h, ids in by_section.items()
    )
