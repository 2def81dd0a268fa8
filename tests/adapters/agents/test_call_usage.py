"""Usage on every agent call: read from what the agent reports (an OpenAI-compatible server,
streamed or not; Claude Code's JSON), estimated when it reports nothing or nonsense, priced, and
summed in the project's `usage.json`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import AGENTS_DIR, BRAIN_DUMP
from tests.fake_openai import FakeOpenAI, Reply
from thoughtforge.adapters.agents import AgentCall, http_agent, invoke_agent
from thoughtforge.adapters.agents.call_usage import from_openai
from thoughtforge.adapters.agents.kinds.claude import from_claude
from thoughtforge.config import CommandAgentSpec, Config, OpenAIAgentSpec
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.spend.ledger import read_usage
from thoughtforge.errors import AgentFailure

CLAUDE_SAMPLE = AGENTS_DIR / "claude_code_result.json"
"""Claude Code's `--output-format json` result, in the shape its documentation gives."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setattr(http_agent, "RETRY_BASE_SECONDS", 0.0)
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config, brain_dump=BRAIN_DUMP)


def _local(config: Config, url: str, **settings: object) -> None:
    values = {"type": "openai", "base_url": f"{url}/v1", "model": "tiny", **settings}
    config.agents.available["local"] = OpenAIAgentSpec.model_validate(values)


def _call(project: Project, iteration: int | None = 2) -> AgentCall:
    return AgentCall(
        step="plan-review", project_dir=project.dir, phase="polishing", iteration=iteration
    )


def _usage_events(project: Project) -> list[dict[str, object]]:
    return [e for e in read_events(project.dir) if e["event"] == "agent_usage"]


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
def test_an_openai_servers_usage_is_read_priced_and_summed(
    config: Config, project: Project, server: FakeOpenAI, streamed: bool
) -> None:
    _local(config, server.url, price_per_million_tokens={"input": 2.0, "output": 10.0})
    usage = {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500}
    server.script(Reply("the answer", usage=usage, streamed=streamed))
    assert invoke_agent(config, "local", "hello", _call(project)) == "the answer"
    assert invoke_agent(config, "local", "hello", _call(project)) == "the answer"

    assert server.bodies[0]["stream_options"] == {"include_usage": True}
    event = _usage_events(project)[0]
    assert (event["tokens_in"], event["tokens_out"], event["tokens"]) == (1200, 300, "reported")
    assert event["usd"] == pytest.approx(0.0054) and event["money"] == "priced"
    ledger = read_usage(project.dir)
    assert ledger.total.calls == 2 and ledger.total.tokens == 3000
    assert ledger.total.usd == pytest.approx(0.0108)
    assert ledger.phases["polishing"].calls == 2 and ledger.iterations[2].tokens_in == 2400


def test_a_cost_the_server_reports_wins_over_the_configured_prices(
    config: Config, project: Project, server: FakeOpenAI
) -> None:
    _local(config, server.url, price_per_million_tokens={"input": 2.0, "output": 10.0})
    server.script(Reply("ok", usage={"prompt_tokens": 10, "completion_tokens": 5, "cost": 0.25}))
    invoke_agent(config, "local", "hello", _call(project))
    assert _usage_events(project)[0]["money"] == "reported"
    assert read_usage(project.dir).total.usd == pytest.approx(0.25)


def test_claude_codes_json_gives_its_tokens_and_cost(config: Config, project: Project) -> None:
    config.agents.available["claude-sample"] = CommandAgentSpec(
        command="cat", flags=[str(CLAUDE_SAMPLE)], output="claude_json"
    )
    answer = invoke_agent(config, "claude-sample", "review this", _call(project))
    assert answer.startswith("## Review")
    (event,) = _usage_events(project)
    assert event["tokens_in"] == 2 + 7924 + 13368  # cache writes and reads are input too
    assert event["tokens_out"] == 9 and event["tokens"] == "reported"
    assert event["usd"] == pytest.approx(0.10457895) and event["money"] == "reported"


