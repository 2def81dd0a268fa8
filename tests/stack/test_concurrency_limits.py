"""The limits `up` keeps on a real Prefect server, set through its REST API."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from thoughtforge.config import Config, load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.stack.api import PrefectApi
from thoughtforge.stack.concurrency_limits import (
    RUNS_LIMIT,
    agent_limit,
    reclaim_slots,
    set_limits,
    wanted_limits,
)


@pytest.fixture
def api(prefect_api_url: str) -> Iterator[PrefectApi]:
    """The server, without limits before and after (other tests share it)."""
    api = PrefectApi(prefect_api_url)
    yield api
    for item in api.call("POST", "/v2/concurrency_limits/filter", {}):
        if item["name"].startswith("thoughtforge-"):
            api.call("DELETE", f"/v2/concurrency_limits/{item['name']}")


def _limit(api: PrefectApi, name: str) -> dict[str, int]:
    return dict(api.call("GET", f"/v2/concurrency_limits/{name}"))


def test_the_limits_are_made_from_config_and_follow_it(
    api: PrefectApi, write_config: Callable[..., Path]
) -> None:
    config = load_config(write_config(concurrency={"max_parallel_runs": 2}))
    set_limits(api, config)
    assert _limit(api, RUNS_LIMIT)["limit"] == 2
    assert _limit(api, agent_limit("demo"))["limit"] == config.concurrency.max_parallel_agent_calls
    assert set(wanted_limits(config)) >= {RUNS_LIMIT, agent_limit("demo"), agent_limit("claude")}

    bigger = load_config(write_config(concurrency={"max_parallel_runs": 5}))
    set_limits(api, bigger)
    assert _limit(api, RUNS_LIMIT)["limit"] == 5


def test_only_slots_no_live_run_can_hold_are_given_back(
    api: PrefectApi, config: Config, tmp_path: Path
) -> None:
    set_limits(api, config)
    api.call("PATCH", f"/v2/concurrency_limits/{RUNS_LIMIT}", {"active_slots": 2})
    live = create_project(config, brain_dump="A brain dump.")
    with hold_run_lock(live):
        assert reclaim_slots(api, config) == {RUNS_LIMIT: 1}
        assert _limit(api, RUNS_LIMIT)["active_slots"] == 1
        assert reclaim_slots(api, config) == {}
    assert reclaim_slots(api, config) == {RUNS_LIMIT: 1}
    assert _limit(api, RUNS_LIMIT)["active_slots"] == 0
