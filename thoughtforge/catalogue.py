"""The catalogue: what a person can do to a project, and what each halt takes. Each door reads
its column of it: the page an action's label (and whether it is destructive, so confirmed), the
CLI its verb, the MCP server its tool and the words that name it to an agent; the flows the
forms a run waits with, and the decisions a halt message lists. So every door's words for an
action are its row here; what remains a door's own is its entry point (a CLI command, an MCP
tool, a form when a run waits for it), each held to its row by `tests/test_catalogue.py`.

The invariant: a halt takes the same decisions at every door. The page's buttons, the CLI's
`Next:` line, the form the run waits with and `phases.human_decisions` all read `halt_decisions`,
so no door offers what another refuses.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

from thoughtforge.models import HaltReason, Phase

ActionName = Literal[
    "send",
    "distill",
    "realign",
    "confirm",
    "accept_unresolved",
    "resume",
    "override",
    "provide_input",
    "start",
    "revise",
    "terminate",
    "archive",
    "unarchive",
    "edit_draft",
    "rollback",
    "set_budget",
    "new",
]
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
    """Refused without text (Send, Provide input)."""
    danger: bool = False
    """Destructive: shown apart, in red, and confirmed before it is sent."""
    shortcut: str | None = None
    """The key that presses it from the message box (Enter is Send's, and Provide input's)."""

    @property
    def mcp_call(self) -> str:
        """The tool in an agent's words: "decide (resume)"."""
        return f"{self.mcp_tool} ({self.mcp_argument})" if self.mcp_argument else self.mcp_tool


ACTIONS: dict[str, PersonAction] = {
    action.name: action
    for action in (
        PersonAction(
            name="send", label="Send", cli_verb="say", mcp_tool="send_message", needs_message=True
        ),
        PersonAction(
            name="distill",
            label="Distill",
            cli_verb="distill",
            mcp_tool="distill",
            shortcut="Ctrl+Enter",
        ),
        PersonAction(name="realign", label="Realign", cli_verb="realign", mcp_tool="realign"),
        PersonAction(
            name="confirm",
            label="Confirm",
            cli_verb="confirm",
            mcp_tool="confirm",
            shortcut="Ctrl+Enter",
        ),
        PersonAction(
            name="accept_unresolved",
            label="Confirm, open items unresolved",
            cli_verb="confirm",
            mcp_tool="confirm",
            mcp_argument="accept_unresolved",
        ),
        PersonAction(
            name="resume",
            label="Resume",
            cli_verb="resume",
            mcp_tool="decide",
            mcp_argument="resume",
            shortcut="Ctrl+Enter",
        ),
        PersonAction(
            name="override",
            label="Override",
            cli_verb="override",
            mcp_tool="decide",
            mcp_argument="override",
        ),
        PersonAction(
            name="provide_input",
            label="Provide input",
            cli_verb="answer",
            mcp_tool="provide_input",
            needs_message=True,
        ),
        PersonAction(
            name="start",
            label="Start the run",
            cli_verb="continue",
            mcp_tool="continue_project",
            shortcut="Ctrl+Enter",
        ),
        PersonAction(
            name="revise", label="Revise", cli_verb="revise", mcp_tool="revise", needs_message=True
        ),
        PersonAction(
            name="terminate",
            label="Terminate",
            cli_verb="terminate",
            mcp_tool="decide",
            mcp_argument="terminate",
            danger=True,
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

CHAT_ACTIONS = frozenset(
    name for form in ("IntakeTurn", "ReviewTurn", "SpecTurn") for name in FORM_ACTIONS[form]
) - {"terminate"}
"""Actions of Phases 1–2, answered through the chat (the rest decide a halt)."""

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


HALT_ADVICE: dict[HaltReason, str] = {
    HaltReason.REVIEW_MALFORMED: (
        "the reviewer's answers could not be read: resume with another reviewer agent, or "
        "override to accept the deliverable as it is"
    ),
    HaltReason.FIX_OUTPUT_INVALID: (
        "two fixes in a row were refused and undone: a fixer that answered with something other "
        "than the whole document (a diff, a fragment, a broken structure), or in code mode one "
        "that touched the locked acceptance tests or the test runner's configuration; the "
        "deliverable was kept: resume with another agent, or override"
    ),
    HaltReason.CRITERION_WITHOUT_EVIDENCE: (
        "an acceptance criterion has no evidence that holds (a plan: no passage the review "
        "quoted stands in the plan; code: no test named after it passed in ThoughtForge's own "
        "run): make the deliverable meet it yourself or tell the agent (say), then resume; or "
        "override to accept the deliverable without it"
    ),
    HaltReason.GUARD_FIX_UNCHANGED: (
        "the fixer keeps returning the deliverable unchanged: tell it what to do (say), edit "
        "the deliverable yourself, or resume with another agent; override accepts it as it is"
    ),
    HaltReason.GUARD_FIX_CIRCULAR: (
        "the fixer keeps undoing its own changes (fixes restore earlier versions): decide the "
        "disputed point yourself (say, or edit the deliverable), then resume; or override"
    ),
    HaltReason.GUARD_ISSUES_PERSIST: (
        "the same issues survive every fix: read them in the polish log, fix or dismiss them "
        "yourself (say, or edit the deliverable) and resume, or override to accept it as it is"
    ),
    HaltReason.GUARD_FIX_REGRESSION: (
        "fixes add more issues than they resolve: read the polish log, then resume, override "
        "or terminate"
    ),
    HaltReason.GUARD_HALLUCINATION: (
        "issues spiked after a steady fall: read the last review; override if it invented them"
    ),
    HaltReason.GUARD_FABRICATION: (
        "the reviewer may be manufacturing issues on a nearly finished deliverable: override if "
        "the deliverable is good"
    ),
    HaltReason.GUARD_LOW_VALUE: (
        "the last iterations resolved too little for what they cost: override to accept the "
        "deliverable, or resume to pay for more iterations"
    ),
    HaltReason.BUDGET_EXHAUSTED: (
        "the project's budget would not cover the next agent call: raise it (thoughtforge "
        "budget ID --usd N, or the workbench) and resume, or terminate (in the polish loop, "
        "override accepts the deliverable as it is)"
    ),
    HaltReason.GUARD_MAX_ITERATIONS: (
        "the iteration ceiling was reached: override to accept, or raise polish.max_iterations "
        "and resume"
    ),
}
"""What a person can do about each halt of the polish loop, in the words the board, the
workbench and the notifications show beside the reason."""


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
