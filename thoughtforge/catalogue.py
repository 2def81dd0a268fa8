"""The catalogue: what a person can do to a project, and what each halt takes. Each door reads
its column: the page an action's label (and whether it is destructive, so confirmed), the CLI its
verb, the MCP server its tool and the words naming it to an agent; the flows the forms a run
waits with, and the decisions a halt message lists; `take_answer` the function that carries an
action out (`handler`). Where a row has them (`cli`, `mcp`), its command and tool are made from
it. So a new action is its row, its implementation in `actions/`, its test, and a button in a
page template if the composer does not offer it; `tests/test_catalogue.py` holds every door to it.

The invariant: a halt takes the same decisions at every door. The page's buttons, the CLI's
`Next:` line, the form the run waits with and `phases.human_decisions` all read `halt_decisions`,
so no door offers what another refuses.
"""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from pydantic import BaseModel, ConfigDict

from thoughtforge.door_entries import CliCommand, McpTool
from thoughtforge.models import HaltReason, Phase

# fmt: off
ActionName = Literal[
    "send", "distill", "realign", "confirm", "accept_unresolved", "resume", "override",
    "provide_input", "start", "revise", "terminate", "archive", "unarchive", "edit_draft",
    "rollback", "set_budget", "new",
]
# fmt: on
Decision = Literal["resume", "override", "terminate", "provide_input"]
"""What a halt (or a stuck build) is answered with."""
HaltChoice = Literal["resume", "override", "terminate"]
"""A decision that takes no words (`provide_input`'s are the input itself)."""


class PersonAction(BaseModel):
    """One thing a person can do to a project, as each door names it."""

    model_config = ConfigDict(frozen=True)

    name: ActionName
    label: str
    """The page's button, and the word the notes say to press."""
    cli_verb: str
    """The `thoughtforge` command that does it (`start` is `polish` in Phase 4)."""
    mcp_tool: str
    mcp_argument: str = ""
    """The argument that makes `mcp_tool` do this action, where the tool does several."""
    needs_message: bool = False
    """Refused without text (Send, Provide input, Revise)."""
    danger: bool = False
    """Destructive: shown apart, in red, and confirmed before it is sent."""
    shortcut: str | None = None
    """The key that presses it from the message box (Enter is Send's, and Provide input's)."""
    handler: str | None = None
    """What `actions.answering.take_answer` calls for it (`module:function` in `actions/`)."""
    cli: CliCommand | None = None
    """Its command made from this row; None: `cli_verb` is hand-written (so `mcp`, `mcp_tool`)."""
    mcp: McpTool | None = None

    @property
    def mcp_call(self) -> str:
        """The tool in an agent's words: "decide (resume)"."""
        return f"{self.mcp_tool} ({self.mcp_argument})" if self.mcp_argument else self.mcp_tool


_CHAT = "answering:chat_turn"
_DECISION = "answering:take_decision"
_SAY = "What to say, as the person would say it."

