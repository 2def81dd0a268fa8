"""A budget that runs out mid-polish, as a user meets it: the run halts before the call that could
pass it, the person raises it and resumes, the loop finishes; the trajectory and `status` show
what each iteration cost."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.flows.conftest import project_artifacts, run_cli
from tests.polish_setup import calls, polishing_project, review, write_script
from thoughtforge.config import load_config
from thoughtforge.core.project_log import read_events
from thoughtforge.core.spend.ledger import read_usage
from thoughtforge.core.state import read_polish_state, read_status, read_thread
from thoughtforge.models import HaltReason, Phase

pytestmark = pytest.mark.slow  # two polish runs against a real Prefect server

PRICE = 1000.0
"""USD per million tokens, in and out: the scripted agent's estimated calls cost dollars."""


def test_a_budget_that_runs_out_mid_polish_halts_then_raised_and_resumed_finishes(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config_path = cli_config()
    data = yaml.safe_load(config_path.read_text())
    data["agents"]["available"]["demo"]["price_per_million_tokens"] = {
        "input": PRICE,
        "output": PRICE,
    }
    data["agents"]["available"]["demo"]["max_tokens"] = 1000
    config_path.write_text(yaml.safe_dump(data))
    project = polishing_project(load_config(config_path))
    reviews = {1: review(3, 4, 4), 2: review(2, 3, 3), 3: review(1, 2, 2), "default": review()}
    script = str(write_script(tmp_path / "s.yaml", reviews))

    assert run_cli(cli_env, config_path, "budget", project.id, "--usd", "3").returncode == 0
    halted = run_cli(cli_env, config_path, "polish", project.id, THOUGHTFORGE_SCRIPT=script)
    assert halted.returncode == 3, halted.stdout + halted.stderr
    status = read_status(project.dir)
    assert (status.halt_reason, status.halted_from) == (
        HaltReason.BUDGET_EXHAUSTED,
        Phase.POLISHING,
    )
    assert "Budget exhausted: spent $" in halted.stderr + halted.stdout
    ledger = read_usage(project.dir)
    assert 0 < ledger.total.usd <= 3.0, "never past the budget"
    made = sum(calls(project).values())
    assert ledger.total.calls == made, "every call made was counted, and none was made after"
    [refusal] = [e for e in read_events(project.dir) if e["event"] == "budget_exhausted"]
    assert "the next call could cost up to" in refusal["why"]
    stopped_at = read_polish_state(project.dir).iteration
    assert stopped_at >= 1 and not read_polish_state(project.dir).completed

    raised = run_cli(cli_env, config_path, "budget", project.id, "--usd", "100")
    assert raised.returncode == 0 and "of $100.00" in raised.stdout
    finished = run_cli(cli_env, config_path, "resume", project.id, THOUGHTFORGE_SCRIPT=script)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert read_status(project.dir).phase is Phase.DONE

    state = read_polish_state(project.dir)
    assert state.iteration > stopped_at
    costs = [entry.usd for entry in state.trajectory]
    assert all(cost is not None and cost > 0 for cost in costs), costs
    ledger = read_usage(project.dir)
    assert sum(c for c in costs if c is not None) == pytest.approx(ledger.total.usd, rel=1e-3)
    assert ledger.total.estimated_calls == ledger.total.calls, "the scripted agent reports none"

    shown = run_cli(cli_env, config_path, "status", project.id)
    assert f"spent: ${ledger.total.usd:,.2f} of $100.00" in shown.stdout, shown.stdout
    assert "iteration 1: $" in shown.stdout and "polishing: $" in shown.stdout
    listing = run_cli(cli_env, config_path, "status")
    assert f"${ledger.total.usd:,.2f} / $100.00" in listing.stdout, listing.stdout
    assert json.loads((project.dir / "usage.json").read_text())["budget"]["max_usd"] == 100.0

    finish = [m.content for m in read_thread(project.dir) if "Polish loop finished" in m.content]
    assert finish and f"Spent ${ledger.total.usd:,.2f} of $100.00" in finish[-1]
    artifacts = project_artifacts(project.id)
    breakdown = str(artifacts[f"{project.id}-spend"].data)
    assert "| iteration 1 | $" in breakdown and "| polishing | $" in breakdown, breakdown
    assert "| cost |" in str(artifacts[f"{project.id}-convergence"].data)
