"""A CLI is told how many of its own retries of an overloaded API fit in the call's deadline
where a setting bounds them: Claude Code by `CLAUDE_CODE_MAX_RETRIES`. Codex bounds its own
(four requests, five reconnects, 30 s in all); Gemini CLI's are ended by the deadline alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.adapters.agents.kinds import CLI_KINDS


@pytest.mark.parametrize("name", sorted(CLI_KINDS))
def test_the_retries_a_cli_is_allowed_wait_at_most_half_the_deadline(name: str) -> None:
    kind = CLI_KINDS[name]
    for seconds in (1.0, 20.0, 40.0, 300.0, 3600.0):
        retries = kind.retries_within(seconds)
        assert sum(kind.retry_waits[:retries]) <= seconds / 2
        assert retries == len(kind.retry_waits) or sum(kind.retry_waits[: retries + 1]) > (
            seconds / 2
        )


def test_claude_code_is_told_its_retries_and_a_lower_setting_of_the_persons_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = CLI_KINDS["claude"]
    monkeypatch.delenv("CLAUDE_CODE_MAX_RETRIES", raising=False)
    assert claude.retry_environment(300, tmp_path) == {"CLAUDE_CODE_MAX_RETRIES": "8"}
    assert claude.retry_environment(20, tmp_path) == {"CLAUDE_CODE_MAX_RETRIES": "4"}
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "2")
    assert claude.retry_environment(300, tmp_path) == {"CLAUDE_CODE_MAX_RETRIES": "2"}
