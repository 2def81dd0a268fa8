"""`doctor --probe` calls each real CLI the way a step does (in a git repository: Codex refuses
to run elsewhere), and what the CLI adds to every call of its own (its system prompt and tools,
as the fake model API receives them) is the overhead its profile counts in the window check and
the budget's estimate: this keeps `CliKind.overhead_tokens` current."""

from __future__ import annotations

import pytest

from tests.agent_clis.conftest import CLIS, Bench
from thoughtforge.adapters.agents.kinds import CLI_KINDS
from thoughtforge.adapters.agents.probe import PROMPT
from thoughtforge.prompting.context_window import estimate_tokens

pytestmark = pytest.mark.slow

TOLERANCE = 0.15
"""How far the measured overhead may drift before the profile's figure must be updated."""


@pytest.mark.parametrize("cli", CLIS)
def test_the_probe_answers_and_the_clis_overhead_is_its_profiles(cli: str, bench: Bench) -> None:
    result = bench.thoughtforge(cli, "doctor", "--probe")
    [line] = [line for line in result.stdout.splitlines() if f"probe {cli}" in line]
    assert "replied" in line and "ready" in line, result.stdout
    others = [line for line in result.stdout.splitlines() if "probe " in line and cli not in line]
    assert any("not logged in" in line for line in others), result.stdout
    measured = bench.api.billed()[0] - estimate_tokens(PROMPT)
    print(f"\n{cli}: {measured} tokens of its own per call")
    assert measured == pytest.approx(CLI_KINDS[cli].overhead_tokens, rel=TOLERANCE)
