from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from thoughtforge.adapters.agents.switches import tool_granting_flags
from thoughtforge.config import CommandAgentSpec, Config
from thoughtforge.models import DeliverableType
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.phases.safety import (
    Operation,
    OperationKind,
    SafetyViolation,
    classify_agent_call,
    classify_write,
)
from thoughtforge.plugins.plan import safety as plan_safety

CLAUDE_TEXT_ONLY = ["-p", "--output-format", "json"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "projects" / "p1"
    (path / "docs").mkdir(parents=True)
    return path


def _plan_write(project: Path, target: str | Path) -> None:
    plan_safety.validate(classify_write(project, Path(target)))


# --- classification ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("docs/plan.md", OperationKind.WRITE_DOC),
        ("docs/archive/plan-v1.MD", OperationKind.WRITE_DOC),
        ("status.json", OperationKind.WRITE_STATE),
        ("polish_state.json", OperationKind.WRITE_STATE),
        ("chat_history.json", OperationKind.WRITE_STATE),
        ("polish_log.md", OperationKind.WRITE_STATE),
        ("src/app.py", OperationKind.WRITE_SOURCE),
        ("index.js", OperationKind.WRITE_SOURCE),
        ("scripts/deploy.sh", OperationKind.WRITE_SOURCE),
        ("package.json", OperationKind.WRITE_SOURCE),
        ("README.md", OperationKind.WRITE_SOURCE),
        ("docs/plan.html", OperationKind.WRITE_SOURCE),
        ("docs/status.json", OperationKind.WRITE_SOURCE),
        ("docs", OperationKind.WRITE_SOURCE),
    ],
)
def test_writes_are_classified_by_place_and_extension(
    project: Path, target: str, kind: OperationKind
) -> None:
    operation = classify_write(project, Path(target))
    assert (operation.kind, operation.path) == (kind, PurePosixPath(target))


def test_absolute_path_inside_the_project_becomes_relative(project: Path) -> None:
    operation = classify_write(project, project / "docs" / ".." / "docs" / "plan.md")
    assert operation == Operation(kind=OperationKind.WRITE_DOC, path=PurePosixPath("docs/plan.md"))


@pytest.mark.parametrize("target", ["../escape.md", "docs/../../escape.md", "/etc/passwd"])
def test_paths_leaving_the_project_stay_visibly_outside(project: Path, target: str) -> None:
    operation = classify_write(project, Path(target))
    assert operation.escapes_project
    assert operation.path is not None and operation.path.is_absolute()


def test_a_symlink_out_of_the_project_is_followed(project: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (project / "docs" / "shared").symlink_to(tmp_path / "elsewhere")
    operation = classify_write(project, Path("docs/shared/plan.md"))
    assert operation.escapes_project
    assert operation.path == PurePosixPath((tmp_path / "elsewhere" / "plan.md").resolve())


@pytest.mark.parametrize(
    "flags",
    [
        ["-p", "--dangerously-skip-permissions"],
        ["-p", "--allowedTools", "Bash(git:*) Edit"],
        ["-p", "--allowed-tools=Edit"],
        ["-p", "--permission-mode", "acceptEdits"],
        ["-p", "--permission-mode=bypassPermissions"],
        ["-p", "--permission-mode"],
        ["exec", "--full-auto"],
        ["exec", "--dangerously-bypass-approvals-and-sandbox"],
        ["exec", "--sandbox", "workspace-write"],
        ["exec", "-s", "danger-full-access"],
        ["exec", "--sandbox=workspace-write"],
        ["exec", "-c", 'sandbox_mode="danger-full-access"'],
        ["exec", "--approve-for-me"],  # codex 0.171: a workspace-write sandbox
        ["exec", "--add-dir", "/srv"],
        ["exec", "--trust"],
        ["-p", "--add-dir=/srv"],
        ["-p", "--permission-mode", "auto"],
        ["-p", "--settings", '{"permissions": {"defaultMode": "acceptEdits"}}'],
        ["-p", "--settings", '{"permissions": {"allow": ["Bash(rm:*)"]}}'],
        ["-p", "--settings", "/nonexistent/settings.json"],  # unreadable: cannot be trusted
        ["--include-directories", "/srv", "-p", ""],
        ["--policy", "allow-all.toml", "-p", ""],
        ["--yolo", "-p", ""],
        ["-y", "-p", ""],
        ["--approval-mode", "yolo"],
        ["--approval-mode=auto_edit"],
    ],
)
def test_flags_that_give_an_agent_tools_are_detected(flags: list[str]) -> None:
    operation = classify_agent_call(CommandAgentSpec(command="agent", flags=flags))
    assert operation.kind is OperationKind.INVOKE_AGENT_WITH_TOOLS
    assert operation.agent_flags == tuple(flags)
    assert tool_granting_flags(flags)


@pytest.mark.parametrize(
    "flags",
    [
        [],
        CLAUDE_TEXT_ONLY,
        ["exec"],
        ["-p", ""],
        ["-p", "--permission-mode", "plan"],
        ["--approval-mode=default"],
        ["-p", "--permission-mode", "dontAsk"],
        ["-p", "--settings", '{"model": "opus", "permissions": {"deny": ["Bash"]}}'],
        ["exec", "--sandbox", "read-only"],
        ["exec", "-c", "model=o4-mini"],
        ["--model", "sonnet", "-s", "quiet"],
    ],
)
def test_text_only_agents_are_plain_invocations(flags: list[str]) -> None:
    operation = classify_agent_call(CommandAgentSpec(command="agent", flags=flags))
    assert operation.kind is OperationKind.INVOKE_AGENT
    assert tool_granting_flags(flags) == []


def test_granting_flags_are_named_with_their_values() -> None:
    flags = ["-p", "--permission-mode", "acceptEdits", "--sandbox=workspace-write", "-y"]
    assert tool_granting_flags(flags) == [
        "--permission-mode acceptEdits",
        "--sandbox workspace-write",
        "-y",
    ]


# --- plan mode rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target", ["docs/plan.md", "status.json", "polish_state.json", "polish_log.md"]
)
def test_plan_mode_allows_documents_and_state(project: Path, target: str) -> None:
    _plan_write(project, target)
    _plan_write(project, project / target)


