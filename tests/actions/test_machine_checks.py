"""`doctor`'s checks as typed rows: a config that cannot be read stops them at its row, the
caller's Prefect rows sit where the report has always shown them, and `up`'s start-up warnings
name a missing agent and a server open to the network."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from thoughtforge.actions.machine_checks import Check, machine_checks, start_up_warnings
from thoughtforge.config import load_config

PREFECT_ROW = Check(name="Prefect internals", outcome="ok", detail="given by the caller")


def test_a_missing_config_is_the_one_row_and_the_caller_s_rows_are_not_asked(
    tmp_path: Path,
) -> None:
    asked: list[bool] = []

    def internals() -> list[Check]:
        asked.append(True)
        return [PREFECT_ROW]

    checks = machine_checks(tmp_path / "config.yaml", internals)

    assert [(c.name, c.outcome) for c in checks] == [("config", "fail")]
    assert "run thoughtforge init" in checks[0].detail
    assert asked == []


def test_every_row_in_order_the_prefect_rows_after_the_database(
    write_config: Callable[..., Path],
) -> None:
    checks = machine_checks(write_config(), lambda: [PREFECT_ROW])

    names = [c.name for c in checks]
    assert names[:10] == [
        "config",
        "agent",
        "write boundary",
        "projects directory",
        "prompts",
        "deliverable types",
        "Prefect API",
        "database",
        "Prefect internals",
        "board",
    ]
    assert checks[8] == PREFECT_ROW
    assert names[-1] == "agents"
    assert all(c.outcome != "fail" for c in checks), checks


def test_start_up_warnings_name_a_missing_agent_and_an_open_server(
    write_config: Callable[..., Path],
) -> None:
    quiet = load_config(write_config())
    assert start_up_warnings(quiet) == []

    loud = load_config(
        write_config(
            agents={"default": "claude"},
            server={"host": "0.0.0.0", "port": 9},
        )
    )
    warnings = start_up_warnings(loud)

    assert len(warnings) == 2, warnings
    assert all(w.startswith("warning: ") for w in warnings)
    assert "claude" in warnings[0]
