"""The HTTP agent against local servers that misbehave as real ones and proxies do: one deadline
for the whole call that nothing the server does can stretch, a byte cap on every answer, and
failures that say what the server did and which setting to change."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import pytest

from tests.fake_openai import HOSTILE, FakeOpenAI, Reply
from thoughtforge.adapters.agents import http_agent
from thoughtforge.adapters.agents.http_agent import HttpReply
from thoughtforge.config import OpenAIAgentSpec
from thoughtforge.errors import FailureKind

DEADLINE = 1.5
GRACE = 3.0
"""The most a call may run past its deadline here: the watchdog's wake-up, a loaded machine."""

EXPECTED = {
    "comments": r"within agents\.call_timeout_seconds \(1\.5 s\): the server sent only \d+ "
    r"keep-alive comment line\(s\) \(such as ': PROCESSING'\) and no reply",
    "trickle": r"within agents\.call_timeout_seconds \(1\.5 s\): the server sent [1-9] of the "
    r"50,000 bytes it announced",
    "silent_after_headers": r"within agents\.call_timeout_seconds \(1\.5 s\): the server sent 0 "
    r"bytes of its reply, then nothing more",
    "silent": r"within agents\.call_timeout_seconds \(1\.5 s\): the server took the request but "
    r"sent no response headers",
    "huge_announced": r"announced a 1,073,741,824-byte reply, over what agents\.max_reply_bytes "
    r"\(10,000\) allows; none of it was read",
    "huge_unannounced": r"reply longer than agents\.max_reply_bytes \(10,000 bytes\): cut at "
    r"85,536 bytes",
    "endless_line": r"a line of the reply's stream is over 85,536 bytes \(agents\.max_reply_bytes "
    r"is 10,000\): cut there",
    "redirect": r"redirected the request \(HTTP 307\) to "
    r"http://elsewhere\.example:8080/v1/chat/completions; redirects are not followed \(the API "
    r"key would go with them\): set agents\.available\.local\.base_url",
    "html": r"an HTML page \('Sign in - Proxy'\), not a chat completion: "
    r"agents\.available\.local\.base_url \(http://127\.0\.0\.1:\d+/v1\) may not be",
    "cut_stream": r"closed the stream mid-reply, after 14 bytes of text",
}
KINDS = {
    "comments": FailureKind.TIMED_OUT,
    "trickle": FailureKind.TIMED_OUT,
    "silent_after_headers": FailureKind.TIMED_OUT,
    "silent": FailureKind.TIMED_OUT,
    "huge_announced": FailureKind.TOO_LARGE,
    "huge_unannounced": FailureKind.TOO_LARGE,
    "endless_line": FailureKind.TOO_LARGE,
    "redirect": FailureKind.REFUSED,
    "html": FailureKind.UNREADABLE,
    "cut_stream": FailureKind.INTERRUPTED,
}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setattr(http_agent, "RETRY_BASE_SECONDS", 0.0)
    with FakeOpenAI() as fake:
        yield fake


def _ask(url: str) -> tuple[HttpReply | None, float]:
    """The answer and the seconds it took; None when the call outlived even the grace (before,
    several of these calls never ended)."""
    spec = OpenAIAgentSpec.model_validate(
        {"type": "openai", "base_url": f"{url}/v1", "model": "tiny", "api_key_env": None}
    )
    answers: list[HttpReply] = []
    started = time.monotonic()
    call = threading.Thread(
        target=lambda: answers.append(
            http_agent.ask_endpoint(
                "local",
                spec,
                "hello",
                schema=None,
                step="plan-review",
                temperature=0.0,
                timeout=DEADLINE,
                max_bytes=10_000,
                on_output=lambda chunk: None,
            )
        ),
        daemon=True,
    )
    call.start()
    call.join(DEADLINE + GRACE)
    return (answers[0] if answers else None), time.monotonic() - started


def test_every_hostile_server_the_fake_plays_is_covered() -> None:
    assert set(EXPECTED) == set(KINDS) == set(HOSTILE)


@pytest.mark.parametrize("behaviour", sorted(HOSTILE))
def test_no_server_behaviour_stretches_the_call_or_its_answer_past_the_limits(
    server: FakeOpenAI, behaviour: str
) -> None:
    """Before: comment lines, a trickled body, silence after the headers each held the call
    forever (the timeout was checked only when a `data:` event came, and httpx's bounds each
    read); a 1 GB JSON body was read whole (890 MB RSS); a 307 ended in "not a chat completion:
    ''"; a proxy's HTML page in "not a chat completion: '<!DOCTYPE html>…'"."""
    server.script(Reply(hostile=behaviour))
    answer, seconds = _ask(server.url)
    assert answer is not None, f"{behaviour}: still running {seconds:.1f} s after its deadline"
    assert seconds < DEADLINE + GRACE
    assert answer.failure is not None
    assert re.search(EXPECTED[behaviour], answer.failure.reason), answer.failure
    assert answer.failure.kind is KINDS[behaviour]
    assert answer.text == ""
