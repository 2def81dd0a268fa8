"""The HTTP agent against a real local server that answers as OpenAI's API does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI, Reply
from thoughtforge.adapters.agents import AgentCall, http_agent, invoke_agent
from thoughtforge.config import Config, OpenAIAgentSpec
from thoughtforge.core.agent_activity import STREAM_FILE, call_in_flight
from thoughtforge.core.creation import create_project
from thoughtforge.core.project_log import read_events
from thoughtforge.errors import AgentFailure, PromptTooLarge, ReplyCutOff

SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}
KEY = "sk-test-very-secret-4242"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setattr(http_agent, "RETRY_BASE_SECONDS", 0.0)
    with FakeOpenAI() as fake:
        yield fake


def _local(config: Config, url: str, **settings: object) -> None:
    values = {"type": "openai", "base_url": f"{url}/v1", "model": "tiny", **settings}
    config.agents.available["local"] = OpenAIAgentSpec.model_validate(values)


def _call(project_dir: Path, **extra: object) -> AgentCall:
    return AgentCall(step="plan-review", project_dir=project_dir, phase="polishing", **extra)


def test_the_answer_streams_in_pieces_and_the_call_is_recorded_while_in_flight(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url, temperature=0.0, max_tokens=64)
    server.script(Reply("The answer, streamed in five pieces.", chunks=5))
    pieces: list[bytes] = []
    spec = config.agent("local")
    assert isinstance(spec, OpenAIAgentSpec)
    answer = http_agent.ask_endpoint(
        "local",
        spec,
        "hello",
        schema=None,
        step="plan-review",
        temperature=0.0,
        timeout=5,
        max_bytes=10_000,
        on_output=pieces.append,
    )
    assert answer.text == "The answer, streamed in five pieces."
    assert len(pieces) == 5 and b"".join(pieces).decode() == answer.text

    assert invoke_agent(config, "local", "hello", _call(tmp_path)) == answer.text
    body = server.bodies[-1]
    assert body["model"] == "tiny" and body["stream"] is True and body["max_tokens"] == 64
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert "response_format" not in body
    assert call_in_flight(tmp_path) is None and not (tmp_path / STREAM_FILE).exists()
    (event,) = [e for e in read_events(tmp_path) if e["event"] == "agent_call"]
    assert event["agent"] == "local" and event["failure"] is None


def test_a_server_that_does_not_stream_is_read_whole(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    """Some servers ignore `stream`: the answer is the whole completion body."""
    _local(config, server.url)
    server.script(Reply("whole", streamed=False))
    assert invoke_agent(config, "local", "x", _call(tmp_path)) == "whole"


def test_429_and_500_are_retried_and_retry_after_is_honoured(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url)
    server.script(
        Reply(status=429, error="rate limited", headers={"Retry-After": "0"}),
        Reply(status=500, error="overloaded"),
        Reply(status=503, error="warming up"),
        Reply("finally"),
    )
    assert invoke_agent(config, "local", "x", _call(tmp_path)) == "finally"
    assert len(server.requests) == 4


def test_a_server_that_keeps_failing_is_one_failed_attempt_per_retry_budget(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url)
    server.script(Reply(status=502, error="bad gateway"))
    with pytest.raises(AgentFailure, match="HTTP 502: bad gateway") as caught:
        invoke_agent(config, "local", "x", _call(tmp_path))
    assert len(caught.value.attempts) == 2
    assert len(server.requests) == 2 * (http_agent.MAX_RETRIES + 1)


def test_a_client_error_is_not_retried_and_says_what_the_server_said(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url, model="no-such-model")
    server.script(Reply(status=404, error="model 'no-such-model' not found"))
    with pytest.raises(AgentFailure, match="HTTP 404: model 'no-such-model' not found"):
        invoke_agent(config, "local", "x", _call(tmp_path))
    assert len(server.requests) == 2  # one per attempt, no retries


def test_nothing_listening_is_reported_with_the_address(config: Config, tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        url = fake.url
    _local(config, url)
    config.agents.call_timeout_seconds = 2
    with pytest.raises(AgentFailure, match=f"cannot reach {url}/v1"):
        invoke_agent(config, "local", "x", _call(tmp_path))


def test_a_cut_off_answer_is_reported_as_cut_off_with_its_token_count(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url, max_tokens=40)
    server.script(
        Reply('{"issues": [{"severity": "crit', finish_reason="length", completion_tokens=40)
    )
    with pytest.raises(ReplyCutOff, match="reply cut off at 40 tokens") as caught:
        invoke_agent(config, "local", "x", _call(tmp_path))
    assert "agents.available.local.max_tokens" in str(caught.value)


def test_a_json_step_sends_its_schema_in_the_configured_form(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    server.script(Reply('{"verdict": "pass"}'))
    _local(config, server.url)
    invoke_agent(config, "local", "x", _call(tmp_path, reply_schema=SCHEMA))
    form = server.bodies[-1]["response_format"]
    assert form == {"type": "json_schema", "json_schema": {"name": "plan-review", "schema": SCHEMA}}

    _local(config, server.url, structured_output="json_object")
    invoke_agent(config, "local", "x", _call(tmp_path, reply_schema=SCHEMA))
    assert server.bodies[-1]["response_format"] == {"type": "json_object", "schema": SCHEMA}

    _local(config, server.url, structured_output="json_object", max_string_chars=50)
    listed = {
        "type": "object",
        "properties": {
            "reasons": {"type": "array", "items": {"type": "string"}},
            "why": {"type": "string", "maxLength": 2000},
            "id": {"type": "string", "maxLength": 20},
        },
    }
    invoke_agent(config, "local", "x", _call(tmp_path, reply_schema=listed))
    sent = server.bodies[-1]["response_format"]["schema"]["properties"]
    assert sent["reasons"] == {
        "type": "array",
        "items": {"type": "string", "maxLength": 50},
        "maxItems": 8,
    }
    # A looser limit of the answer's own is lowered to the server's; a tighter one is kept.
    assert sent["why"]["maxLength"] == 50
    assert sent["id"]["maxLength"] == 20

    _local(config, server.url, structured_output="none")
    invoke_agent(config, "local", "x", _call(tmp_path, reply_schema=SCHEMA))
    assert "response_format" not in server.bodies[-1]


def test_a_markdown_step_sends_a_grammar_of_its_sections_only_where_asked(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    sections = ("Objective", 'Say "hi"')
    _local(config, server.url, section_grammar=True)
    invoke_agent(config, "local", "x", _call(tmp_path, sections=sections))
    grammar = server.bodies[-1]["grammar"]
    assert grammar.startswith("root ::= section0 section1\n")
    assert 'section1 ::= "## Say \\"hi\\"\\n" line{1,4} "\\n"' in grammar

    _local(config, server.url)
    invoke_agent(config, "local", "x", _call(tmp_path, sections=sections))
    assert "grammar" not in server.bodies[-1]


def test_a_refused_response_format_names_the_setting_to_change(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_agent, "RETRY_BASE_SECONDS", 0.0)
    with FakeOpenAI(refuse_json_schema=True) as server:
        _local(config, server.url)
        with pytest.raises(AgentFailure) as caught:
            invoke_agent(config, "local", "x", _call(tmp_path, reply_schema=SCHEMA))
        message = str(caught.value)
        assert "the server refused structured output" in message
        assert "agents.available.local.structured_output to json_object" in message
        assert len(server.requests) == 2, "a refusal is not retried as a 500 would be"


def test_temperature_rises_with_each_retry_and_re_ask(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url, temperature=0.0)
    server.script(Reply("", finish_reason="stop"), Reply("second"))
    invoke_agent(config, "local", "x", _call(tmp_path))
    invoke_agent(config, "local", "x", _call(tmp_path, reask=1))
    assert [b["temperature"] for b in server.bodies] == pytest.approx([0.0, 0.3, 0.3])


def test_the_key_is_sent_but_never_in_an_error_a_log_or_a_file(
    config: Config, tmp_path: Path, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_OPENAI_KEY", KEY)
    _local(config, server.url, api_key_env="TEST_OPENAI_KEY")
    project = create_project(config, brain_dump="x")
    server.script(Reply(status=401, error=f"Incorrect API key provided: {KEY}"))
    with pytest.raises(AgentFailure) as caught:
        invoke_agent(config, "local", "x", _call(project.dir))
    assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"
    assert "HTTP 401: Incorrect API key provided: ***" in str(caught.value)
    assert KEY not in str(caught.value)
    for path in project.dir.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_a_missing_key_variable_fails_without_calling_the_server(
    config: Config, tmp_path: Path, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEST_OPENAI_KEY", raising=False)
    _local(config, server.url, api_key_env="TEST_OPENAI_KEY")
    with pytest.raises(AgentFailure, match="environment variable TEST_OPENAI_KEY is not set"):
        invoke_agent(config, "local", "x", _call(tmp_path))
    assert server.requests == []


def test_a_prompt_that_leaves_no_room_for_the_answer_is_refused_before_any_call(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url, context_window_tokens=512, max_tokens=256)
    with pytest.raises(PromptTooLarge) as caught:
        invoke_agent(config, "local", "word " * 300, _call(tmp_path))
    assert "context window (512 tokens, 256 of them kept for the reply)" in str(caught.value)
    assert "agents.available.local.context_window_tokens" in str(caught.value)
    assert server.requests == []


def test_an_agent_exiting_0_with_nothing_on_stdout_keeps_its_stderr(
    config: Config, tmp_path: Path
) -> None:
    config.agents.available["wrapper"] = config.agent("demo").model_copy(
        update={"command": "sh", "flags": ["-c", "echo 'curl: (7) Failed to connect' >&2"]}
    )
    with pytest.raises(AgentFailure, match=r"empty output: curl: \(7\) Failed to connect"):
        invoke_agent(config, "wrapper", "x", _call(tmp_path))


def test_config_rejects_an_answer_room_as_large_as_the_window() -> None:
    with pytest.raises(ValueError, match="must be smaller than context_window_tokens"):
        OpenAIAgentSpec.model_validate(
            {
                "type": "openai",
                "base_url": "http://127.0.0.1:1/v1",
                "model": "m",
                "context_window_tokens": 512,
                "max_tokens": 512,
            }
        )


@pytest.mark.parametrize("streamed", [True, False])
def test_lone_surrogates_from_the_server_become_replacement_characters(
    config: Config, tmp_path: Path, server: FakeOpenAI, streamed: bool
) -> None:
    """JSON's `\\ud800` decodes to a lone surrogate that no UTF-8 file can hold: the answer
    is kept, with U+FFFD in its place, in the reply, the project's files and its log."""
    project = create_project(config, brain_dump="a plan")
    _local(config, server.url)
    server.script(Reply("Budget \ud800 of 12k \udfff.", streamed=streamed, chunks=2))

    answer = invoke_agent(config, "local", "x", _call(project.dir))

    assert answer == "Budget \ufffd of 12k \ufffd."
    answer.encode("utf-8")  # writable anywhere
    assert [e for e in read_events(project.dir) if e["event"] == "agent_call"]


def test_a_server_sending_wrong_types_in_its_events_still_gives_its_answer(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _local(config, server.url)
    server.script(Reply("fine", finish_reason=7, completion_tokens="many"))  # type: ignore[arg-type]
    assert invoke_agent(config, "local", "x", _call(tmp_path)) == "fine"
