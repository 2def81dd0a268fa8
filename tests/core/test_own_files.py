"""Every file ThoughtForge reads from a project folder goes through one opener
(`core.own_files`, on `bounded_input`): a FIFO, a link out of the folder, `/dev/zero` or
100,000 nested brackets in a state file's place is one clear refusal, never a hang, gigabytes
or a `RecursionError`. And the list of readers: a read anywhere else in the package is one this
test was told about, with the reason it reads no project's file.
"""

from __future__ import annotations

import ast
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from thoughtforge.bounded_input import JsonTooDeep, parse_json
from thoughtforge.config import Config
from thoughtforge.core.course_claim import STARTING_FILE, ProjectClaimed, take_claim
from thoughtforge.core.creation import create_project
from thoughtforge.core.own_files import read_own_bytes
from thoughtforge.core.project_log import LOG_FILE, log_event, read_events
from thoughtforge.core.project_view import read_view
from thoughtforge.core.run_lock import LOCK_FILE, is_running
from thoughtforge.core.state import STATUS_FILE, read_status
from thoughtforge.core.waiting import WAITING_FILE, current_wait
from thoughtforge.errors import ProjectFileError, StateFileError
from thoughtforge.plugins.code.acceptance.lock import LOCK_FILE as ACCEPTANCE_LOCK
from thoughtforge.plugins.code.acceptance.lock import read_lock

PACKAGE = Path(__file__).resolve().parents[2] / "thoughtforge"
DEEP = "[" * 100_000 + "]" * 100_000
SECONDS = 10.0

