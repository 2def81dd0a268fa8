"""Issue 57's walks, counted (calls and opens, no timers) with the instrument of
`bench/bench_walks.py`, which prints the same figures: a page answer reaches the waiting run
with one read of the project's view and one Prefect request; `thoughtforge run` parses its
config once on its way to the first agent call; an MCP `revise` reads the view once. Before
issue 57's walks were cut: 4 Prefect requests, 2 config parses, 3 view reads (then 2 for the
revise)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.bench_walks import (
    AGENT_CALL,
    PLUGIN_LOAD,
    PREFECT_CALL,
    READ_VIEW,
    WAIT_RETURNS,
    Instrument,
    mcp_revise,
    page_answer_and_run,
)
from thoughtforge.config import load_config


@pytest.mark.parametrize("place", [READ_VIEW, WAIT_RETURNS, AGENT_CALL, PLUGIN_LOAD, PREFECT_CALL])
def test_the_instrument_counts_functions_that_exist(place: tuple[str, str]) -> None:
    """The instrument knows a function by its file and name: a move or a rename must move it."""
    path, name = place
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    owner = module.PrefectApi if name == "call" else module
    assert callable(getattr(owner, name)), place


def test_an_mcp_revise_reads_the_project_view_once_for_its_action(tmp_path: Path) -> None:
    """Once, under the revision's claim: checked and refused from it, the revision started from
    its status and revisions, and the turn's `now` told from it with what the revision wrote
    (`core.project_view.view_after`). `status.json` is read once more by the revision's own
    move to Phase 2 (`transition` reads the status it replaces); `.starting.json`'s reads are
    the claim's taking and letting go, not counted here. Before: 2 view reads, `status.json` 4
    times, `revisions.json` 4, `.waiting.json` 2, `polish_state.json` 1."""
    walk = mcp_revise(Instrument(), tmp_path)
    assert walk.view_reads == 1, walk.figures()
    view_files = {k: v for k, v in walk.state_reads.items() if k != ".starting.json"}
    assert view_files == {"status.json": 2, ".waiting.json": 1, "revisions.json": 1}, view_files


def test_a_config_file_is_parsed_once_while_its_text_stays_the_same(
    write_config: Callable[..., Path],
) -> None:
    path = write_config()
    instrument = Instrument()
    with instrument, instrument.counting() as walk:
        first = load_config(path)
        first.web.port = 1  # a caller's own copy: the next load does not see it
        second = load_config(path)
    assert walk.config_parses == 1 and second.web.port != 1
    path.write_text(path.read_text().replace("port: 9", "port: 10"))
    with instrument, instrument.counting() as walk:
        changed = load_config(path)
    assert walk.config_parses == 1 and changed.server.port == 10


@pytest.mark.slow
def test_a_page_answer_reaches_the_waiting_run_with_one_view_read_and_one_request(
    tmp_path: Path, prefect_api_url: str
) -> None:
    """`thoughtforge run` waits for the person in Phase 1; the page's `distill` is counted in
    this process (the workbench), the run's from its wait's return to its next agent call."""
    web, takeover, start = page_answer_and_run(Instrument(), tmp_path, prefect_api_url)
    through = set(web.chain) | set(takeover["chain_list"])
    # the door, the action, the hand-over to Prefect; the run's wait, the phase, the engine, the
    # agent: each on the chain, and the chain short (issue 57: through at most 20 files)
    assert {"web/endpoints/project_actions.py", "actions/answering.py", "stack/api.py"} <= through
    assert {"phases/engine.py", "adapters/agents/invoke.py"} <= through
    assert len(through) <= 20, sorted(through)
    assert web.view_reads == 1, web.figures()
    assert [request.rsplit("/", 1)[1] for request in web.prefect] == ["resume"], web.prefect
    assert takeover["view_reads"] == 0 and takeover["prefect_requests"] == 0, takeover
    assert start["config_parses"] == 1, start  # the CLI's, handed to the flow it runs
    assert start["plugin_loads"] == 1, start