ACTIONS: dict[str, PersonAction] = {
    action.name: action
    for action in (
        PersonAction(
            name="send",
            label="Send",
            cli_verb="say",
            mcp_tool="send_message",
            needs_message=True,
            handler=_CHAT,
            cli=CliCommand(
                help="Send a chat message; kept for the AI's next call (in Phases 3–4, the next "
                "build step or polish iteration) when no run is waiting.",
                words="Your message (a correction, an answer, more input); - reads it from "
                "standard input.",
                option="wait",
            ),
            mcp=McpTool(
                description="Say something to the project: an answer, a correction, more of the "
                "brain dump. In Phases 3-4 it is guidance read at the next build step or polish "
                "iteration.",
                words=_SAY,
                wait_seconds=120,
            ),
        ),
        PersonAction(
            name="distill",
            label="Distill",
            cli_verb="distill",
            mcp_tool="distill",
            shortcut="Ctrl+Enter",
            handler=_CHAT,
            cli=CliCommand(help="Phase 1: all inputs are in, distil them.", option="wait"),
            mcp=McpTool(
                description="Phase 1: everything is said; distil it into the intent for review. "
                "Returns the distillation: confirm it, correct it with send_message, or edit it "
                "(read_draft, edit_draft).",
                wait_seconds=120,
            ),
        ),
        PersonAction(
            name="realign",
            label="Realign",
            cli_verb="realign",
            mcp_tool="realign",
            handler=_CHAT,
            cli=CliCommand(
                help="Phase 1: drop the messages after your last real correction and distil again.",
                option="wait",
            ),
            mcp=McpTool(
                description="Phase 1: drop the messages after the last real correction and "
                "distil again.",
                wait_seconds=120,
                undoes=True,
            ),
        ),
        PersonAction(
            name="confirm",
            label="Confirm",
            cli_verb="confirm",
            mcp_tool="confirm",
            shortcut="Ctrl+Enter",
            handler=_CHAT,
        ),
        PersonAction(
            name="accept_unresolved",
            label="Confirm, open items unresolved",
            cli_verb="confirm",
            mcp_tool="confirm",
            mcp_argument="accept_unresolved",
            handler=_CHAT,
        ),
        PersonAction(
            name="resume",
            label="Resume",
            cli_verb="resume",
            mcp_tool="decide",
            mcp_argument="resume",
            shortcut="Ctrl+Enter",
            handler=_DECISION,
            cli=CliCommand(
                help="Continue a halted project where it stopped; it waits for you at each human "
                "step unless --auto-confirm, which goes on through them, whatever phase the halt "
                "was in.",
                option="auto_confirm",
            ),
        ),
        PersonAction(
            name="override",
            label="Override",
            cli_verb="override",
            mcp_tool="decide",
            mcp_argument="override",
            handler=_DECISION,
            cli=CliCommand(
                help="Accept a halted polish loop's deliverable as it is (the project is done), "
                "or build from a plan the completeness gate refused (plan_incomplete)."
            ),
        ),
        PersonAction(
            name="provide_input",
            label="Provide input",
            cli_verb="answer",
            mcp_tool="provide_input",
            needs_message=True,
            handler=_DECISION,
            mcp=McpTool(
                description="Phase 3: give a stuck build the input it asked for.",
                words=_SAY,
                wait_seconds=30,
            ),
        ),
        PersonAction(
            name="start",
            label="Start the run",
            cli_verb="continue",
            mcp_tool="continue_project",
            shortcut="Ctrl+Enter",
            handler="answering:take_start",
            mcp=McpTool(
                description="Start a run of a project nothing works on, from where its files say "
                "it stopped."
            ),
        ),
        PersonAction(
            name="revise",
            label="Revise",
            cli_verb="revise",
            mcp_tool="revise",
            needs_message=True,
            handler="answering:take_revision",
            mcp=McpTool(
                description="Ask for a change to a done (or halted) project: back to Phase 2 with "
                "its current spec and this change request. Returns the revised spec proposal: "
                "confirm it as usual, then only what the change touches is rebuilt and polished "
                "(revision 2, 3, ...).",
                words="What should change in the deliverable, in the person's words.",
                words_name="change",
                wait_seconds=120,
            ),
        ),
        PersonAction(
            name="terminate",
            label="Terminate",
            cli_verb="terminate",
            mcp_tool="decide",
            mcp_argument="terminate",
            danger=True,
            handler=_DECISION,
            cli=CliCommand(
                help="Stop a project for good, at any step (halted, or waiting for you)."
            ),
        ),
        PersonAction(
            name="archive", label="Archive", cli_verb="archive", mcp_tool="archive_project"
        ),
        PersonAction(
            name="unarchive", label="Unarchive", cli_verb="unarchive", mcp_tool="unarchive_project"
        ),
        PersonAction(name="edit_draft", label="Edit", cli_verb="edit", mcp_tool="edit_draft"),
        PersonAction(
            name="rollback", label="Restore this version", cli_verb="rollback", mcp_tool="rollback"
        ),
        PersonAction(name="set_budget", label="Set budget", cli_verb="budget", mcp_tool="spend"),
        PersonAction(
            name="new", label="Create and start", cli_verb="new", mcp_tool="create_project"
        ),
    )
}
"""Every person-action, by name. The composer offers those of a project's step (`send` to
`terminate`) under the message box; the rest have buttons of their own on the page."""

FORM_ACTIONS: dict[str, tuple[ActionName, ...]] = {
    "IntakeTurn": ("send", "distill", "terminate"),
    "ReviewTurn": ("send", "realign", "confirm", "terminate"),
    "SpecTurn": ("send", "confirm", "accept_unresolved", "terminate"),
    "HaltDecision": ("resume", "terminate"),
    "PolishHaltDecision": ("resume", "override", "terminate"),
    "PlanGateDecision": ("override", "terminate"),
    "StuckDecision": ("provide_input", "terminate"),
}
"""Each form a run waits with (`flows.human_input`, by class name, as `core.Waiting.kind`
records it), and the actions it takes."""

