from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from thoughtforge.config import (
    PACKAGED_EXAMPLE,
    LiveConfig,
    load_config,
)


def _rewrite(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Edit the file as a user would. Every edit here changes the file's size, so it is seen
    however coarse the file system's modification times are."""
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


@pytest.fixture
def live(write_config: Callable[..., Path]) -> LiveConfig:
    path = write_config(concurrency={"max_parallel_runs": 3})
    return LiveConfig(path, load_config(path))


def test_live_config_returns_the_new_values_after_the_file_changes(live: LiveConfig) -> None:
    assert live.current().concurrency.max_parallel_runs == 3
    _rewrite(live.path, lambda data: data["concurrency"].update(max_parallel_runs=12))
    assert live.current().concurrency.max_parallel_runs == 12
    _rewrite(live.path, lambda data: data["notifications"].update(enabled=True))
    assert live.current().notifications.enabled is True
    assert live.problem is None


def test_live_config_keeps_the_last_good_config_while_the_file_is_broken_then_recovers(
    live: LiveConfig, caplog: pytest.LogCaptureFixture
) -> None:
    good = live.path.read_text()
    live.path.write_text(good + "\nconcurrency: [unclosed\n")
    assert live.current().concurrency.max_parallel_runs == 3
    assert live.problem is not None and "not valid YAML" in live.problem
    assert str(live.path) in live.problem
    assert live.current() is live.current()
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned == [live.problem], "the problem is logged once, not at every read"

    live.path.write_text(good.replace("max_parallel_runs: 3", "max_parallel_runs: 0"))
    assert live.current().concurrency.max_parallel_runs == 3
    assert live.problem is not None and "concurrency.max_parallel_runs" in live.problem

    live.path.write_text(good.replace("max_parallel_runs: 3", "max_parallel_runs: 12"))
    assert live.current().concurrency.max_parallel_runs == 12
    assert live.problem is None


def test_live_config_keeps_the_last_good_config_while_the_file_is_missing(
    live: LiveConfig,
) -> None:
    """Before, a config file gone for a moment (an editor saving) was recreated from the example
    beside it, whose settings then replaced the user's without a word."""
    (live.path.parent / "config.yaml.example").write_text(PACKAGED_EXAMPLE.read_text())
    good = live.path.read_text()
    live.path.unlink()
    assert live.current().concurrency.max_parallel_runs == 3
    assert live.problem is not None and "missing" in live.problem
    assert not live.path.exists()

    live.path.write_text(good.replace("max_parallel_runs: 3", "max_parallel_runs: 12"))
    assert live.current().concurrency.max_parallel_runs == 12
    assert live.problem is None
