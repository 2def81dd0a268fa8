"""One MCP `revise` reads the project's view once, under its revision's claim: the composer that
allows it and the run it starts are decided from that one read (a read before the claim would
miss a run started between it and the claim), and what it takes after is told from it with what
the revision wrote (`core.project_view.view_after`). Counted at the
one opener every project file is read through (`tests.state_reads`), in the MCP server's
process; the run the revision starts is a process of its own, and is not started here (its
reads are its own): the tool is handed a pid as if it had. Before issue 57 it read `.waiting.json`
4 times (three before the claim) and `.starting.json` 8 times; then 3 and 6; then 2 and 5
(`status.json` 4, `revisions.json` 4); now 1 and 4."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_after_done_hostile import done_project
from tests.state_reads import counted_reads, state_reads
from thoughtforge.actions import process_run
from thoughtforge.actions.run_state import current_composer
from thoughtforge.config import load_config
from thoughtforge.core.project import Project
from thoughtforge.core.revisions import REVISIONS_FILE
from thoughtforge.core.state import POLISH_STATE_FILE, STATUS_FILE
from thoughtforge.core.waiting import WAITING_FILE
from thoughtforge.mcp_server.agent_words import for_agent
from thoughtforge.mcp_server.tools import Tools


def test_an_mcp_revise_reads_the_project_view_once_under_its_claim(
    write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file = write_config()
    tools = Tools(config_file, load_config(config_file))
    project = done_project(tools.config)
    started: list[str] = []

    def no_process(config_file: Path, project: Project) -> int:
        started.append(project.id)
        return os.getpid()

    monkeypatch.setattr(process_run, "_start_cli_run", no_process)
    with counted_reads(monkeypatch) as reads:
        turn = tools.answer(project.id, "revise", "The budget is 12k now.", 0)
    assert turn.delivery == "started" and started == [project.id], turn
    print("mcp revise reads:", dict(reads))
    # the view, once, under the revision's claim: checked and refused from it, the revision
    # started from its status and revisions, the turn's `now` told from it and what was written
    counted = state_reads(reads)
    assert counted[WAITING_FILE] == 1 and counted[REVISIONS_FILE] == 1, reads
    assert counted[POLISH_STATE_FILE] == 0, reads  # the revision wrote it: its findings known
    assert counted[STATUS_FILE] == 2, reads  # the view's, and the move to Phase 2's own
    assert turn.now == for_agent(current_composer(tools.config, project).note)
