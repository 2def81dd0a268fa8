"""Every door is held to the catalogue: each action the page offers, each CLI verb and each MCP
tool that changes a project is one row of it, under the row's own name, label and options (the
commands and tools made from a row carry its words), each action a door hands over is carried
out by the function its row names; and a halt takes the same decisions at the page, the CLI's
`Next:` line and the run's form."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args

import pytest

from thoughtforge.actions.answering import handler_of
from thoughtforge.actions.composer import composer_for
from thoughtforge.catalogue import ACTIONS, FORM_ACTIONS, STEP_ACTIONS, halt_form
from thoughtforge.cli import HELP_PANELS, app
from thoughtforge.cli.next_steps import after_halt
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import Status, write_status
from thoughtforge.core.waiting import Waiting
from thoughtforge.errors import TransitionError
from thoughtforge.mcp_server.tool_hints import HINTS
from thoughtforge.mcp_server.tool_table import TOOLS
from thoughtforge.mcp_server.tool_types import PersonAnswer, ToDecide
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import human_decisions

NOW = datetime(2026, 12, 7, tzinfo=UTC)
TEMPLATES = Path(__file__).parents[1] / "thoughtforge" / "web" / "templates"

READING = {name for name, hints in HINTS.items() if hints.read_only_hint}
UNDOING = {name for name, hints in HINTS.items() if hints.destructive_hint}
EDIT_CONFIRMS = {"edit_draft": {"confirm"}}
"""An edited draft is handed over as the Confirm it may carry (`DraftEdit.confirm`)."""
CLI_READS = {"history", "chat"}
"""Commands of the answer and after-done panels that change nothing."""
CLI_SETTINGS = {"agent"}
"""A command that sets what a decision goes on with (the page sends it with the decision)."""
MCP_RELAYS = {"ask_person"}
"""A tool that has the host ask the person, then takes one of the rows' actions for them."""


def _halted(reason: HaltReason, origin: Phase | None) -> Status:
    return Status(
        phase=Phase.HALTED,
        agent="demo",
        created_at=NOW,
        updated_at=NOW,
        halt_reason=reason,
        halted_from=origin,
    )


def _sent_actions(function: Callable[..., Any]) -> set[str]:
    """The catalogue's actions a door's function names in its body (the action it sends)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ACTIONS
    }


@pytest.mark.parametrize("origin", [None, *(p for p in Phase if p is not Phase.HALTED)])
@pytest.mark.parametrize("reason", [r for r in HaltReason if r is not HaltReason.HUMAN_TERMINATED])
def test_a_halt_takes_the_same_decisions_at_every_door(
    reason: HaltReason, origin: Phase | None
) -> None:
    status = _halted(reason, origin)
    page = tuple(a.name for a in composer_for(status, None, run_busy=False).actions)
    decisions = tuple(name for name in page if name != "revise")
    form = halt_form(reason, origin)
    assert FORM_ACTIONS[form] == decisions  # the run asks what the page offers
    wait = Waiting(key="k", kind=form, phase=Phase.HALTED, chat_length=1, since=NOW)
    assert tuple(a.name for a in composer_for(status, wait, run_busy=False).actions) == decisions
    verbs = list(dict.fromkeys(ACTIONS[name].cli_verb for name in decisions))
    assert (
        after_halt("p1", status.halt_reason, status.halted_from)
        == f"Next: thoughtforge {'|'.join(verbs)} p1"
    )


def test_a_halt_recorded_without_its_origin_offers_no_override_at_any_door(
    config: Config,
) -> None:
    """Before, the page offered Resume and Terminate while the CLI suggested `override` too,
    which the page's check then refused, and the files took it: the deliverable of a phase
    nobody knew was accepted as done."""
    project = create_project(config, brain_dump="A wedding for 60 guests.")
    halted = project.status().model_copy(
        update={"phase": Phase.HALTED, "halt_reason": HaltReason.AGENT_FAILURE}
    )
    write_status(project.dir, halted)
    assert project.status().halted_from is None
    page = [a.name for a in composer_for(project.status(), None, run_busy=False).actions]
    assert page == ["resume", "terminate"]
    assert after_halt(project.id, None, None) == (
        f"Next: thoughtforge resume|terminate {project.id}"
    )
    with pytest.raises(TransitionError):
        human_decisions.apply(project, "override")
    assert project.status().phase is Phase.HALTED


def test_every_cli_verb_that_changes_a_project_is_a_row_and_sends_its_own_action() -> None:
    commands = {
        c.name or c.callback.__name__: c.callback for c in app.registered_commands if c.callback
    }
    assert {action.cli_verb for action in ACTIONS.values()} <= commands.keys()
    panels = {*HELP_PANELS["Answer a project"], *HELP_PANELS["After done"], "new", "continue"}
    acting = panels - CLI_READS - CLI_SETTINGS
    assert acting == {action.cli_verb for action in ACTIONS.values()}
    for verb in acting:
        callback = commands[verb]
        assert callback is not None
        for name in _sent_actions(callback):
            assert ACTIONS[name].cli_verb == verb, (verb, name)


def test_every_mcp_tool_that_changes_a_project_is_a_row_and_sends_its_own_action() -> None:
    tools = {tool.__name__: tool for tool in TOOLS}
    assert {action.mcp_tool for action in ACTIONS.values()} <= tools.keys()
    assert tools.keys() - READING - MCP_RELAYS == {a.mcp_tool for a in ACTIONS.values()}
    for name, tool in tools.items():
        for action in _sent_actions(tool) - EDIT_CONFIRMS.get(name, set()):
            assert ACTIONS[action].mcp_tool == name, (name, action)
    decided = get_args(get_args(ToDecide)[0])
    assert {ACTIONS[d].mcp_call for d in decided} == {
        a.mcp_call for a in ACTIONS.values() if a.mcp_tool == "decide"
    }
    relayed = {
        "send" if a == "correct" else a
        for a in get_args(PersonAnswer.model_fields["action"].annotation)
    }
    assert relayed <= ACTIONS.keys()


def test_every_action_a_door_hands_over_is_carried_out_by_the_function_its_row_names() -> None:
    """Whatever the composer can offer is taken by `take_answer`, through the handler its row
    names in `actions/` (the dispatch is that table, not a chain of names)."""
    offered = {name for takes in (*FORM_ACTIONS.values(), *STEP_ACTIONS.values()) for name in takes}
    assert offered == {name for name, action in ACTIONS.items() if action.handler}
    for name in offered:
        handler = handler_of(name)
        assert handler.__module__.startswith("thoughtforge.actions."), name
        assert list(inspect.signature(handler).parameters)[-1] == "view", name


def test_a_made_command_and_tool_are_their_rows() -> None:
    """The commands and tools made from a row (`cli`, `mcp`) carry its words: help, the
    argument it takes, its option; the description, the words' parameter, the wait."""
    commands = {c.name or c.callback.__name__: c for c in app.registered_commands if c.callback}
    tools = {tool.__name__: tool for tool in TOOLS}
    for action in ACTIONS.values():
        if action.cli is not None:
            command = commands[action.cli_verb]
            assert command.help == action.cli.help, action.name
            shown = inspect.signature(command.callback).parameters  # type: ignore[arg-type]
            assert ("message" in shown) == (action.cli.words is not None) == action.needs_message
            option = {"wait", "auto_confirm"} & shown.keys()
            assert option == ({action.cli.option} if action.cli.option else set()), action.name
        if action.mcp is not None:
            tool = tools[action.mcp_tool]
            assert tool.__doc__ == action.mcp.description, action.name
            shown = inspect.signature(tool).parameters
            assert (action.mcp.words_name in shown) == (action.mcp.words is not None)
            wait = shown.get("wait_seconds")
            assert (wait.default if wait else None) == action.mcp.wait_seconds, action.name
            assert (action.mcp_tool in UNDOING) == action.mcp.undoes, action.name


