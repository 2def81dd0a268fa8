"""Every call is bounded, the CLI's own retries included: with the fake model API answering 503
to every request, each real CLI's project halts within the call's deadline, the CLI told how
many retries fit in it (its own setting), and ThoughtForge retries only within what is left."""

from __future__ import annotations

import pytest

from tests.agent_clis.conftest import CLIS, Bench
from tests.agent_clis.test_real_clis import WEDDING, _halted_agent_failure, _run
from thoughtforge.core.project_log import read_events

pytestmark = pytest.mark.slow

DEADLINE = 40.0
SLACK = 4.0
"""Starting a CLI and ending its process tree, past the deadline ThoughtForge holds it to."""


@pytest.mark.parametrize("cli", CLIS)
def test_a_persistent_503_halts_within_the_calls_deadline(cli: str, bench: Bench) -> None:
    """Before, Gemini CLI retried a 503 for ~230 s and ThoughtForge then retried the call: the
    halt came at 468 s of a 300 s deadline. Claude Code's ten retries take 195 s."""
    bench.api.fail(503, "the fake model is overloaded")
    project = _run(bench, cli, WEDDING, bench.config(cli, timeout=DEADLINE))
    reason = _halted_agent_failure(project)
    assert "503" in reason or "overloaded" in reason, reason
    calls = [e for e in read_events(project) if e.get("event") == "agent_call"]
    assert {call["step"] for call in calls} == {"brain-dump-intake"}
    spent = sum(call["seconds"] for call in calls)
    print(f"{cli}: halted after {spent:.1f} s in {len(calls)} attempt(s)")
    assert spent <= DEADLINE + SLACK, [(c["seconds"], c["failure"]) for c in calls]
