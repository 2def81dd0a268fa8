"""The budget: checked before every agent call with the most the call could cost, set per project
(`thoughtforge budget`), and every kind of bad input met with a clear message and nothing lost."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from tests.conftest import BRAIN_DUMP
from tests.fake_openai import FakeOpenAI, Reply
from thoughtforge.adapters.agents import AgentCall, http_agent, invoke_agent
from thoughtforge.cli import app
from thoughtforge.config import Config, OpenAIAgentSpec
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.spend.budget import describe, over_budget, short
from thoughtforge.core.spend.ledger import USAGE_FILE, Budget, Spend, read_usage
from thoughtforge.core.spend.summary import change_budget, rebuild, spend_of
from thoughtforge.core.state import read_thread
from thoughtforge.errors import BudgetExhausted, PhaseHalt, ThoughtForgeError
from thoughtforge.models import HaltReason

USAGE = {"prompt_tokens": 1000, "completion_tokens": 1000}
PRICES = {"input": 100.0, "output": 100.0}
"""$0.20 a call of 1,000 + 1,000 tokens: a $1 budget holds five."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setattr(http_agent, "RETRY_BASE_SECONDS", 0.0)
    with FakeOpenAI() as fake:
        fake.script(Reply("ok", usage=USAGE))
        yield fake


@pytest.fixture
def project(config: Config, server: FakeOpenAI) -> Project:
    values = {
        "type": "openai",
        "base_url": f"{server.url}/v1",
        "model": "tiny",
        "max_tokens": 1000,
        "price_per_million_tokens": PRICES,
    }
    config.agents.available["paid"] = OpenAIAgentSpec.model_validate(values)
    return create_project(config, brain_dump=BRAIN_DUMP)


def _ask(config: Config, project: Project) -> str:
    call = AgentCall(step="plan-review", project_dir=project.dir, phase="polishing", iteration=1)
    return invoke_agent(config, "paid", "p" * 4000, call)


def test_a_call_that_could_pass_the_budget_is_not_made(
    config: Config, project: Project, server: FakeOpenAI
) -> None:
    change_budget(config, project, 0.5, None)
    _ask(config, project)
    _ask(config, project)  # $0.40 spent; the next could cost $0.20 more: over $0.50
    with pytest.raises(BudgetExhausted) as raised:
        _ask(config, project)
    assert raised.value.halt_reason is HaltReason.BUDGET_EXHAUSTED
    assert "spent $0.40 of $0.50; the next call could cost up to $0.20" in str(raised.value)
    assert f"thoughtforge budget {project.id} --usd N" in str(raised.value)
    assert len(server.requests) == 2, "the call that could overshoot was never sent"

    change_budget(config, project, 1.0, None)
    assert _ask(config, project) == "ok"
    assert read_usage(project.dir).total.usd == pytest.approx(0.6)


def test_the_config_budget_applies_until_the_project_has_its_own(
    config: Config, project: Project
) -> None:
    config.budget.max_tokens = 5000
    assert spend_of(config, project).budget.max_tokens == 5000
    _ask(config, project)
    _ask(config, project)  # 4,000 used; the next could use 2,000 more
    with pytest.raises(BudgetExhausted, match="spent 4,000 of 5,000 tokens"):
        _ask(config, project)
    summary, _ = change_budget(config, project, None, 10_000)
    assert summary.own_budget and summary.budget.max_tokens == 10_000
    _ask(config, project)


@pytest.mark.parametrize(("usd", "tokens"), [(0.0, None), (-5.0, None), (None, 0), (None, -1)])
def test_a_budget_of_zero_or_less_is_refused_and_the_old_one_kept(
    config: Config, project: Project, usd: float | None, tokens: int | None
) -> None:
    change_budget(config, project, 2.0, None)
    with pytest.raises(ThoughtForgeError, match="a budget must be more than 0"):
        change_budget(config, project, usd, tokens)
    assert read_usage(project.dir).budget == Budget(max_usd=2.0)


def test_a_budget_lowered_below_what_was_spent_is_kept_with_a_warning(
    config: Config, project: Project
) -> None:
    _ask(config, project)
    _ask(config, project)
    summary, warning = change_budget(config, project, 0.1, None)
    assert summary.budget.max_usd == 0.1 and summary.total.usd == pytest.approx(0.4)
    assert warning is not None and "spent $0.40 of $0.10" in warning
    assert "next agent call will halt it" in warning
    with pytest.raises(BudgetExhausted):
        _ask(config, project)


def test_a_corrupt_usage_file_halts_before_any_call_and_is_rebuilt_from_the_log(
    config: Config, project: Project, server: FakeOpenAI
) -> None:
    change_budget(config, project, 5.0, None)
    _ask(config, project)
    (project.dir / USAGE_FILE).write_text("{not json")
    with pytest.raises(PhaseHalt) as raised:
        _ask(config, project)
    assert raised.value.halt_reason is HaltReason.FILE_SYSTEM_ERROR
    assert "--rebuild" in str(raised.value) and len(server.requests) == 1
    assert "spend unknown" in spend_of(config, project).short
    with pytest.raises(ThoughtForgeError, match="rebuild it first"):
        change_budget(config, project, 9.0, None)

    rebuilt = rebuild(config, project)
    assert rebuilt.total.calls == 1 and rebuilt.total.usd == pytest.approx(0.2)
    assert rebuilt.budget.max_usd == 5.0 and rebuilt.iterations[1].calls == 1
    assert (project.dir / "usage.json.corrupt").read_text() == "{not json"
    assert _ask(config, project) == "ok"


