"""What an agent tool can do with ThoughtForge's projects: each tool is a plain function over
`actions`, the functions the page and the CLI call (starting, answering, archiving, restoring,
the inbox), so a tool can do nothing the page would refuse, and refuses in the same words.

A refusal is a `ThoughtForgeError`; the MCP server hands it to the agent as a tool error. A chat
turn or a decision returns the AI's reply when it comes within `wait_seconds` (what `--wait`
prints in the CLI). History reads `core.history`, as `thoughtforge history` and the page's
History do.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from thoughtforge.actions.answering import Answer, Outcome, take_answer
from thoughtforge.actions.archiving import archive_project, unarchive_project
from thoughtforge.actions.composer import WAITS_FOR
from thoughtforge.actions.draft import DraftEdit, take_edit
from thoughtforge.actions.inbox import inbox
from thoughtforge.actions.restoring import restore
from thoughtforge.actions.run_state import composer_of, current_composer, project_view, run_busy
from thoughtforge.actions.starting import DroppedFile, NewProject, Started, create_from_request
from thoughtforge.bounded_input import read_capped
from thoughtforge.config import Config, LiveConfig
from thoughtforge.core import (
    CONSTRAINTS_FILE,
    POLISH_LOG_FILE,
    SPEC_FILE,
    ChatMessage,
    Project,
    brain_dump_text,
    current_wait,
    open_project,
    read_own_text,
    read_thread,
    refuse_links,
)
from thoughtforge.core.history import project_history
from thoughtforge.core.spend import SpendSummary, change_budget, spend_of
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.agent_words import for_agent
from thoughtforge.mcp_server.answers import (
    RESOURCE_URI,
    Decision,
    Message,
    PersonAnswer,
    Turn,
)
from thoughtforge.mcp_server.runs import start_project_run, started_run_alive
from thoughtforge.models import Phase
from thoughtforge.phases.chat import PHASE_LABELS, await_reply
from thoughtforge.phases.draft_edits import current_draft
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.phases.polish.record import read_polish_record
from thoughtforge.phases.traceability import TRACEABILITY_FILE

POLL_SECONDS = 0.25
START_SECONDS = 60.0
"""How long a run started for an answer is given to ask for it (a cold start takes seconds)."""
MAX_DOCUMENT_CHARS = 500_000
PERSON_ACTIONS = {"confirm", "resume", "override", "terminate"}
"""The answers `ask_person` asks the person for: a draft's confirmation, a halt's decision."""
DOCUMENTS = {
    "spec": SPEC_FILE,
    "constraints": CONSTRAINTS_FILE,
    "polish-log": POLISH_LOG_FILE,
    "traceability": TRACEABILITY_FILE,
}
"""Each acceptance criterion's evidence is `traceability` (`phases.traceability`)."""


def message_of(message: ChatMessage) -> Message:
    return Message(
        role=message.role,
        phase=PHASE_LABELS[message.phase],
        time=f"{message.timestamp:%Y-%m-%d %H:%M} UTC",
        content=message.content,
    )