def test_a_claude_error_was_paid_for_and_is_counted(config: Config, project: Project) -> None:
    errored = project.dir.parent / "error.json"
    sample = json.loads(CLAUDE_SAMPLE.read_text())
    errored.write_text(json.dumps({**sample, "is_error": True, "result": "overloaded"}))
    config.agents.available["claude-error"] = CommandAgentSpec(
        command="cat", flags=[str(errored)], output="claude_json"
    )
    with pytest.raises(AgentFailure):
        invoke_agent(config, "claude-error", "review this", _call(project))
    ledger = read_usage(project.dir)
    assert ledger.total.calls == 2, "both attempts were paid for"
    assert ledger.total.usd == pytest.approx(2 * 0.10457895)


def test_an_agent_that_reports_nothing_is_estimated_and_says_so(
    config: Config, project: Project
) -> None:
    config.agents.available["plain"] = CommandAgentSpec(command="cat")  # echoes the prompt
    prompt = "x" * 4000
    invoke_agent(config, "plain", prompt, _call(project, iteration=None))
    (event,) = _usage_events(project)
    assert event["tokens"] == "estimated"
    assert (event["tokens_in"], event["tokens_out"]) == (1000, 1000)
    assert event["note"] == "the agent reported no usage"
    assert event["usd"] is None and "price_per_million_tokens" in str(event["why_no_money"])
    ledger = read_usage(project.dir)
    assert ledger.total.estimated_calls == 1 and ledger.total.unpriced_calls == 1
    assert ledger.iterations == {}, "a call outside the polish loop has no iteration"


@pytest.mark.parametrize(
    ("usage", "why"),
    [
        ({"prompt_tokens": -5, "completion_tokens": 3}, "impossible token count (-5)"),
        ({"prompt_tokens": 10**12, "completion_tokens": 3}, "impossible token count"),
        ({"prompt_tokens": "many", "completion_tokens": 3}, "not a number ('many')"),
        ({"completion_tokens": 3}, "usage without token counts"),
        ({"prompt_tokens": 1, "completion_tokens": 1, "cost": -1}, "impossible cost (-1 USD)"),
        (None, "no usage object"),
    ],
)
def test_nonsense_usage_is_estimated_instead_naming_what_was_wrong(usage: object, why: str) -> None:
    read = from_openai(usage)
    assert read.source == "estimated" and why in read.note


def test_nonsense_from_a_real_server_is_estimated_and_the_answer_kept(
    config: Config, project: Project, server: FakeOpenAI
) -> None:
    _local(config, server.url)
    server.script(Reply("kept", usage={"prompt_tokens": -7, "completion_tokens": 2}))
    assert invoke_agent(config, "local", "y" * 400, _call(project)) == "kept"
    (event,) = _usage_events(project)
    assert event["tokens"] == "estimated" and event["tokens_in"] == 100
    assert "impossible token count (-7)" in str(event["note"])


def test_claude_json_without_usage_is_estimated() -> None:
    assert from_claude({"result": "x"}).source == "estimated"
    assert (
        from_claude({"result": "x", "usage": {"input_tokens": 1, "output_tokens": 2}}).usd is None
    )


def test_a_call_outside_a_project_is_not_recorded(config: Config, tmp_path: Path) -> None:
    config.agents.available["plain"] = CommandAgentSpec(command="cat")
    call = AgentCall(step="doctor-probe", project_dir=tmp_path, phase="doctor")
    invoke_agent(config, "plain", "hello", call)
    assert not (tmp_path / "usage.json").exists()


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 10**15, "completion_tokens": 10**15},
        {"prompt_tokens": -3, "completion_tokens": -9},
        {"prompt_tokens": 5, "completion_tokens": "many"},
        {"prompt_tokens": 5, "completion_tokens": 1.5e300},
    ],
)
def test_absurd_usage_never_fails_the_call_and_is_still_counted(
    config: Config, project: Project, server: FakeOpenAI, usage: dict[str, object], streamed: bool
) -> None:
    _local(config, server.url)
    server.script(Reply("kept", usage=usage, streamed=streamed))
    assert invoke_agent(config, "local", "y" * 400, _call(project)) == "kept"
    (event,) = _usage_events(project)
    assert event["tokens"] == "estimated" and "suspicious" in str(event["note"])
    total = read_usage(project.dir).total
    assert (total.calls, total.tokens_in, total.estimated_calls) == (1, 100, 1)