def test_without_any_price_the_money_limit_is_checked_against_what_was_spent() -> None:
    spent = Spend(calls=3, usd=1.0, tokens_in=10)
    assert over_budget(Budget(max_usd=2.0), spent, 500, None) is None
    assert "no price is known" in (over_budget(Budget(max_usd=1.0), spent, 500, None) or "")


def test_the_budget_command_sets_shows_and_refuses(config: Config, project: Project) -> None:
    config_path = config.projects.directory.parent / "config.yaml"
    runner = CliRunner()
    run = lambda *args: runner.invoke(app, ["-c", str(config_path), "budget", project.id, *args])  # noqa: E731
    set_ = run("--usd", "5")
    assert set_.exit_code == 0, set_.output
    assert "spent: $0.00 of $5.00" in set_.output and "the project's own" in set_.output
    _ask(config, project)
    shown = run()
    assert "$0.20 of $5.00 · 2,000 tokens (1 call)" in shown.output
    assert "polishing: $0.20" in shown.output and "iteration 1: $0.20" in shown.output
    refused = run("--usd", "-1")
    assert refused.exit_code == 1 and "a budget must be more than 0" in str(refused.exception)
    assert read_usage(project.dir).budget == Budget(max_usd=5.0)
    assert [e for e in read_events(project.dir) if e["event"] == "budget_set"]


def test_passing_80_percent_of_the_budget_is_told_in_the_chat_once(
    config: Config, project: Project
) -> None:
    change_budget(config, project, 1.0, None)
    for _ in range(3):
        _ask(config, project)  # $0.60: not yet
    assert not _notices(project)
    _ask(config, project)  # $0.80
    _ask(config, project)  # $1.00: exactly the budget, allowed
    [notice] = _notices(project)
    assert "80% of the budget is spent ($0.80 of $1.00" in notice
    assert f"thoughtforge budget {project.id} --usd N" in notice


def _notices(project: Project) -> list[str]:
    return [m.content for m in read_thread(project.dir) if "of the budget is spent" in m.content]


def test_budget_rebuild_over_damaged_log_lines_counts_every_call_without_a_traceback(
    config: Config, project: Project
) -> None:
    config_path = config.projects.directory.parent / "config.yaml"
    _ask(config, project)  # one sound call: 2,000 tokens, $0.20
    damaged = [
        '{"event": "agent_usage", "phase": "polishing", "tokens_in": "12x", "usd": 0.1}',
        '{"event": "agent_usage", "phase": "polishing", "tokens_in": 1e400, "usd": 1e400}',
        '{"event": "agent_usage", "phase": "polishing", "tokens_out": -5, "iteration": 2}',
        '{"event": "budget_set", "budget": {"max_usd": 1e400}}',
        '{"event": "budget_set", "budget": "lots"}',
        "[" * 100_000,
        '{"event": "agent_usage", "tok',
        "\udcff not utf-8",
    ]
    with (project.dir / "thoughtforge.log").open(
        "a", encoding="utf-8", errors="surrogateescape"
    ) as log:
        log.write("\n".join(damaged) + "\n")
    (project.dir / USAGE_FILE).write_text("{not json")

    rebuilt = CliRunner().invoke(app, ["-c", str(config_path), "budget", project.id, "--rebuild"])

    assert rebuilt.exit_code == 0, rebuilt.output
    ledger = read_usage(project.dir)
    assert ledger.total.calls == 4 and ledger.total.usd == pytest.approx(0.3)
    assert ledger.total.tokens == 2000 and ledger.total.unpriced_calls == 2
    assert ledger.budget is None


@pytest.mark.parametrize("amount", ["nan", "inf", "1e309", "1000001"])
def test_the_budget_command_refuses_what_no_budget_can_be(
    config: Config, project: Project, amount: str
) -> None:
    config_path = config.projects.directory.parent / "config.yaml"
    refused = CliRunner().invoke(
        app, ["-c", str(config_path), "budget", project.id, "--usd", amount]
    )
    assert refused.exit_code == 1 and isinstance(refused.exception, ThoughtForgeError)
    assert read_usage(project.dir).budget is None


def test_the_short_spend_keeps_one_unit_and_says_an_unpriced_dollar_budget_cannot_bind() -> None:
    """The card read "7,963 tokens / $2.00"; the header "$0.00 / $0.05" after 9,000 tokens."""
    unpriced = Spend(calls=3, tokens_in=7000, tokens_out=963, unpriced_calls=3)
    assert short(unpriced) == "7,963 tokens"
    assert short(unpriced, Budget(max_tokens=20_000)) == "7,963 tokens / 20,000"
    assert short(unpriced, Budget(max_usd=2.0)) == (
        "7,963 tokens ($2.00 budget cannot bind: the agent has no price)"
    )
    priced = Spend(calls=1, usd=1.234, tokens_in=10)
    assert short(priced, Budget(max_usd=5.0)) == "$1.23 / $5.00"


def test_the_long_spend_of_unpriced_calls_gives_no_dollar_figure() -> None:
    """The done notice read "Spent $0.00 · 8,966 tokens (4 calls, 4 without a price)"."""
    unpriced = Spend(calls=3, tokens_in=7000, tokens_out=963, unpriced_calls=3)
    assert describe(unpriced) == "7,963 tokens (3 calls, 3 without a price)"
    assert describe(unpriced, Budget(max_usd=2.0)) == (
        "7,963 tokens (3 calls, 3 without a price; the $2.00 budget cannot bind: the agent has "
        "no price)"
    )
    mixed = unpriced.plus(Spend(calls=1, usd=0.5, tokens_in=10))
    assert describe(mixed, Budget(max_usd=2.0)).startswith("$0.50 of $2.00 · 7,973 tokens")
