"""The new-project form's choices as the page offers them: each deliverable type by its label,
the default agent only when it can run, the config's budget in words."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import AGENTS_DIR, REPO_ROOT
from thoughtforge.actions.new_project_form import new_project_form
from thoughtforge.config import load_config


def test_the_form_offers_every_type_by_its_label_the_default_type_first(
    write_config: Callable[..., Path],
) -> None:
    plugins = REPO_ROOT / "examples" / "plugins"
    form = new_project_form(load_config(write_config(plugins={"directory": str(plugins)})))
    assert list(form.types.items()) == [
        ("plan", "Plan"),
        ("code", "Code"),
        ("checklist", "Checklist"),
    ]


def test_an_agent_that_cannot_run_is_not_the_default_and_is_listed_last(
    write_config: Callable[..., Path],
) -> None:
    agents = {
        "default": "ghost",
        "available": {
            "ghost": {"command": "/nonexistent/ghost-agent"},
            "recorder": {"command": str(AGENTS_DIR / "record_stdin.py")},
        },
    }
    form = new_project_form(load_config(write_config(agents=agents, budget={"max_usd": 5})))
    assert [(a.name, a.usable) for a in form.agents] == [("recorder", True), ("ghost", False)]
    assert form.default_agent == "recorder"
    assert form.default_budget == "$5.00 (the config's budget)"
