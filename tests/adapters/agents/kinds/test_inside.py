"""What happened inside each real CLI during a call, read from what it printed (captured from
claude 2.1.328, codex 0.171.0 and gemini 0.61.0 against the fake model API: a 429 once, a 503
every time, a model that runs `rm -rf ~/canary`), in the words the log and the chat show."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.adapters.agents.kinds import CLI_KINDS

OUTPUTS = Path(__file__).parents[3] / "agents" / "cli_outputs"


def _inside(cli: str, stdout: str = "", stderr: str = "") -> list[str]:
    read = [(OUTPUTS / name).read_text() if name else "" for name in (stdout, stderr)]
    return CLI_KINDS[cli].inside(*read)


def test_claude_codes_retries_and_denied_command_are_told() -> None:
    assert _inside("claude", "claude-429-rm.stream") == [
        "the agent retried once after 429 Too Many Requests",
        "the agent's `rm -rf ~/canary` was refused by Claude Code's permissions",
    ]


def test_a_claude_code_steps_json_tells_its_denied_edits() -> None:
    assert _inside("claude", "claude-wander.stdout") == [
        "the agent's `Write /etc/tf-denied.txt` was refused by Claude Code's permissions"
    ]


def test_codexs_reconnects_are_counted_by_their_cause() -> None:
    assert _inside("codex", "codex-503.stdout") == [
        "the agent retried 5 times after 503 Service Unavailable"
    ]


def test_codex_stopping_at_a_429_it_does_not_retry_is_told() -> None:
    assert _inside("codex", "codex-429.stdout") == [
        "the agent's CLI stopped at the first 429 Too Many Requests: Codex does not retry it"
    ]


def test_codexs_rejected_command_is_told_from_its_stderr() -> None:
    assert _inside("codex", "codex-rm.stdout", "codex-rm.stderr") == [
        "the agent's `rm -rf ~/canary` was refused by Codex (rm -f style commands are not "
        "permitted. Use a safer approach)"
    ]


def test_gemini_clis_retries_and_policy_denial_are_told_from_its_stderr() -> None:
    assert _inside("gemini", "gemini-build.stdout", "gemini-429-rm.stderr") == [
        "the agent retried once after 429 Too Many Requests",
        "the agent's `run_shell_command` was refused by Gemini CLI (Tool execution denied by "
        "policy)",
    ]


@pytest.mark.parametrize("cli", sorted(CLI_KINDS))
def test_a_call_where_nothing_happened_tells_nothing(cli: str) -> None:
    assert CLI_KINDS[cli].inside("", "") == []