def test_an_action_that_needs_words_takes_them_at_every_door() -> None:
    """The page refuses it without a message; the CLI's verb takes the words (as an argument, or
    from a file), and the MCP tool requires them."""
    commands = {
        c.name or c.callback.__name__: c.callback for c in app.registered_commands if c.callback
    }
    tools = {tool.__name__: tool for tool in TOOLS}
    for action in ACTIONS.values():
        if not action.needs_message:
            continue
        cli = inspect.signature(commands[action.cli_verb])  # type: ignore[arg-type]
        mcp = inspect.signature(tools[action.mcp_tool])
        assert {"message", "change"} & cli.parameters.keys(), action.name
        assert any(
            p.name not in ("tools", "project_id") and p.default is p.empty
            for p in mcp.parameters.values()
        ), action.name


def test_a_destructive_action_is_confirmed_on_the_page_and_hinted_to_an_mcp_host() -> None:
    composer = (TEMPLATES / "actions.html").read_text(encoding="utf-8")
    assert "if a.danger" in composer and "data-danger" in composer
    for action in ACTIONS.values():
        if action.danger:
            assert action.mcp_tool in UNDOING, action.name


def test_every_label_is_a_button_on_the_page() -> None:
    """The composer's buttons are the rows' labels; the rest are buttons of their own."""
    composer = (TEMPLATES / "actions.html").read_text(encoding="utf-8")
    assert composer.count("{{ a.label }}") == 2  # the actions, and the destructive ones apart
    pages = "".join(p.read_text(encoding="utf-8") for p in TEMPLATES.glob("*.html"))
    offered = {name for takes in (*FORM_ACTIONS.values(), *STEP_ACTIONS.values()) for name in takes}
    for action in ACTIONS.values():
        if action.name not in offered:
            assert f">{action.label}<" in pages or f">{action.label} <kbd>" in pages, action.label


def test_every_button_a_note_says_to_press_is_a_label() -> None:
    """Before, a page with no server said to press "Start the run here", a button the page
    does not have (it is "Start the run"), and MCP's words for it were a copy of their own."""
    package = Path(__file__).parents[1] / "thoughtforge"
    pressed = {
        match
        for path in package.rglob("*.py")
        for match in re.findall(
            r"\bpress ([A-Z][\w ,]*?)(?= \(| or | then |[.:;,]|$)", path.read_text("utf-8")
        )
    }
    assert pressed and pressed <= {action.label for action in ACTIONS.values()}