READS = {"read_text", "read_bytes", "open", "fdopen", "load", "loads"}
"""What reads a file or parses JSON: `Path.read_text`, `open`, `os.open`, `json.loads`..."""
OPENER = {"bounded_input.py", "core/own_files.py"}
NOT_A_PROJECT_FILE = {
    "adapters/agents/image_parts.py:_read_no_link": "an image the person names, O_NOFOLLOW, capped",
    "adapters/agents/scripted.py:_reply_text": "the scripted agent's own script folder",
    "adapters/agents/scripted.py:_filled": "the scripted agent's own templates",
    "adapters/agents/kinds/claude.py:settings_grants": "an agent's settings file in the config",
    "adapters/agents/launch.py:_script_text": "an agent's command script in the config, capped",
    "adapters/agents/landlock.py:_allow": "a folder opened O_PATH to name it in a Landlock rule",
    "adapters/agents/supervisor.py:main": "/dev/null, for the supervisor's own streams",
    "adapters/agents/demo_evidence.py:with_evidence": "the demo agent's own answer, a string",
    "process_tree.py:carrying": "the kernel's /proc",
    "process_tree.py:_parents": "the kernel's /proc",
    "plugins/code/acceptance/in_project/plain_run.py:_load": "runs inside the project's test "
    "process, not ThoughtForge's (what it reads cannot harm ThoughtForge)",
    "plugins/code/acceptance/in_project/plain_run.py:_why": "runs inside the project's test "
    "process",
    "plugins/code/acceptance/in_project/plain_run.py:<module>": "runs inside the project's test "
    "process",
    "plugins/code/acceptance/in_project/record_plugin.py:pytest_unconfigure": "runs inside the "
    "project's test process",
    "adapters/http.py:parsed": "an HTTP answer, read within the call's byte cap",
    "adapters/kanban/attempts/coder.py:_check_profile": "Vibe Kanban's answer over HTTP",
    "adapters/kanban/client.py:_message_in": "Vibe Kanban's answer over HTTP",
    "adapters/kanban/vibekanban.py:server_url": "Vibe Kanban's port file in its own folder",
    "cli/deployment_run.py:_parameter": "a command-line value",
    "config/ports.py:_recorded": "the stack's state folder beside the config",
    "connectors/google_drive/client.py:_api_error": "Google's answer over HTTP",
    "connectors/google_drive/credentials.py:read_credential_file": "read by read_capped first",
    "core/agent_activity.py:begin_call": "creates the stream file (O_EXCL | O_NOFOLLOW)",
    "core/agent_activity.py:stream_output": "appends to the stream file (O_NOFOLLOW)",
    "core/atomic_write.py:_replace": "the temporary file mkstemp just made",
    "core/atomic_write.py:_umask": "/proc",
    "core/creation.py:_creation_lock": "the projects folder, as a folder (O_DIRECTORY)",
    "core/git_repo.py:_git_running_in": "/proc",
    "core/process_identity.py:is_init": "/proc",
    "core/process_identity.py:boot_id": "/proc",
    "core/process_identity.py:running": "/proc",
    "core/process_identity.py:start_time": "/proc",
    "core/space_reserve.py:keep_reserve": "writes the reserve (O_NOFOLLOW), never reads it",
    "flows/runtime/holding.py:_stopping": "/dev/null",
    "flows/runtime/prefect_internals/shape.py:defined_with": "Prefect's installed source",
    "flows/runtime/prefect_internals/up_and_down.py:_warm_start": "Prefect's installed source",
    "flows/runtime/warm_start.py:_receive": "the warm-start socket's own messages",
    "flows/runtime/warm_start.py:_accept": "the warm-start socket's own messages",
    "actions/process_run.py:started_run_alive": "the MCP server's runs folder beside the config",
    "actions/process_run.py:_start_cli_run": "the MCP server's runs folder beside the config",
    "actions/process_run.py:_not_a_zombie": "/proc",
    "mcp_server/stdio_transport.py:run": "the process's standard streams",
    "mcp_server/stdio_transport.py:_refused": "an id of at most 200 characters a regex found",
    "mcp_server/stdio_transport.py:_claim_standard_streams": "/dev/null",
    "mcp_server/transports.py:http_token": "the token file in the config's state folder",
    "phases/plugin_loader.py:_check_in_child": "a child process's verdict line",
    "plugins/code/plan_gate.py:_template_headings": "the plan plugin's own templates",
    "plugins/plan/template.py:load_template": "the plan plugin's own templates",
    "plugins/plan/template_selection.py:_names": "the plan plugin's own templates",
    "stack/api.py:call": "Prefect's answer over HTTP",
    "stack/deployments.py:fingerprint": "the installed package's flow source",
    "stack/local_server.py:exclusive": "the stack's state folder",
    "stack/local_server.py:_flow_run_of": "/proc",
    "stack/local_server.py:_recorded": "the stack's state folder",
    "stack/local_server.py:spawn_logged": "the stack's state folder",
    "stack/warm_start_address.py:listening": "/proc",
    "actions/uploading.py:__init__": "the upload's part file it created (O_EXCL)",
    "actions/uploading.py:remove_stale_parts": "O_NOFOLLOW, to remove a part file",
    "actions/uploading.py:_sync_folder": "a folder, to fsync it",
}