class Tools:
    """The tools, bound to one config file (followed as it changes, as the workbench does)."""

    def __init__(self, config_file: Path, config: Config) -> None:
        self.config_file = config_file
        self.live_config = LiveConfig(config_file, config)

    @property
    def config(self) -> Config:
        return self.live_config.current()

    def project(self, project_id: str) -> Project:
        return open_project(self.config, project_id)

    # --- projects ------------------------------------------------------------------------------

    def create_project(
        self,
        brain_dump: str = "",
        brain_dump_file: str = "",
        agent: str | None = None,
        deliverable_type: str = "",
        resources: list[str] | None = None,
    ) -> dict[str, Any]:
        if bool(brain_dump.strip()) == bool(brain_dump_file):
            raise ThoughtForgeError("give the brain dump as text or as a file, one of the two")
        text = brain_dump_text(brain_dump, brain_dump_file)
        if not text.strip():
            raise ThoughtForgeError("the brain dump is empty: say what you want made")
        files = [self._resource(Path(path)) for path in resources or []]
        request = NewProject(
            brain_dump=text, agent=agent, deliverable_type=deliverable_type, files=files
        )
        project = create_from_request(self.config, request)
        started = start_project_run(self.config, self.config_file, project)
        return {
            "project_id": project.id,
            "folder": str(project.dir),
            "note": for_agent(started.note),
            "next": "send_message to add to the brain dump or answer the AI's questions, "
            "distill when everything is said",
        }

    def list_projects(self, include_archived: bool = False) -> dict[str, Any]:
        box = inbox(self.config)
        return {
            "projects": [
                {
                    **_in_agent_words(entry.model_dump(mode="json", exclude_none=True)),
                    "resources": [
                        RESOURCE_URI.format(project_id=entry.project_id, document=name)
                        for name in ("deliverable", *DOCUMENTS)
                    ],
                }
                for entry in (box.entries if include_archived else box.listed)
            ],
            "active": f"{box.active}/{box.limit}",
            "full": box.full,
        }

    def archive(self, project_id: str) -> dict[str, Any]:
        status = archive_project(self.config, self.project(project_id))
        return {"project_id": project_id, "phase": status.phase.value, "archived": True}

    def unarchive(self, project_id: str) -> dict[str, Any]:
        status = unarchive_project(self.project(project_id))
        return {"project_id": project_id, "phase": status.phase.value, "archived": False}

    def project_status(self, project_id: str) -> dict[str, Any]:
        view = project_view(self.config, self.project(project_id))
        status, composer = view.status, composer_of(view)
        return {
            "project_id": view.project.id,
            "name": status.project_name or view.project.id,
            "phase": status.phase.value,
            "run": view.run.value,
            "waits_for": for_agent(WAITS_FOR[view.waiting.kind]) if view.waiting else None,
            "halt_reason": status.halt_reason,
            "deliverable_type": status.deliverable_type,
            "agent": status.agent,
            "archived": status.archived_at is not None,
            "revision": view.revision,
            "open_findings": view.open_findings,
            "actions_now": [action.name for action in composer.actions],
            "note": for_agent(composer.note),
        }

    def read_thread(self, project_id: str, last: int = 20) -> list[Message]:
        messages = read_thread(self.project(project_id).dir)
        return [message_of(message) for message in messages[-last:]]

    # --- the person's answers --------------------------------------------------------------------

    def answer(
        self,
        project_id: str,
        action: str,
        message: str,
        wait_seconds: float,
        *,
        budget_usd: float | None = None,
        edit: DraftEdit | None = None,
    ) -> Turn:
        """Take `action` as the page takes it (with `edit`: the page's Save, or Save and
        confirm); then the AI's reply, within `wait_seconds`.

        When no run waits for it, the page starts one and hands the answer over once it asks;
        here the run is started, its question awaited, and the answer given to it then, so the
        reply is known to follow that question. A revision starts its own run, whose revised
        proposal is the reply."""
        project = self.project(project_id)
        self._until_possible(project, "confirm" if edit else action, wait_seconds)
        since, answered = len(read_thread(project.dir)), current_wait(project.dir)
        pending: list[dict[str, Any]] = []
        answer = Answer(action=action, message=message, budget_usd=budget_usd)
        outcome = self._take(project, answer, pending, edit)
        key = answered.key if answered else None
        if outcome.delivery == "started" and pending:
            asked = self._next_wait_key(project, key, max(wait_seconds, START_SECONDS))
            if asked is None:
                return Turn(
                    delivery="started",
                    note=for_agent(
                        f"{outcome.note} It did not ask for '{action}' in time: call it again."
                    ),
                    now=for_agent(current_composer(self.config, project).note),
                )
            since, key = len(read_thread(project.dir)), asked
            outcome = self._take(project, answer, [], None)  # a saved edit is the draft now
        turn = Turn(delivery=outcome.delivery, note=for_agent(outcome.note), now="")
        replied = outcome.delivery in ("handed_over", "applied") or (
            action == "revise" and outcome.delivery == "started"
        )
        if wait_seconds > 0 and replied:
            turn.reply_complete = await_reply(
                project,
                since,
                key,
                wait_seconds,
                lambda reply: turn.replies.append(message_of(reply)),
            )
        turn.now = for_agent(current_composer(self.config, project).note)
        return turn

    def _take(
        self,
        project: Project,
        answer: Answer,
        pending: list[dict[str, Any]],
        edit: DraftEdit | None,
    ) -> Outcome:
        """The page's `take_answer` (or `take_edit`), starting a run (on the deployment, else
        the CLI's) without handing it the answer: `pending` gets what was to be handed over."""

        def start(config: Config, config_file: Path, project: Project, then: Any) -> Started:
            if then is not None:
                pending.append(then)
            return start_project_run(config, config_file, project)

        if edit is not None:
            return take_edit(self.config, self.config_file, project, edit, start=start)
        return take_answer(self.config, self.config_file, project, answer, start=start)

    def decide(
        self,
        project_id: str,
        decision: Decision,
        confirm_terminate: bool,
        message: str,
        wait_seconds: float,
        budget_usd: float | None = None,
    ) -> Turn:
        if decision == "terminate" and not confirm_terminate:
            raise ThoughtForgeError(
                f"terminate stops {project_id} for good and cannot be undone: call again with "
                "confirm_terminate set to true to do it"
            )
        return self.answer(project_id, decision, message, wait_seconds, budget_usd=budget_usd)

    # --- spend and the draft --------------------------------------------------------------------

    def spend(
        self, project_id: str, budget_usd: float | None, budget_tokens: int | None
    ) -> dict[str, Any]:
        """What the project spent and may spend; with a budget, its own budget set first (as
        `thoughtforge budget ID --usd N` sets it)."""
        project = self.project(project_id)
        warning = None
        if budget_usd is not None or budget_tokens is not None:
            summary, warning = change_budget(self.config, project, budget_usd, budget_tokens)
        else:
            summary = spend_of(self.config, project)
        return _spend_answer(summary, warning)

    def question(self, project_id: str) -> str:
        """What the project asks the person now, for the host to show them: the note (what it
        waits for, the halt and what to do about it) and the draft to confirm, if any; a
        refusal when it asks nothing of the person."""
        project = self.project(project_id)
        composer = current_composer(self.config, project)
        asked = {action.name for action in composer.actions} & PERSON_ACTIONS
        if not asked:
            raise ThoughtForgeError(
                f"{project_id} asks nothing of the person now. {for_agent(composer.note)}"
            )
        question = f"{project_id}: {for_agent(composer.note)}"
        if "confirm" in asked:
            with contextlib.suppress(ThoughtForgeError):
                question += f"\n\n{current_draft(project).text}"
        return question

    def take_person_answer(
        self, project_id: str, answer: PersonAnswer, wait_seconds: float
    ) -> Turn:
        """The person's answer from the host's form, taken as the page takes that button."""
        if answer.action == "correct":
            return self.answer(project_id, "send", answer.message, wait_seconds)
        if answer.action == "confirm":
            return self.answer(project_id, "confirm", "", wait_seconds)
        return self.decide(project_id, answer.action, True, answer.message, wait_seconds)

    def read_draft(self, project_id: str) -> dict[str, str]:
        draft = current_draft(self.project(project_id))
        return {"kind": draft.kind, "version": draft.version, "text": draft.text}

    def edit_draft(
        self, project_id: str, text: str, version: str, confirm: bool, wait_seconds: float
    ) -> Turn:
        edit = DraftEdit(text=text, version=version, confirm=confirm)
        return self.answer(project_id, "confirm", "", wait_seconds, edit=edit)

    # --- after done: history and rollback ------------------------------------------------------

    def history(self, project_id: str) -> list[dict[str, Any]]:
        """Every commit, oldest first; `name` is what `rollback` takes (or the commit id)."""
        project = self.project(project_id)
        return [
            {
                "name": item.name,
                "commit": item.short,
                "revision": item.revision,
                "time": f"{item.when:%Y-%m-%d %H:%M} UTC",
                "what": item.what,
            }
            for item in project_history(project.dir)
        ]

    def rollback(self, project_id: str, to: str, keep_edits: bool = False) -> dict[str, str]:
        restored = restore(self.project(project_id), to, keep_edits=keep_edits)
        return {"restored": restored.label, "phase": restored.phase.value, "note": restored.note}

    # --- what the project made ------------------------------------------------------------------

    def read_document(self, project_id: str, document: str) -> str:
        """A project's deliverable, spec, constraints, polish log or traceability, never through
        a link."""
        project = self.project(project_id)
        if document == "deliverable":
            return self._deliverable(project)
        if document not in DOCUMENTS:
            raise ThoughtForgeError(
                f"no document '{document}': deliverable, {', '.join(DOCUMENTS)}"
            )
        path = project.dir / DOCUMENTS[document]
        if not path.exists():
            raise ThoughtForgeError(
                f"{project.id} has no {document} yet ({project.status().phase})"
            )
        return _capped(read_own_text(path))

    def read_polish_record(self, project_id: str) -> dict[str, Any]:
        record = read_polish_record(self.project(project_id).dir)
        return {
            "trajectory": [entry.model_dump(mode="json") for entry in record.trajectory],
            "iterations": [
                {"title": entry.title, "verdict": entry.verdict, **entry.parts}
                for entry in record.log
            ],
            "problems": record.problems,
        }

    # --- helpers ---------------------------------------------------------------------------------

    def _deliverable(self, project: Project) -> str:
        status = project.status()
        plugin = plugin_for(self.config, status.deliverable_type)
        path = plugin.deliverable_path(project.dir)
        if plugin.builds_files:
            return (
                f"{project.id} builds code: its deliverable is the project's files in {path} "
                f"(phase {status.phase})."
            )
        if not path.exists():
            raise ThoughtForgeError(f"{project.id} has no deliverable yet ({status.phase})")
        return _capped(read_own_text(path))

    def _resource(self, path: Path) -> DroppedFile:
        """A file given as a resource: a regular file (no link) within the size cap."""
        refuse_links(path)
        data = read_capped(path, self.config.resources.max_file_bytes, "resource")
        return DroppedFile(name=path.name, data=data)

    def _until_possible(self, project: Project, action: str, seconds: float) -> None:
        """A run that works (or was just started) is given `seconds` to ask for `action`, as the
        CLI gives a busy run time; then the page's refusal stands."""
        deadline = time.monotonic() + seconds
        while action not in ("send", "start") and time.monotonic() < deadline:
            if current_composer(self.config, project).allows(action):
                return
            if current_wait(project.dir) is not None:
                return  # a run asks, and not for this: it is refused at once
            if not (run_busy(self.config, project) or started_run_alive(self.config_file, project)):
                return
            time.sleep(POLL_SECONDS)

    def _next_wait_key(self, project: Project, answered: str | None, seconds: float) -> str | None:
        """The key of the question a newly started run asks (any wait but `answered`, which a
        run that died left), or None when it asks nothing within `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            waiting = current_wait(project.dir)
            if waiting is not None and waiting.key != answered:
                return waiting.key
            if project.status().phase in (Phase.DONE, Phase.HALTED):
                return None
            time.sleep(POLL_SECONDS)
        return None


def _in_agent_words(entry: dict[str, Any]) -> dict[str, Any]:
    """An inbox entry with its waits-for text naming tools, not the page's buttons."""
    if isinstance(entry.get("waits_for"), str):
        entry["waits_for"] = for_agent(entry["waits_for"])
    return entry


def _spend_answer(summary: SpendSummary, warning: str | None) -> dict[str, Any]:
    if summary.error is not None:
        raise ThoughtForgeError(summary.error)
    answer: dict[str, Any] = {
        "spent": summary.line,
        "spent_usd": summary.total.usd,
        "spent_tokens": summary.total.tokens,
        "budget_usd": summary.budget.max_usd,
        "budget_tokens": summary.budget.max_tokens,
        "budget_from": "the project's own" if summary.own_budget else "config.yaml (budget)",
        "breakdown": dict(summary.breakdown()),
    }
    if warning:
        answer["warning"] = warning
    return answer


def _capped(text: str) -> str:
    if len(text) <= MAX_DOCUMENT_CHARS:
        return text
    return text[:MAX_DOCUMENT_CHARS] + f"\n\n[cut at {MAX_DOCUMENT_CHARS:,} characters]"
