"""What the real CLIs printed (captured from claude 2.1.328, codex 0.171.0 and gemini 0.61.0
against the fake model API) read into an answer, its usage, an API error or a refusal."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from thoughtforge.adapters.agents.call_usage import CallUsage, measuring
from thoughtforge.adapters.agents.kinds import normalise
from thoughtforge.adapters.agents.kinds.claude import watch_claude_stream
from thoughtforge.adapters.agents.kinds.gemini import GEMINI_BUILD_FILES
from thoughtforge.adapters.agents.output import AgentOutputError, CliApiError, CliRefusal
from thoughtforge.adapters.agents.process import StopReading
from thoughtforge.errors import AgentFailure, AttemptFailure, FailureKind

OUTPUTS = Path(__file__).parents[2] / "agents" / "cli_outputs"


def _read(name: str) -> str:
    return (OUTPUTS / name).read_text()


def _reading(
    form: str, stdout: str, stderr: str = "", writes: bool = False
) -> tuple[str, CallUsage]:
    with measuring() as reports:
        answer = normalise(form, stdout, stderr, writes)
    [usage] = reports
    return answer, usage


def test_claudes_denied_edits_refuse_a_step_that_writes_and_name_what_was_denied() -> None:
    stdout = _read("claude-wander.stdout")
    with measuring() as reports, pytest.raises(CliRefusal) as refused:
        normalise("claude_json", stdout, "", writes=True)
    assert str(refused.value) == "Claude Code was refused Write /etc/tf-denied.txt"
    assert reports[0].tokens_in == 64516  # the refused call was paid for and is counted
    # On a text step a denied tool does not matter: the answer is the text.
    answer, _ = _reading("claude_json", stdout)
    assert answer.startswith("Built calc.py")


def test_claudes_api_error_is_reported_in_its_own_words() -> None:
    with pytest.raises(CliApiError, match="Prompt is too long · the request is ~999999 tokens"):
        normalise("claude_json", _read("claude-400.stdout"))


def test_claudes_usage_sums_every_model_it_used() -> None:
    payload = {
        "result": "ok",
        "total_cost_usd": 0.5,
        "usage": {"input_tokens": 10, "output_tokens": 1},
        "modelUsage": {
            "big": {"inputTokens": 100, "cacheReadInputTokens": 50, "outputTokens": 7},
            "small": {"inputTokens": 20, "outputTokens": 3},
        },
    }
    _, usage = _reading("claude_json", json.dumps(payload))
    assert (usage.tokens_in, usage.tokens_out, usage.usd) == (170, 10, 0.5)


def test_codex_events_give_the_last_message_and_every_turns_usage() -> None:
    events = [
        {"type": "thread.started"},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "first"}},
        {"type": "turn.completed", "usage": {"input_tokens": 100, "output_tokens": 5}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": " the answer "}},
        {"type": "turn.completed", "usage": {"input_tokens": 200, "output_tokens": 7}},
    ]
    stdout = "\n".join(json.dumps(e) for e in events)
    answer, usage = _reading("codex_jsonl", stdout)
    assert answer == "the answer"
    assert (usage.tokens_in, usage.tokens_out, usage.usd, usage.source) == (
        300,
        12,
        None,
        "reported",
    )


def test_codexs_sandbox_refusal_on_stderr_refuses_a_step_that_writes() -> None:
    stdout, stderr = _read("codex-readonly.stdout"), _read("codex-readonly.stderr")
    with pytest.raises(CliRefusal, match="patch rejected: writing is blocked by read-only sandbox"):
        normalise("codex_jsonl", stdout, stderr, writes=True)
    answer, usage = _reading("codex_jsonl", stdout, stderr)
    assert answer.startswith("Built calc.py") and usage.tokens_in == 63454


def test_codexs_failed_turn_is_reported_with_the_apis_message() -> None:
    with pytest.raises(CliApiError) as failed:
        normalise("codex_jsonl", _read("codex-400.stdout"))
    assert str(failed.value) == (
        "Codex reported an error: prompt is too long: 999999 tokens > 200000 maximum"
    )


def test_gemini_json_gives_the_response_and_every_models_tokens() -> None:
    answer, usage = _reading("gemini_json", _read("gemini-build.stdout"))
    assert answer.startswith("Built calc.py")
    assert (usage.tokens_in, usage.tokens_out) == (49073, 103)  # its router's calls too


def test_geminis_error_object_on_stderr_is_reported_with_the_apis_message() -> None:
    with pytest.raises(CliApiError) as failed:
        normalise("gemini_json", "", _read("gemini-400.stderr"))
    assert str(failed.value) == (
        "Gemini CLI reported an error: 400 prompt is too long: 999999 tokens > 200000 maximum"
    )


def test_geminis_missing_tool_refuses_a_step_that_writes() -> None:
    stderr = 'Error executing tool: Tool "write_file" not found in registry.\n'
    with pytest.raises(CliRefusal, match='Tool "write_file" not found'):
        normalise("gemini_json", _read("gemini-build.stdout"), stderr, writes=True)


@pytest.mark.parametrize("form", ["claude_json", "codex_jsonl", "gemini_json"])
def test_output_that_is_not_the_forms_is_unreadable(form: str) -> None:
    with pytest.raises(AgentOutputError):
        normalise(form, "plain words")


@pytest.mark.parametrize("form", ["claude_json", "claude_stream", "codex_jsonl", "gemini_json"])
def test_an_answer_nested_100000_deep_is_unreadable_not_a_recursion_error(form: str) -> None:
    """Before, the claude and gemini readers raised `RecursionError` (a traceback)."""
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(AgentOutputError):
        normalise(form, deep, deep)
    # inside an object: unreadable, or (Codex's events) an event that says nothing
    with contextlib.suppress(AgentOutputError):
        assert normalise(form, '{"result": ' + deep + "}", "{" + '"error": ' * 50_000) == ""


@pytest.mark.parametrize(
    ("form", "stdout", "stderr", "words"),
    [
        ("claude_json", "claude-wander.stdout", None, "Claude Code was refused Write /etc/"),
        (
            "codex_jsonl",
            "codex-readonly.stdout",
            "codex-wander.stderr",
            "patch rejected: writing outside of the project",
        ),
        ("gemini_json", "gemini-build.stdout", "gemini-wander.stderr", "Path not in workspace"),
    ],
)
def test_a_write_outside_the_project_refuses_the_step(
    form: str, stdout: str, stderr: str | None, words: str
) -> None:
    with pytest.raises(CliRefusal, match=words):
        normalise(form, _read(stdout), _read(stderr) if stderr else "", writes=True)


def test_a_denied_look_around_command_does_not_refuse_claudes_step() -> None:
    """Only denied edits mean the work was not done; a denied `ls` is the agent looking."""
    payload = json.loads(_read("claude-denied.stdout"))  # Bash denied, the files written
    assert normalise("claude_json", json.dumps(payload), "", writes=True).startswith("Built")


def test_a_clis_colours_never_reach_a_halt_message() -> None:
    """Gemini CLI's trust refusal, as it prints it (red), read into an attempt's failure."""
    printed = "\x1b[31mGemini CLI is not running in a trusted directory.\x1b[0m\x1b]0;title\x07"
    failure = AttemptFailure(kind=FailureKind.EXITED, reason=f"exit code 55: {printed}")
    assert failure.reason == "exit code 55: Gemini CLI is not running in a trusted directory."
    assert "\x1b" not in str(AgentFailure("gemini", "plan-review", [failure]))


def test_claudes_retry_of_a_refused_login_stops_the_call_at_once() -> None:
    """Claude Code retries a 401 for minutes; its stream says so at the first retry."""
    watch = watch_claude_stream()
    stream = _read("claude-401.stream").encode()
    watch(b'{"type": "system", "subtype": "init"}\n' + stream[:10])  # a line in two pieces
    with pytest.raises(StopReading) as stopped:
        watch(stream[10:])
    assert str(stopped.value) == "Claude Code's API refused its login (401 authentication_failed)"


def test_claudes_stream_answers_with_its_result_event() -> None:
    result = json.loads(_read("claude-wander.stdout"))
    stream = "\n".join(
        json.dumps(event)
        for event in ({"type": "system", "subtype": "init"}, {"type": "assistant"}, result)
    )
    answer, usage = _reading("claude_stream", stream)
    assert answer.startswith("Built calc.py") and usage.tokens_in == 64516
    with pytest.raises(CliRefusal, match=r"refused Write /etc/tf-denied\.txt"):
        normalise("claude_stream", stream, "", writes=True)


def test_claudes_json_is_read_by_the_stream_reader_too() -> None:
    """The profile's code steps ask for `json` (a build's stream would be large)."""
    answer, _ = _reading("claude_stream", _read("claude-wander.stdout"))
    assert answer.startswith("Built calc.py")


@pytest.mark.parametrize(
    ("form", "stdout", "stderr"),
    [("codex_jsonl", "codex-401.stdout", ""), ("gemini_json", "", "gemini-401.stderr")],
)
def test_a_refused_key_is_told_apart_from_other_api_errors(
    form: str, stdout: str, stderr: str
) -> None:
    with pytest.raises(CliApiError) as failed:
        normalise(form, _read(stdout) if stdout else "", _read(stderr) if stderr else "")
    assert failed.value.login_refused and failed.value.status == 401
    with pytest.raises(CliApiError) as other:
        normalise("codex_jsonl", _read("codex-400.stdout"))
    assert not other.value.login_refused


def test_geminis_refusal_of_build_files_says_what_helps() -> None:
    """Headless Gemini CLI denies pyproject.toml & co. by a rule no grant lifts."""
    stderr = _read("gemini-build-file.stderr")
    with pytest.raises(CliRefusal, match="Modifying build configuration files") as refused:
        normalise("gemini_json", _read("gemini-build.stdout"), stderr, writes=True)
    assert refused.value.fix == GEMINI_BUILD_FILES
