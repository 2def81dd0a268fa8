"""The polish record as data: what the workbench and an MCP wrapper read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.polish_setup import polishing_project, review, write_script
from thoughtforge.config import Config
from thoughtforge.core.state import POLISH_STATE_FILE
from thoughtforge.phases import human_decisions
from thoughtforge.phases.polish.loop import PolishLoop
from thoughtforge.phases.polish.record import read_polish_record


def test_a_loop_that_halted_and_resumed_reads_back_as_entries_and_trajectory(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reviews = {1: review(2, 4, 6), 2: review(3, 5, 6), 3: review(4, 6, 7), "default": review()}
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(write_script(tmp_path / "s.yaml", reviews)))
    project = polishing_project(config)
    assert PolishLoop(project, config).run().verdict == "halt"
    human_decisions.apply(project, "resume")
    assert PolishLoop(project, config).run().verdict == "done"

    record = read_polish_record(project.dir)
    assert record.problems == []
    assert [e.total for e in record.trajectory] == [12, 14, 17, 0]
    assert [e.iteration for e in record.log] == [1, 2, 3, None, 4]
    assert record.log[3].title.startswith("Resumed at ")
    first = record.log[0]
    assert first.title.startswith("Iteration 1 — ")
    assert len(first.parts["Issues found"]) == 12
    assert first.parts["Fixes applied"][0].startswith("docs/plan.md updated")
    assert first.verdict == "continue"
    assert record.log[2].verdict.startswith("halt (fix_regression)")
    last = record.last_iteration
    assert last is not None and last.iteration == 4
    assert last.verdict.startswith("done (termination)")
    assert last.guards[1].startswith("termination: TRIGGERED")
    assert record.log_text.startswith("# Polish log")


def test_before_the_first_iteration_there_is_nothing(config: Config) -> None:
    record = read_polish_record(polishing_project(config).dir)
    assert (record.state, record.log, record.trajectory, record.problems) == (None, [], [], [])


def test_a_corrupt_state_file_is_a_problem_named_not_a_guess(config: Config) -> None:
    project = polishing_project(config)
    (project.dir / POLISH_STATE_FILE).write_text('{"iteration": "many"}')
    record = read_polish_record(project.dir)
    assert record.state is None and record.trajectory == []
    [problem] = record.problems
    assert POLISH_STATE_FILE in problem and "schema" in problem