def _readers() -> dict[str, list[str]]:
    """`module:function` -> the reads in it, for every read outside the opener."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module in OPENER:
            continue
        _Reads(module, found).visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


class _Reads(ast.NodeVisitor):
    def __init__(self, module: str, found: dict[str, list[str]]) -> None:
        self.module, self.found, self.function = module, found, "<module>"

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        call = node.func
        name = call.attr if isinstance(call, ast.Attribute) else getattr(call, "id", None)
        owner = ast.unparse(call.value) if isinstance(call, ast.Attribute) else ""
        is_read = name in READS and owner not in {"Image", "opener", "form", "tomllib"}
        if is_read:
            where = f"{self.module}:{self.function}"
            self.found.setdefault(where, []).append(f"line {node.lineno}: {ast.unparse(call)}")
        self.generic_visit(node)


def test_every_read_of_a_project_file_goes_through_the_opener() -> None:
    """A new `read_text`, `open` or `json.loads` outside the opener fails here: make it
    `read_own_*`/`open_own`/`parse_json`, or list it above with why it is no project's file."""
    readers = _readers()
    unlisted = {where: reads for where, reads in readers.items() if where not in NOT_A_PROJECT_FILE}
    assert not unlisted, f"reads that bypass core.own_files: {unlisted}"
    gone = set(NOT_A_PROJECT_FILE) - set(readers)
    assert not gone, f"listed readers that read nothing any more (remove them): {gone}"


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """`call()`'s result or exception, failing (not hanging) when it takes longer."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still reading after {seconds} s: it waits on a pipe or reads forever"
    return outcome[0]


@pytest.fixture
def two(config: Config) -> tuple[Any, Any]:
    return create_project(config, brain_dump="one"), create_project(config, brain_dump="two")


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "other_projects_claim", "deep"])
def test_a_claim_file_anyone_planted_never_hangs_nor_is_believed(
    two: tuple[Any, Any], kind: str
) -> None:
    """Before: a FIFO hung `status`, `archive` and MCP's listing; /dev/zero grew to 1.7 GB;
    another project's claim, linked in, held this project as if it were its own."""
    project, other = two
    path = project.dir / STARTING_FILE
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "other_projects_claim":
        take_claim(other, "rollback")
        path.symlink_to(other.dir / STARTING_FILE)
    else:
        path.write_text(DEEP)
    view = _within(SECONDS, lambda: read_view(project))
    assert view.claim is None and view.course is None
    assert view.claim_note is not None and f"delete {path}" in view.claim_note
    refused = _within(SECONDS, lambda: take_claim(project, "archive"))
    assert isinstance(refused, ProjectClaimed) and STARTING_FILE in str(refused)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "link_out", "deep"])
def test_state_files_in_hostile_shapes_are_one_clear_error(config: Config, kind: str) -> None:
    """status.json, the acceptance lock: a refusal naming the file, never a hang, never a
    `RecursionError` (before: `polish` hung on a FIFO lock; a deep lock was a traceback)."""
    project = create_project(config, brain_dump="x")
    outside = project.dir.parent / "elsewhere.json"
    outside.write_text(read_own_bytes(project.dir / STATUS_FILE).decode())
    for name, read in ((ACCEPTANCE_LOCK, read_lock), (STATUS_FILE, read_status)):
        path = project.dir / name
        path.unlink(missing_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "dev_zero":
            path.symlink_to("/dev/zero")
        elif kind == "link_out":
            path.symlink_to(outside)
        else:
            path.write_text(DEEP)
        failed = _within(SECONDS, lambda read=read: read(project.dir))  # type: ignore[misc]
        assert isinstance(failed, StateFileError), (name, failed)
        assert name in str(failed)


def test_markers_and_the_log_in_hostile_shapes_are_nothing_not_a_hang(config: Config) -> None:
    """The wait, the run lock and the project's log: a pipe in their place is read as none."""
    project = create_project(config, brain_dump="x")
    for name in (WAITING_FILE, LOCK_FILE, LOG_FILE):
        (project.dir / name).unlink(missing_ok=True)
        os.mkfifo(project.dir / name)
    assert _within(SECONDS, lambda: current_wait(project.dir)) is None
    assert _within(SECONDS, lambda: is_running(project)) is False
    assert _within(SECONDS, lambda: read_events(project.dir)) == []
    assert _within(SECONDS, lambda: log_event(project.dir, "still here")) is None


def test_json_nested_too_deep_is_a_value_error_not_a_recursion_error() -> None:
    with pytest.raises(JsonTooDeep, match="nests more than 200 deep"):
        parse_json(DEEP, "answer")
    with pytest.raises(ValueError):
        parse_json('{"a": "[[[[' + "[" * 300 + '"', "answer")  # cut short: JSON's own error
    assert parse_json('{"a": "' + "[" * 300 + '"}', "answer") == {"a": "[" * 300}
    assert parse_json("[" * 200 + "]" * 200, "answer") is not None


def test_own_file_opener_refuses_what_is_no_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link").symlink_to("/etc/hostname")
    for name in ("pipe", "link"):
        refused = _within(SECONDS, lambda name=name: read_own_bytes(tmp_path / name))  # type: ignore[misc]
        assert isinstance(refused, ProjectFileError), refused