@pytest.mark.parametrize(
    "flags", [[], CLAUDE_TEXT_ONLY, ["exec"], ["-p", ""], ["--permission-mode", "plan"]]
)
def test_plan_mode_allows_text_only_agents(flags: list[str]) -> None:
    plan_safety.validate(classify_agent_call(CommandAgentSpec(command="claude", flags=flags)))


@pytest.mark.parametrize("target", ["src/app.py", "build.sh", "package.json", "docs/app.js"])
def test_plan_mode_refuses_source_files(project: Path, target: str) -> None:
    with pytest.raises(SafetyViolation) as refused:
        _plan_write(project, target)
    assert str(refused.value) == (
        f"refused write_source of '{target}': plan mode writes only .md documents under docs/ "
        "and the project's state files"
    )


@pytest.mark.parametrize("target", ["../escape.md", "docs/../../escape.md", "/tmp/plan.md"])
def test_plan_mode_refuses_writes_outside_the_project(project: Path, target: str) -> None:
    with pytest.raises(SafetyViolation, match="leads outside the project directory"):
        _plan_write(project, target)


@pytest.mark.parametrize("path", ["../escape.md", "/home/me/plan.md", "docs/../../x.md"])
def test_plan_mode_refuses_unclassified_escaping_paths_too(path: str) -> None:
    operation = Operation(kind=OperationKind.WRITE_DOC, path=PurePosixPath(path))
    with pytest.raises(SafetyViolation, match=f"refused write_doc of '{path}': the path leads"):
        plan_safety.validate(operation)


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        (OperationKind.RUN_SHELL, "plan mode never runs shell commands"),
        (OperationKind.INSTALL_PACKAGE, "plan mode never installs packages"),
        (OperationKind.RUN_TESTS, "plan mode never runs tests"),
    ],
)
def test_plan_mode_refuses_execution(kind: OperationKind, reason: str) -> None:
    with pytest.raises(SafetyViolation, match=f"refused {kind}: {reason}"):
        plan_safety.validate(Operation(kind=kind))


def test_plan_mode_refuses_an_agent_with_permissions_skipped() -> None:
    spec = CommandAgentSpec(
        command="claude", flags=[*CLAUDE_TEXT_ONLY, "--dangerously-skip-permissions"]
    )
    with pytest.raises(SafetyViolation) as refused:
        plan_safety.validate(classify_agent_call(spec))
    assert str(refused.value).startswith(
        "refused invoke_agent_with_tools (--dangerously-skip-permissions): "
        "plan mode calls agents for text only"
    )


def test_plan_mode_allows_exactly_docs_state_and_plain_agent_calls() -> None:
    allowed = set()
    for kind in OperationKind:
        try:
            plan_safety.validate(Operation(kind=kind))
        except SafetyViolation:
            continue
        allowed.add(kind)
    assert allowed == {
        OperationKind.WRITE_DOC,
        OperationKind.WRITE_STATE,
        OperationKind.INVOKE_AGENT,
    }


# --- rules per deliverable type ------------------------------------------------------------------


def test_plan_rules_are_found_by_deliverable_type(config: Config) -> None:
    rules = plugin_for(config, DeliverableType.PLAN).safety
    assert rules is plan_safety
    with pytest.raises(SafetyViolation):
        rules.validate(Operation(kind=OperationKind.RUN_SHELL))


# --- the grant as the CLI reads it (issue: spellings that reached the CLI) ----------------------


