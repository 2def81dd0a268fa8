"""Each wait's hint names the verbs that answer it: commands that exist, for its own actions."""

from __future__ import annotations

from typing import get_args

from thoughtforge.catalogue import ACTIONS
from thoughtforge.cli import app
from thoughtforge.core.waiting import ANSWER_VERBS
from thoughtforge.flows import human_input


def test_every_wait_hints_at_the_commands_of_its_own_actions() -> None:
    """Before, every wait suggested `say|confirm|…`, a halt decision included."""
    steps = [v for v in vars(human_input).values() if isinstance(v, human_input.HumanStep)]
    commands = {c.name or c.callback.__name__ for c in app.registered_commands if c.callback}
    assert len(steps) == len(ANSWER_VERBS)
    for step in steps:
        verbs = ANSWER_VERBS[step.form.__name__].split("|")
        assert set(verbs) <= commands, step.form.__name__
        actions = get_args(step.form.model_fields["action"].annotation)
        assert set(verbs) == {ACTIONS[a].cli_verb for a in actions}, step.form.__name__
