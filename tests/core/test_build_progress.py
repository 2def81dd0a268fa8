"""The build's progress listener: reports coalesced to a few a second with the latest always
written, and a listener's own failure never reaching the plugin."""

from __future__ import annotations

import time

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config
from thoughtforge.core.build_progress import (
    REPORT_INTERVAL_SECONDS,
    BuildProgress,
    ProgressItem,
    read_build_progress,
    recorded,
)
from thoughtforge.core.creation import create_project
from thoughtforge.core.project_log import read_events


def _report(n: int) -> BuildProgress:
    return BuildProgress(items=[ProgressItem(label="step", done=False, detail=f"item {n}")])


def test_a_burst_is_told_once_then_its_latest_report_after_the_interval(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    told: list[str] = []
    listener = recorded(project.dir, lambda progress: told.append(progress.items[0].detail))
    for n in range(1000):
        listener(_report(n))
    assert told == ["item 0"]  # the first at once, the rest wait
    time.sleep(REPORT_INTERVAL_SECONDS * 3)  # no later report comes: the latest is written anyway
    assert told == ["item 0", "item 999"]
    progress = read_build_progress(project.dir)
    assert progress is not None and progress.items[0].detail == "item 999"
    listener(_report(1000))
    listener.close()
    assert told[-1] == "item 1000"


def test_a_listener_that_fails_is_logged_and_the_build_goes_on(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)

    def publish(progress: BuildProgress) -> None:
        raise RuntimeError("the Prefect API is down")

    listener = recorded(project.dir, publish)
    listener(_report(1))
    listener.close()
    [event] = [e for e in read_events(project.dir) if e["event"] == "build_progress_unpublished"]
    assert "the Prefect API is down" in event["error"]