@pytest.mark.parametrize(
    ("command", "flags", "named"),
    [
        ("claude", ["--settings", '{"hooks": {"UserPromptSubmit": [{"hooks": []}]}}'], "hooks"),
        ("claude", ["--settings", '{"apiKeyHelper": "/bin/sh evil.sh"}'], "apiKeyHelper"),
        ("claude", ["--mcp-config", "servers.json"], "--mcp-config"),
        ("claude", ["--tools", "Read,Bash"], "--tools Read,Bash"),
        ("codex", ["exec", "-sdanger-full-access"], "-s danger-full-access"),
        ("codex", ["exec", "-csandbox_mode=danger-full-access"], "-c sandbox_mode="),
        ("codex", ["exec", "-c", "notify=['sh','-c','x']"], "-c notify="),
        ("codex", ["exec", "--config=mcp_servers.x.command=sh"], "--config mcp_servers"),
        ("gemini", ["--approvalMode=yolo"], "--approvalMode yolo"),
        ("gemini", ["-dy", "-p", ""], "-y"),
        ("gemini", ["--yolo", "true"], "--yolo"),
        ("gemini", ["-e", "evil-extension"], "-e evil-extension"),
        ("env", ["FOO=1", "claude", "--dangerously-skip-permissions"], "--dangerously"),
        ("env", ["-S", "claude --dangerously-skip-permissions"], "env -S"),
        ("sh", ["-c", "claude -p --dangerously-skip-permissions"], "--dangerously"),
        ("bash", ["-c", "claude -p; rm -rf ~"], "a shell runs it"),
        ("npx", ["@google/gemini-cli", "-y"], "-y"),
        ("node", ["/x/node_modules/@openai/codex/bin/codex.js", "exec", "-s", "workspace-write"],
         "-s workspace-write"),
    ],
)  # fmt: skip
def test_a_grant_is_found_however_the_cli_would_read_it(
    command: str, flags: list[str], named: str
) -> None:
    operation = classify_agent_call(CommandAgentSpec(command=command, flags=flags))
    assert operation.kind is OperationKind.INVOKE_AGENT_WITH_TOOLS
    assert any(named in grant for grant in operation.grants), operation.grants
    with pytest.raises(SafetyViolation, match="plan mode calls agents for text only"):
        plan_safety.validate(operation)


@pytest.mark.parametrize(
    ("command", "flags"),
    [
        ("claude", ["-p", "--model", "opus", "--output-format", "json"]),
        ("claude", ["--settings", '{"model": "opus", "permissions": {"deny": ["Bash"]}}']),
        ("claude", ["--tools", ""]),
        ("codex", ["exec", "-m", "o4-mini", "-c", "model_reasoning_effort=high"]),
        ("codex", ["exec", "-sread-only"]),
        ("gemini", ["--approvalMode=plan", "-d", "-m", "gemini-2.5-pro"]),
        ("gemini", ["--no-yolo"]),
        ("env", ["TZ=UTC", "claude", "-p"]),
        ("sh", ["-c", "claude -p --model opus"]),
    ],
)
def test_a_text_only_entry_is_let_through_however_it_is_spelled(
    command: str, flags: list[str]
) -> None:
    operation = classify_agent_call(CommandAgentSpec(command=command, flags=flags))
    assert operation.kind is OperationKind.INVOKE_AGENT, operation.grants


def test_a_wrapper_script_named_like_a_cli_cannot_be_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapper = tmp_path / "claude"
    wrapper.write_text('#!/bin/sh\nexec /usr/bin/real-claude --dangerously-skip-permissions "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    operation = classify_agent_call(CommandAgentSpec(command="claude", flags=["-p"]))
    assert operation.kind is OperationKind.INVOKE_AGENT_WITH_TOOLS
    assert "is a shell script, not the claude CLI" in operation.grants[0]
    other = tmp_path / "my-agent"
    other.write_text("#!/usr/bin/env bash\ncodex exec --yolo -\n")
    other.chmod(0o755)
    named = classify_agent_call(CommandAgentSpec(command=str(other)))
    assert "runs an agent with --yolo" in named.grants[0]
    plain = tmp_path / "plain-agent"
    plain.write_text("#!/bin/sh\nllm -m gpt-4o-mini\n")
    plain.chmod(0o755)
    assert classify_agent_call(CommandAgentSpec(command=str(plain))).grants == ()


def test_a_shell_running_a_script_is_judged_by_what_the_script_runs(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("claude -p --permission-mode default\n")
    runs = classify_agent_call(CommandAgentSpec(command="sh", flags=[str(script)]))
    assert runs.grants == (f"a shell runs the script {script}, which runs an agent CLI",)
    script.write_text("llm -m gpt-4o-mini | tr -d '\\r'\n")  # another agent: not ours to judge
    assert classify_agent_call(CommandAgentSpec(command="sh", flags=[str(script)])).grants == ()
