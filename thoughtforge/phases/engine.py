"""The engine every agent-driven phase runs on: ask, re-ask, check, write, commit, halt.

The intake and spec conversations, the plan and code builders and the polish loop differ in what
they ask and how they judge the answer, not in how they talk to agents or stop. So each holds one
`PhaseEngine`: every agent call is its `ask`, inside `agent_at_work` (the person's documents are
put back), and every failure halts as `failure_halts.halt_for` says. An autonomous phase (3–4)
records its own halt (`halt`: the reason and the human's options in the chat, then
`transition(..., HALTED)`); a conversation (Phases 1–2, `PhaseEngine.conversing`) is halted by its
flow, between the person's turns (`flows.turns.halt_on_failure`), with the same map.

Safety is the orchestrator's, not the prompt's: `start` refuses an agent whose flags the project's
safety rules forbid before any call, and every write passes the rules' `validate` first. What an
agent writes itself is committed only when it is the deliverable (code mode); in plan mode a
source file an agent left halts the project.

A phase's steps run through a `StepRunner`: plain calls here, named Prefect tasks from a flow.
Re-asking until an answer is usable is `reasking`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.catalogue import halt_options
from thoughtforge.config import Config
from thoughtforge.core.hooks import TransitionHooks
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import commit_own, mark_polished
from thoughtforge.core.state import ChatMessage, check_state_files, mark_read, read_chat
from thoughtforge.core.transition import transition
from thoughtforge.errors import (
    PhaseHalt,
    ProjectFileError,
    RepositoryTampered,
    StateFileError,
    TransitionError,
    UnusableReply,
)
from thoughtforge.models import CONVERSATION_PHASES, HaltReason, Phase
from thoughtforge.phases import chat, person_documents
from thoughtforge.phases.failure_halts import halt_for
from thoughtforge.phases.plugin_contract import BuildOutcome
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.phases.reasking import ask_until_usable, asking
from thoughtforge.phases.rejected_replies import keep_rejected, rejected_so_far
from thoughtforge.phases.safety import SafetyViolation, check_agent, write_checked

T = TypeVar("T")


class StepRunner(Protocol):
    """Runs one named step and hands back what it returned, whatever its type."""

    def __call__(self, name: str, step: Callable[[], T]) -> T: ...


OUTPUT_INCOMPLETE = "Phase 3 deliverable appears incomplete. Review before proceeding."
"""The spec's words when a built deliverable is below `phase3_completeness` (plan or code)."""


def run_direct(name: str, step: Callable[[], T]) -> T:
    """The runner without Prefect: just call the step."""
    return step()


