"""What every MCP tool is handed (`tool_table.TOOLS`): the config file (followed as it changes),
a project by its id, and how a tool answers a project as the person would: a chat turn, a
confirm, a decision, an edited draft, or the person's own answer through the host
(`ask_person`), each taken as the page takes it (`actions.answering`, `actions.draft`), then the
AI's reply when it comes within `wait_seconds` (what `--wait` prints in the CLI). Made at the
first tool call: it loads the pipeline's actions, which listing the tools does not need.

A revision starts its own run, whose revised proposal is the reply; an answer no run waits for
starts one and is handed over once that run asks for it.
"""

from __future__ import annotations

import contextlib
import time

from thoughtforge.actions.answering import Answer, Outcome, take_answer
from thoughtforge.actions.draft import DraftEdit, draft_to_edit, take_edit
from thoughtforge.actions.process_run import started_run_alive, starting_without_handing
from thoughtforge.actions.project_page import Project, ProjectView
from thoughtforge.actions.replying import ReplyPoint, await_reply, next_question
from thoughtforge.actions.run_state import composer_of, current_composer, project_view
from thoughtforge.actions.thread import ThreadMessage, project_thread
from thoughtforge.catalogue import HaltChoice, RunAnswer
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.agent_words import for_agent
from thoughtforge.mcp_server.tool_base import ToolBase
from thoughtforge.mcp_server.tool_types import Message, PersonAnswer, Turn

POLL_SECONDS = 0.25
START_SECONDS = 60.0
"""How long a run started for an answer is given to ask for it (a cold start takes seconds)."""
PERSON_ACTIONS = {"confirm", "resume", "override", "terminate"}
"""The answers `ask_person` asks the person for: a draft's confirmation, a halt's decision."""


def message_of(message: ThreadMessage) -> Message:
    return Message(
        role=message.role,
        phase=message.phase_label,
        time=f"{message.timestamp:%Y-%m-%d %H:%M} UTC",
        content=message.content,
    )


class Tools(ToolBase):
    """The tools' config and projects, and their one way to answer a project."""

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
        proposal is the reply; it is not waited for, as a run that works on the project is
        refused at once. What the project takes now is told from the view the action left
        when it says it (a revision's: its one read, under its claim, with what it wrote), and
        read again otherwise, or once a reply was awaited."""
        project = self.project(project_id)
        view = None  # a revision reads the view under its claim, and only there
        if action != "revise":
            view = self._until_possible(project, "confirm" if edit else action, wait_seconds)
        since, answered = len(project_thread(project)), view.waiting if view else None
        pending: list[RunAnswer] = []
        answer = Answer(action=action, message=message, budget_usd=budget_usd)
        outcome = self._take(project, answer, pending, edit, view)
        key = answered.key if answered else None
        if outcome.delivery == "started" and pending:
            asked = next_question(project, key, max(wait_seconds, START_SECONDS))
            if asked is None:
                return Turn(
                    delivery="started",
                    note=for_agent(
                        f"{outcome.note} It did not ask for '{action}' in time: call it again."
                    ),
                    now=for_agent(current_composer(self.config, project).note),
                )
            since, key = len(project_thread(project)), asked
            outcome = self._take(project, answer, [], None, None)  # a saved edit is the draft now
        turn = Turn(delivery=outcome.delivery, note=for_agent(outcome.note), now="")
        replied = outcome.delivery in ("handed_over", "applied") or (
            action == "revise" and outcome.delivery == "started"
        )
        after = outcome.view  # the view after the action, when it knows it (a revision)
        if wait_seconds > 0 and replied:
            turn.reply_complete = await_reply(
                project,
                ReplyPoint(since=since, answered_key=key),
                wait_seconds,
                lambda reply: turn.replies.append(message_of(reply)),
            )
            after = None  # the run moved the project while its reply was awaited
        if after is None:
            after = project_view(self.config, project)
        turn.now = for_agent(composer_of(after).note)
        return turn

    def _take(
        self,
        project: Project,
        answer: Answer,
        pending: list[RunAnswer],
        edit: DraftEdit | None,
        view: ProjectView | None,
    ) -> Outcome:
        """The page's `take_answer` (or `take_edit`), starting a run (on the deployment, else
        the CLI's) without handing it the answer: `pending` gets what was to be handed over;
        `view`, the project's view this call read, if it is still the project's."""
        start = starting_without_handing(pending)
        if edit is not None:
            return take_edit(self.config, self.config_file, project, edit, start=start, view=view)
        return take_answer(self.config, self.config_file, project, answer, start=start, view=view)

    def decide(
        self,
        project_id: str,
        decision: HaltChoice,
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
                question += f"\n\n{draft_to_edit(project).text}"
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

    def _until_possible(self, project: Project, action: str, seconds: float) -> ProjectView:
        """A run that works (or was just started) is given `seconds` to ask for `action`, as the
        CLI gives a busy run time; then the page's refusal stands. The project's view as last
        read: one read when nothing is to be waited for."""
        deadline = time.monotonic() + seconds
        while True:
            view = project_view(self.config, project)
            if action in ("send", "start") or time.monotonic() >= deadline:
                return view
            if composer_of(view).allows(action):
                return view
            if view.waiting is not None:
                return view  # a run asks, and not for this: it is refused at once
            if not (view.busy or started_run_alive(self.config_file, project)):
                return view
            time.sleep(POLL_SECONDS)
