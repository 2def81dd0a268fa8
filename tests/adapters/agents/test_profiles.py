"""One entry per agent CLI serves both kinds of step: its profile picks read-only switches for a
text step and the narrowest write grant for a code build/fix step, the person's own flags after
them; a text step whose own flags grant tools is refused before any call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import AGENTS_DIR
from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.adapters.agents.invoke import overhead_tokens
from thoughtforge.adapters.agents.kinds import CLI_KINDS
from thoughtforge.adapters.agents.switches import tool_granting_flags
from thoughtforge.adapters.agents.write_boundary import landlock_abi
from thoughtforge.config import CommandAgentSpec, Config
from thoughtforge.errors import AgentFailure, AgentRefused, PromptTooLarge
from thoughtforge.models import HaltReason

TEST_COMMAND = ("python", "-m", "pytest", "-q", "-rfE")


@pytest.mark.parametrize("name", sorted(CLI_KINDS))
def test_text_steps_get_read_only_switches_and_code_steps_only_edits_and_the_tests(
    name: str,
) -> None:
    profile = CLI_KINDS[name]
    text, write = profile.flags(None), profile.flags(TEST_COMMAND)
    assert tool_granting_flags(text, name) == []
    granted = tool_granting_flags(write, name)
    assert granted, write
    blanket = {"--dangerously-skip-permissions", "--yolo", "-y", "--full-auto"}
    assert not blanket & set(write)
    assert "--dangerously-bypass-approvals-and-sandbox" not in write


def test_the_write_grant_names_exactly_the_projects_test_command() -> None:
    assert CLI_KINDS["claude"].flags(TEST_COMMAND)[-2:] == [
        "--allowedTools",
        "Bash(python -m pytest -q -rfE:*)",
    ]
    assert CLI_KINDS["gemini"].flags(TEST_COMMAND)[-2:] == [
        "--allowed-tools",
        "run_shell_command(python -m pytest -q -rfE)",
    ]
    assert CLI_KINDS["codex"].flags(TEST_COMMAND) == [
        "exec",
        "--json",
        "--sandbox",
        "workspace-write",
        "-c",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "-c",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
        "-",
    ]
    # Inside ThoughtForge's boundary its own sandbox cannot run: the boundary alone holds it.
    assert CLI_KINDS["codex"].flags(TEST_COMMAND, held=True) == [
        "exec",
        "--json",
        "--sandbox",
        "danger-full-access",
        "-",
    ]
    assert CLI_KINDS["claude"].flags(TEST_COMMAND, held=True) == CLI_KINDS["claude"].flags(
        TEST_COMMAND
    )


def _recorder(config: Config, profile: str, flags: list[str]) -> None:
    """The recorder (it writes its argv and stdin to $RECORD_DIR) posing as a profiled CLI."""
    config.agents.available["cli"] = CommandAgentSpec(
        command=str(AGENTS_DIR / "record_stdin.py"),
        profile=profile,
        flags=flags,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "flags",
    [
        ["--approve-for-me"],
        ["--add-dir", "/"],
        ["-c", "sandbox_mode=workspace-write"],
        ["-sdanger-full-access"],  # clap's attached values: read as codex reads them
        ["-csandbox_mode=danger-full-access"],
        ["--yolo"],
    ],
)
def test_a_text_step_with_flags_that_grant_tools_is_refused_before_any_call(
    config: Config, tmp_path: Path, record_dir: Path, flags: list[str]
) -> None:
    _recorder(config, "codex", flags)
    call = AgentCall(step="brain-dump-intake", project_dir=tmp_path, phase="distilling")
    with pytest.raises(AgentRefused) as refused:
        invoke_agent(config, "cli", "prompt", call)
    assert refused.value.halt_reason is HaltReason.AGENT_FAILURE
    said = str(refused.value)
    assert flags[0][:2] in said and "agents.available.cli.flags" in said
    assert not (record_dir / "argv.json").exists()


def test_the_persons_flags_follow_the_profiles_on_either_kind_of_step(
    config: Config, tmp_path: Path, record_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A text step leaves the project read-only: the recorder writes where Codex may, its home.
    monkeypatch.setenv("CODEX_HOME", str(record_dir))
    _recorder(config, "codex", ["-m", "o4-mini"])
    call = AgentCall(step="code-build", project_dir=tmp_path, phase="building")
    writing = call.model_copy(update={"test_command": TEST_COMMAND})
    with pytest.raises(AgentFailure, match="expected Codex JSON events"):  # it prints none
        invoke_agent(config, "cli", "prompt", writing, 1)
    argv = json.loads((record_dir / "argv.json").read_text())
    held = landlock_abi() > 0  # this kernel's: Codex's own sandbox cannot run inside it
    assert argv == [*CLI_KINDS["codex"].flags(TEST_COMMAND, held), "-m", "o4-mini"]
    with pytest.raises(AgentFailure):
        invoke_agent(config, "cli", "prompt", call, 1)
    argv = json.loads((record_dir / "argv.json").read_text())
    assert argv == [*CLI_KINDS["codex"].flags(None), "-m", "o4-mini"]


def test_the_clis_own_overhead_counts_in_the_window_check(config: Config, tmp_path: Path) -> None:
    _recorder(config, "claude", [])
    spec = config.agent("cli")
    assert overhead_tokens(spec) == CLI_KINDS["claude"].overhead_tokens
    config.agents.available["cli"] = spec.model_copy(
        update={"context_window_tokens": CLI_KINDS["claude"].overhead_tokens + 100}
    )
    call = AgentCall(step="plan-review", project_dir=tmp_path, phase="polishing")
    with pytest.raises(PromptTooLarge):
        invoke_agent(config, "cli", "word " * 200, call)


@pytest.mark.parametrize("name", sorted(CLI_KINDS))
def test_a_cli_without_a_login_is_named_with_the_command_that_fixes_it(
    name: str, tmp_path: Path
) -> None:
    why = CLI_KINDS[name].missing_login({"HOME": str(tmp_path)})
    assert why is not None and CLI_KINDS[name].login_hint in why
    assert CLI_KINDS[name].missing_login({CLI_KINDS[name].key_variables[0]: "k"}) is None


def test_a_codex_login_file_counts_as_a_login(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text("{}")
    assert CLI_KINDS["codex"].missing_login({"CODEX_HOME": str(tmp_path)}) is None