STEP_ACTIONS: dict[str, tuple[ActionName, ...]] = {
    "done": ("revise",),
    "working": ("send",),
    "idle": ("send", "start"),
}
"""Offered where no form asks (a halt takes `halt_decisions`): done, a run at work or due, none."""

CHAT_ACTIONS = frozenset(
    name for form in ("IntakeTurn", "ReviewTurn", "SpecTurn") for name in FORM_ACTIONS[form]
) - {"terminate"}
"""Actions of Phases 1–2, answered through the chat (the rest decide a halt)."""


def is_decision(name: str) -> TypeGuard[Decision]:
    """Whether the action `name` answers a halt or a stuck build."""
    return name in get_args(Decision)


AGENT_SWITCH_ACTIONS = frozenset(get_args(Decision)) - {"terminate"}
"""Decisions after which the next agent call may be another agent's (a halt, a stuck build)."""

_DECISIONS_BY_REASON: dict[HaltReason, tuple[Decision, ...]] = {
    HaltReason.HUMAN_TERMINATED: (),
    # the build asks the person for what it lacks
    HaltReason.STUCK: ("provide_input", "terminate"),
    HaltReason.BUILD_INCOMPLETE: ("provide_input", "terminate"),
    # resuming would ask the Plan Completeness Gate the same question: build from it, or stop
    HaltReason.PLAN_INCOMPLETE: ("override", "terminate"),
}
_DECISIONS_BY_ORIGIN: dict[Phase, tuple[Decision, ...]] = {
    # override accepts the polish loop's deliverable as it is
    Phase.POLISHING: ("resume", "override", "terminate"),
}
_OTHERWISE: tuple[Decision, ...] = ("resume", "terminate")
"""A halt from any other phase, or one recorded without its origin: an override would accept a
deliverable nobody knows was polished."""


def halt_decisions(reason: HaltReason | None, halted_from: Phase | None) -> tuple[Decision, ...]:
    """The decisions a project halted for `reason` in `halted_from` takes, in the order the doors
    list them; none once terminated."""
    if reason in _DECISIONS_BY_REASON:
        return _DECISIONS_BY_REASON[reason]
    if halted_from in _DECISIONS_BY_ORIGIN:
        return _DECISIONS_BY_ORIGIN[halted_from]
    return _OTHERWISE


def halt_form(reason: HaltReason | None, halted_from: Phase | None) -> str:
    """The form a run waits with for this halt's decision (a name in `FORM_ACTIONS`)."""
    decisions = halt_decisions(reason, halted_from)
    return next(form for form, takes in FORM_ACTIONS.items() if takes == decisions)


def cli_verbs(actions: tuple[str, ...]) -> str:
    """The `thoughtforge` verbs that do `actions`, as hints name them: "resume|terminate"."""
    return "|".join(dict.fromkeys(ACTIONS[name].cli_verb for name in actions))


def halt_options(reason: HaltReason, halted_from: Phase) -> str:
    """The decisions as a halt message lists them: "resume, override, terminate"."""
    return ", ".join(ACTIONS[name].label.lower() for name in halt_decisions(reason, halted_from))


DECISION_HALTS = frozenset(
    {
        *(r for r in _DECISIONS_BY_REASON if r is not HaltReason.HUMAN_TERMINATED),
        HaltReason.SPEC_INCOMPLETE,
        HaltReason.BUDGET_EXHAUSTED,
    }
)
"""Halts that wait for the person's decision or words, not for a cause to be fixed: they are
notified as `human_needed`, as is every halt of Phases 1–2 (the person is in that loop)."""


def halt_label(reason: str | None) -> str:
    """`agent_failure` → "agent failure" (for every reason, those added later too)."""
    return (reason or "no reason recorded").replace("_", " ")


class RunAnswer(BaseModel):
    """An answer handed to the run that waits for it: the form's fields (`FORM_ACTIONS`), as a
    door sends them through Prefect's API (`stack.api.PrefectApi.resume`)."""

    model_config = ConfigDict(frozen=True)

    action: ActionName
    message: str | None = None
    """A chat turn's words ("" for none), or `provide_input`'s; a decision sends none."""

    def run_input(self) -> dict[str, str]:
        """The input as Prefect takes it: only the fields the form has."""
        return self.model_dump(exclude_none=True)