class PhaseEngine:
    """One run of an agent-driven phase over a project that is in that phase."""

    def __init__(
        self, project: Project, config: Config, phase: Phase, hooks: TransitionHooks | None
    ) -> None:
        status = project.status()
        if status.phase is not phase:
            raise TransitionError(f"project {project.id} is in '{status.phase}', not '{phase}'")
        self.project = project
        self.config = config
        self.phase = phase
        self.hooks = hooks
        self.agent = status.agent
        self.project_name = status.project_name or project.id
        self.plugin = plugin_for(config, status.deliverable_type)
        self.deliverable_type = self.plugin.name
        self.rules = self.plugin.safety
        self.prompts = self.plugin.prompt_library(config)

    @classmethod
    def conversing(cls, project: Project, config: Config) -> PhaseEngine:
        """The engine of a Phase 1–2 conversation, in the phase the project is in now (its
        transitions are the conversation's own, so no hooks). A project not typed yet is the
        default type's (`plugin_for`)."""
        phase = project.status().phase
        if phase not in CONVERSATION_PHASES:
            raise TransitionError(f"project {project.id} is in '{phase}', not in Phases 1–2")
        return cls(project, config, phase, None)

    def start(self, *agents: str) -> None:
        """Before the first step: every state file readable, no agent the safety rules forbid."""
        try:
            check_state_files(self.project.dir)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{exc}.") from None
        for agent in dict.fromkeys(agents):
            try:
                check_agent(self.config, agent, self.rules)
            except SafetyViolation as exc:
                raise PhaseHalt(HaltReason.AGENT_FAILURE, f"agent '{agent}': {exc}") from None

    # --- agents ----------------------------------------------------------------------------

    def call(
        self,
        step: str,
        iteration: int | None = None,
        schema: dict[str, Any] | None = None,
        sections: tuple[str, ...] = (),
        images: tuple[Path, ...] = (),
    ) -> AgentCall:
        """What a call is for; `schema` is the JSON schema of a JSON step's answer, `sections`
        the headings a Markdown step's answer must have (`AgentCall`)."""
        return AgentCall(
            step=step,
            project_dir=self.project.dir,
            phase=self.phase.value,
            iteration=iteration,
            reply_schema=schema,
            sections=sections,
            images=images,
        )

    @property
    def builds_code(self) -> bool:
        """The agents' files are the deliverable (code mode), not only ThoughtForge's writes."""
        return self.plugin.builds_files

    @contextmanager
    def agent_at_work(self, step: str, also: tuple[str, ...] = ()) -> Iterator[None]:
        """Around every agent step: what it did to the person's documents (and to `also`,
        files of ThoughtForge's own a plugin keeps from agents) is put back before the step is
        judged, logged, and said in the chat (`person_documents`)."""
        before = person_documents.snapshot(
            self.project.dir, (*person_documents.PERSON_DOCUMENTS, *also)
        )
        try:
            yield
        finally:
            try:
                restored = person_documents.put_back(self.project.dir, before)
            except OSError as exc:
                raise PhaseHalt(
                    HaltReason.FILE_SYSTEM_ERROR,
                    f"cannot put back a document the agent changed in {step}: {exc}",
                ) from None
            if restored:
                log_event(
                    self.project.dir,
                    "agent_edit_reverted",
                    level="warning",
                    step=step,
                    files=restored,
                )
                self._tell(
                    f"The agent changed {', '.join(restored)} during {step}; the change was put "
                    "back. Only you change these documents (edit them, or ask for a revision)."
                )

    def ask(self, agent: str, prompt: str, call: AgentCall, also: tuple[str, ...] = ()) -> str:
        """The agent's answer, from the one place every phase calls an agent; what it wrote to
        the person's documents or to `also` is put back (`agent_at_work`). Its `AgentFailure`
        reaches the phase's end, which halts on it (`halt_for`)."""
        with self.agent_at_work(call.step, also):
            return invoke_agent(self.config, agent, prompt, call)

    def ask_until_usable(
        self,
        agent: str,
        call: AgentCall,
        prompt: Callable[[UnusableReply | None], str],
        use: Callable[[str], T],
        attempts: int,
        also: tuple[str, ...] = (),
        on_unusable: Callable[[int, UnusableReply], object] = lambda attempt, why: None,
    ) -> T:
        """`ask_until_usable` with this phase's agent call; each refused answer is kept in the
        project and said in the chat (then given to `on_unusable`), and each re-ask counts as
        one (`asking`); what the agent wrote to `also` is put back (`ask`)."""
        keep = self.keeper(call.step)

        def refused(attempt: int, why: UnusableReply) -> None:
            keep(attempt, why)
            on_unusable(attempt, why)

        return ask_until_usable(
            self.asking(agent, call, rejected_so_far(self.project, call.step), also),
            prompt,
            use,
            attempts=attempts,
            on_unusable=refused,
        )

    def asking(
        self, agent: str, call: AgentCall, refused_before: int = 0, also: tuple[str, ...] = ()
    ) -> Callable[[str], str]:
        """`ask` with `call` as one prompt's question, each use after the first a re-ask
        (`reasking.asking`): for a step that judges its answers itself."""
        return asking(
            lambda text, numbered: self.ask(agent, text, numbered, also), call, refused_before
        )

    def keeper(self, step: str) -> Callable[[int, UnusableReply], object]:
        """What to do with each refused reply of `step`: keep it (`rejected_replies`)."""
        return lambda attempt, why: keep_rejected(self.project, self.phase, step, attempt, why)

    # --- files -----------------------------------------------------------------------------

    def read(self, relpath: str) -> str:
        path = self.project.dir / relpath
        try:
            return read_own_text(path)
        except ProjectFileError as exc:
            raise halt_for(exc) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{path} is unreadable: {exc}") from None

    def write(self, relpath: str, text: str) -> None:
        try:
            write_checked(self.project.dir, relpath, text, self.rules)
        except (SafetyViolation, OSError) as exc:
            raise PhaseHalt(
                HaltReason.FILE_SYSTEM_ERROR, f"cannot write {relpath}: {exc}"
            ) from None

    def commit(self, subject: str) -> None:
        """Commit the project's files. A failed commit, or a hook or git config an agent wrote,
        halts with file_system_error (`halt_for`). In plan mode files an agent left are never
        committed, and a source file among them halts with plan_mode_violation."""
        try:
            found = commit_own(self.project.dir, subject, agent_files=self.builds_code)
        except (ProjectFileError, RepositoryTampered) as exc:
            raise halt_for(exc) from None
        except Exception as exc:  # noqa: BLE001 - any git failure is a file-system halt
            raise PhaseHalt(
                HaltReason.FILE_SYSTEM_ERROR, f"git commit failed ({subject}): {exc}"
            ) from None
        if self.builds_code:
            return
        if found.foreign:
            self.say_once(
                "These files were not written by ThoughtForge and are not committed: "
                f"{', '.join(found.foreign)}."
            )
        if found.foreign_sources:
            raise PhaseHalt(
                HaltReason.PLAN_MODE_VIOLATION,
                f"Plan mode never writes code, but {', '.join(found.foreign_sources)} appeared in "
                "the project. Remove it, then resume.",
            )

    def commit_quietly(self, subject: str) -> str | None:
        """For endings, which a failed commit must not undo: why it failed, or None. A state file
        that cannot be read is never committed over the good copy in git."""
        try:
            check_state_files(self.project.dir)
            commit_own(self.project.dir, subject, agent_files=self.builds_code)
        except Exception as exc:  # noqa: BLE001 - the ending stands; the files stay on disk
            log_event(self.project.dir, "commit_failed", level="warning", error=repr(exc))
            return str(exc)
        return None

    def human_guidance(self, step: str) -> str:
        """Everything the person said in this phase, for `step`, about to ask its agent: in a
        build a decision (a stuck answer, a correction) holds for every step after it. What no
        step had read yet is marked read by `step`."""
        said = [m for m in self.chat() if m.role == "human" and m.phase is self.phase]
        self.mark_read(chat.unread_words(said), step)
        return chat.guidance_text(said)

    def chat(self) -> list[ChatMessage]:
        """The phase's chat; one that cannot be read halts (it is never guessed)."""
        try:
            return read_chat(self.project.dir)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None

    def mark_read(self, messages: list[ChatMessage], by: str) -> None:
        try:
            mark_read(self.project.dir, messages, by)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None
        except OSError as exc:
            raise PhaseHalt(
                HaltReason.FILE_SYSTEM_ERROR, f"cannot mark the chat read: {exc}"
            ) from None

    def say(self, text: str) -> None:
        chat.notice(self.project, text, self.phase)

    def say_once(self, text: str) -> None:
        chat.notice_once(self.project, text, self.phase)

    # --- endings ---------------------------------------------------------------------------

    def advance(self, phase: Phase, summary: str | None = None) -> None:
        transition(self.project, phase, summary=summary, hooks=self.hooks)
        if phase is Phase.DONE:
            self.commit_quietly("Done")
            mark_polished(self.project.dir)

    def halt(self, halt: PhaseHalt, options: str, summary: str) -> None:
        """The reason and the human's options go into the chat, then the project halts. When not
        even the halt can be written (a read-only folder), `ProjectFileError` says so; the
        project's view says it at every later look (`ProjectView.stranded`)."""
        self._tell(f"Halted: {halt} Options: {options}.", reserved=True)
        try:
            transition(
                self.project,
                Phase.HALTED,
                halt_reason=halt.halt_reason,
                summary=summary,
                hooks=self.hooks,
            )
        except OSError as exc:
            raise ProjectFileError(
                self.project.dir, f"{halt}; and the halt could not be recorded ({exc})"
            ) from None
        failure = self.commit_quietly(f"{self.phase.value} halted ({halt.halt_reason})")
        if failure:
            self._tell(f"The project's files could not be committed: {failure}.")

    def halt_build(self, halt: PhaseHalt, what: str, deliverable: Path) -> BuildOutcome:
        """A Phase 3 halt, with the options its reason leaves the human."""
        summary = f"Project '{self.project_name}' — {what} halted: {halt}"
        self.halt(halt, halt_options(halt.halt_reason, Phase.BUILDING), summary)
        return BuildOutcome(
            verdict="halt", halt_reason=halt.halt_reason, reason=str(halt), deliverable=deliverable
        )

    def _tell(self, text: str, *, reserved: bool = False) -> None:
        """A halt must be recorded even when the chat itself is what is broken (or the disk)."""
        try:
            chat.notice(self.project, text, self.phase, reserved=reserved)
        except (StateFileError, OSError) as exc:
            log_event(self.project.dir, "not_in_chat", level="warning", text=text, error=str(exc))
