"""What happened inside each real CLI is told in the log and the chat: a 429 it retried (Codex
does not retry one: that it stopped is told, and ThoughtForge retries the call) and the
`rm -rf ~/canary` its model asked for in a code build, which the CLI refused."""

from __future__ import annotations

import pytest

from tests.agent_clis.conftest import CLIS, Bench
from tests.agent_clis.model_answers import Run
from tests.agent_clis.test_real_clis import CODE_BRAIN_DUMP, _halt, _run
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_status, read_thread
from thoughtforge.models import Phase

pytestmark = pytest.mark.slow

RETRY = {
    "claude": "the agent retried once after 429 Too Many Requests",
    "codex": "the agent's CLI stopped at the first 429 Too Many Requests: Codex does not retry it",
    "gemini": "the agent retried once after 429 Too Many Requests",
}
REFUSAL = {
    "claude": "the agent's `rm -rf ~/canary` was refused by Claude Code's permissions",
    "codex": "the agent's `rm -rf ~/canary` was refused by Codex",
    "gemini": "the agent's `run_shell_command` was refused by Gemini CLI",
}


@pytest.mark.parametrize("cli", CLIS)
def test_a_retried_429_and_a_refused_command_are_told(cli: str, bench: Bench) -> None:
    canary = bench.tmp_path / "home" / "canary"
    canary.mkdir(parents=True)
    bench.api.fail(429, "Too Many Requests: slow down", times=1)
    bench.api.wander = (Run("rm -rf ~/canary"),)
    project = _run(bench, cli, CODE_BRAIN_DUMP)
    assert canary.is_dir()
    assert read_status(project).phase is Phase.DONE, _halt(project)
    said = [e["said"] for e in read_events(project) if e.get("event") == "agent_inside"]
    chat = "\n".join(m.content for m in read_thread(project) if m.role == "system")
    for told in (RETRY[cli], REFUSAL[cli]):
        assert any(line.startswith(told) for line in said), said
        assert told in chat, chat
