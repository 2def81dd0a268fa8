"""Spend and budget over MCP, with the SDK's client over stdio: read what a project spent and
its budget, set its own budget, and resume a budget halt with a higher one, through the one
implementation the CLI and the page use (`core.spend`, `actions.budget`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio

from tests.mcp_server.conftest import payload, refusal, stdio_client
from tests.polish_setup import polishing_project
from thoughtforge.config import load_config
from thoughtforge.core.spend.ledger import read_usage
from thoughtforge.core.state import read_status
from thoughtforge.core.transition import transition
from thoughtforge.models import HaltReason, Phase


def test_a_budget_halt_is_read_and_raised_over_mcp(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config_file = mcp_config()
    project = polishing_project(load_config(config_file))
    transition(project, Phase.HALTED, halt_reason=HaltReason.BUDGET_EXHAUSTED)

    async def drive() -> None:
        async with stdio_client(config_file, mcp_env) as client:
            arguments = {"project_id": project.id}
            spent = payload(await client.call_tool("spend", arguments))
            assert spent["budget_from"] == "config.yaml (budget)"
            assert "spent_usd" in spent and "breakdown" in spent
            status = payload(await client.call_tool("project_status", arguments))
            assert status["halt_reason"] == "budget_exhausted"
            assert "resume" in status["actions_now"]
            not_a_budget = refusal(
                await client.call_tool(
                    "decide", {**arguments, "decision": "resume", "budget_usd": 0}
                )
            )
            assert "budget_usd: Input should be greater than 0" in not_a_budget
            decided = payload(
                await client.call_tool(
                    "decide",
                    {**arguments, "decision": "resume", "budget_usd": 25, "wait_seconds": 0},
                )
            )
            assert decided["delivery"] == "applied", decided
            after = payload(await client.call_tool("spend", arguments))
            assert after["budget_usd"] == 25 and after["budget_from"] == "the project's own"

    anyio.run(drive)
    assert read_usage(project.dir).budget is not None
    assert read_usage(project.dir).budget.max_usd == 25  # type: ignore[union-attr]
    assert read_status(project.dir).phase is Phase.POLISHING


def test_a_budget_is_set_over_mcp_and_a_halt_only_decision_is_refused(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config_file = mcp_config()
    project = polishing_project(load_config(config_file))

    async def drive() -> None:
        async with stdio_client(config_file, mcp_env) as client:
            arguments = {"project_id": project.id}
            set_ = payload(await client.call_tool("spend", {**arguments, "budget_tokens": 50_000}))
            assert set_["budget_tokens"] == 50_000
            assert set_["budget_from"] == "the project's own"
            assert "not possible now" in refusal(
                await client.call_tool(
                    "decide", {**arguments, "decision": "resume", "budget_usd": 5}
                )
            )

    anyio.run(drive)
    assert read_usage(project.dir).budget.max_tokens == 50_000  # type: ignore[union-attr]
