"""A stage says what it waits for when it begins, that it still waits while it lasts, and how it
ended: no wait over a few seconds is silent."""

from __future__ import annotations

import io
import time

import pytest
from rich.console import Console

from thoughtforge.cli import progress


def test_a_long_stage_says_it_is_still_under_way_then_how_it_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress, "STILL_EVERY", 0.05)
    said = io.StringIO()
    console = Console(file=said, width=200)
    with progress.stage("Starting the server", console, still="still starting") as step:
        time.sleep(0.18)
        step.done("ready at http://127.0.0.1:4300")
    lines = said.getvalue().splitlines()
    assert lines[0] == "Starting the server…"
    assert len([line for line in lines if line.startswith("  still starting (")]) >= 2
    assert lines[-1].startswith("  ready at http://127.0.0.1:4300 (")


def test_a_stage_that_fails_says_no_outcome_and_stops_reminding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress, "STILL_EVERY", 0.02)
    said = io.StringIO()
    with pytest.raises(RuntimeError), progress.stage("Starting", Console(file=said)):
        raise RuntimeError("no port")
    before = said.getvalue()
    time.sleep(0.08)
    assert said.getvalue() == before == "Starting…\n"
