"""An answer given while a resumed run re-enters: Prefect already calls it running, but its
process has not taken the project's lock yet (it is still importing its flow). The answer waits
for it to ask, as it does for a run that holds the lock."""

from __future__ import annotations

import pytest

from thoughtforge.actions import hand_over as hand_over_module
from thoughtforge.actions.hand_over import hand_over
from thoughtforge.catalogue import RunAnswer
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.stack import api as api_module
from thoughtforge.stack.api import PrefectApi, WaitingRun


class ReEnteringRun(PrefectApi):
    """What Prefect says of a run resumed a moment ago: running, no lock, no wait yet; then, on
    the `asks_at`-th look, waiting again."""

    def __init__(self, asks_at: int) -> None:
        super().__init__("http://127.0.0.1:9/api")
        self.looks = 0
        self.asks_at = asks_at
        self.resumed: list[RunAnswer] = []

    def live_waiting_run(self, project: Project) -> WaitingRun | None:
        self.looks += 1
        if self.looks < self.asks_at:
            return None
        return WaitingRun(id="r", name="run", state_name="Suspended", schema_key=None)

    def busy_run(self, project: Project) -> str | None:
        return None  # running, but without the project's lock

    def active_run(self, project: Project) -> str | None:
        return "run"

    def resume(self, run: WaitingRun, run_input: RunAnswer) -> None:
        self.resumed.append(run_input)


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config, brain_dump="A wedding for 60 guests.")


def _hand_over(config: Config, project: Project) -> bool:
    return hand_over(
        config, project, RunAnswer(action="distill", message=""), saved=False, busy_seconds=30
    )


def test_distill_right_after_say_waits_for_the_run_that_has_not_taken_its_lock_yet(
    config: Config, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the first look found the run neither waiting nor busy (running without the
    lock counted as dead) and the CLI said "no run of … is waiting for input"."""
    api = ReEnteringRun(asks_at=4)
    monkeypatch.setattr(api_module, "_BUSY_POLL_SECONDS", 0.001)
    monkeypatch.setattr(hand_over_module, "api_for_wait", lambda config, waiting: api.url)
    monkeypatch.setattr(hand_over_module, "PrefectApi", lambda url: api)
    assert _hand_over(config, project) is True
    assert api.resumed == [RunAnswer(action="distill", message="")]


def test_a_run_that_never_asks_is_given_up_once_it_settles(
    config: Config, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = ReEnteringRun(asks_at=10**9)
    monkeypatch.setattr(api_module, "_BUSY_POLL_SECONDS", 0.001)
    monkeypatch.setattr(api_module, "SETTLE_SECONDS", 0.2)
    monkeypatch.setattr(hand_over_module, "api_for_wait", lambda config, waiting: api.url)
    monkeypatch.setattr(hand_over_module, "PrefectApi", lambda url: api)
    assert _hand_over(config, project) is False
    assert api.resumed == [] and api.looks > 3
