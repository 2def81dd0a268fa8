"""`thoughtforge doctor`'s board and channel rows, run as a user runs it: a real process, a real
Vibe Kanban, a `CaptureServer` as the channel."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.capture_server import CaptureServer, refused_url
from tests.conftest import AGENTS_DIR, REPO_ROOT
from tests.fake_openai import FakeOpenAI, Reply
from tests.vibe_kanban import VibeKanban
from thoughtforge.adapters.agents.landlock import abi_version
from thoughtforge.adapters.announce import board_for
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.hooks import TransitionHooks, install_hooks

# Whole flows and CLI processes, minutes in all: CI runs them in its slow suite.
pytestmark = pytest.mark.slow

Run = Callable[..., subprocess.CompletedProcess[str]]

TOKEN = "sekrit-t0ken-never-shown"
SECRET_PATH = "/hooks/xoxSecretPart"


@pytest.fixture
def run(tmp_path: Path) -> Run:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "thoughtforge", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={
                "PATH": "/usr/bin:/bin",
                "HOME": str(tmp_path),
                "COLUMNS": "300",
                "PYTHONPATH": str(REPO_ROOT),  # this checkout's code, not an installed copy's
            },
        )

    return run


@pytest.fixture
def server() -> Iterator[CaptureServer]:
    with CaptureServer() as server:
        yield server


def row(result: subprocess.CompletedProcess[str], name: str) -> str:
    """The one row of the check `name`, its cells joined by single spaces."""
    rows = [line for line in result.stdout.splitlines() if line.strip().startswith(name)]
    assert len(rows) == 1, result.stdout + result.stderr
    return " ".join(rows[0].split())


def _without_test_agents(data: dict[str, Any]) -> dict[str, Any]:
    """The config without the test agents `config_data` adds: `--probe` would call each of them,
    the sleeper until its deadline, for rows these tests do not read."""
    available = data["agents"]["available"]
    data["agents"]["available"] = {
        name: agent
        for name, agent in available.items()
        if not str(agent.get("command", "")).startswith(str(AGENTS_DIR))
    }
    return data


def _notifications(*channels: dict[str, Any]) -> dict[str, Any]:
    return {"enabled": True, "timeout_seconds": 2, "channels": list(channels)}


def _ntfy(url: str, **extra: Any) -> dict[str, Any]:
    return {"url": url, "topic": "tf-alerts", **extra}


def _webhook(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "webhook", "url": url + SECRET_PATH, **extra}


def test_board_and_notifications_off_are_ok_rows(
    run: Run, write_config: Callable[..., Path]
) -> None:
    write_config()
    result = run("doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert row(result, "board") == "board ok Vibe Kanban off (vibekanban.enabled)"
    assert row(result, "notifications") == "notifications ok off (notifications.enabled)"


def test_the_write_boundary_in_force_is_named(run: Run, write_config: Callable[..., Path]) -> None:
    """This machine's kernel offers Landlock: doctor names it; without, it warns (not fails)."""
    write_config()
    result = run("doctor")
    abi = abi_version()
    assert abi >= 1, "the test machine's kernel offers Landlock"
    said = row(result, "write boundary")
    assert said.startswith(f"write boundary ok Landlock (ABI {abi}): an agent call"), said


def test_deliverable_types_are_listed_and_a_broken_plugin_folder_fails(
    run: Run, write_config: Callable[..., Path], tmp_path: Path
) -> None:
    write_config(plugins={"directory": str(REPO_ROOT / "examples" / "plugins")})
    assert row(run("doctor"), "deliverable types") == "deliverable types ok plan, code, checklist"
    broken = tmp_path / "plugins" / "checklist"
    broken.mkdir(parents=True)
    write_config(plugins={"directory": str(broken.parent)})
    result = run("doctor")
    assert result.returncode == 1
    assert f"FAIL plugin folder {broken} is refused: builder.py, reviewer.py" in row(
        result, "deliverable types"
    )


def test_board_on_a_real_vibe_kanban_says_when_the_board_is_made_then_counts_cards(
    run: Run, write_config: Callable[..., Path], vibe_kanban: VibeKanban, tmp_path: Path
) -> None:
    board_name = f"TF doctor {tmp_path.name}"
    path = write_config(
        vibekanban={"enabled": True, "url": vibe_kanban.url, "project_name": board_name}
    )
    before = run("doctor")
    assert before.returncode == 0, before.stdout + before.stderr
    assert row(before, "board") == (
        f"board ok Vibe Kanban at {vibe_kanban.url}: board '{board_name}' is created with the "
        "first card"
    )
    assert vibe_kanban.cards(board_name) == []  # doctor only looks

    config = load_config(path)
    previous = install_hooks(TransitionHooks(board=board_for(path, config)))
    try:
        create_project(config)  # its card appears at once
    finally:
        install_hooks(previous)
    after = run("doctor")
    assert after.returncode == 0, after.stdout + after.stderr
    assert row(after, "board") == (
        f"board ok Vibe Kanban at {vibe_kanban.url}: board '{board_name}' holds 1 card"
    )


def test_an_unreachable_board_is_a_warning_and_doctor_still_passes(
    run: Run, write_config: Callable[..., Path]
) -> None:
    url = refused_url()
    write_config(vibekanban={"enabled": True, "url": url, "timeout_seconds": 2})
    result = run("doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    board = row(result, "board")
    assert board.startswith(f"board warn GET {url}/api/projects: ")
    assert board.endswith("; runs go on without cards")


def test_a_healthy_ntfy_server_is_ok_and_is_sent_no_notification(
    run: Run, write_config: Callable[..., Path], server: CaptureServer
) -> None:
    server.answer(200, {"healthy": True})
    write_config(notifications=_notifications(_ntfy(server.url, token=TOKEN)))
    result = run("doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert row(result, f"notify ntfy {server.url}/tf-alerts") == (
        f"notify ntfy {server.url}/tf-alerts ok reachable (--send-test sends a notification)"
    )
    assert [(r.method, r.path) for r in server.requests] == [("GET", "/v1/health")]


def test_a_server_that_is_not_ntfy_is_a_warning(
    run: Run, write_config: Callable[..., Path], server: CaptureServer
) -> None:
    server.answer(200, "<html>captive portal</html>")
    write_config(notifications=_notifications(_ntfy(server.url)))
    result = run("doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warn GET " in row(result, "notify ntfy")
    assert "not a healthy ntfy server" in row(result, "notify ntfy")
    assert all(r.method == "GET" for r in server.requests)


def test_send_test_posts_exactly_one_notification_to_the_topic(
    run: Run, write_config: Callable[..., Path], server: CaptureServer
) -> None:
    write_config(notifications=_notifications(_ntfy(server.url)))
    result = run("doctor", "--send-test")
    assert result.returncode == 0, result.stdout + result.stderr
    assert row(result, "notify ntfy").endswith("ok test notification sent")
    [sent] = server.requests
    assert (sent.method, sent.path) == ("POST", "/tf-alerts")
    assert "test notification" in sent.body.decode("utf-8")


@pytest.mark.parametrize("args", [(), ("--send-test",)], ids=["check", "send-test"])
def test_a_refused_webhook_is_a_warning_without_its_secret_path_or_token(
    run: Run, write_config: Callable[..., Path], args: tuple[str, ...]
) -> None:
    url = refused_url()
    write_config(notifications=_notifications(_webhook(url, token=TOKEN)))
    result = run("doctor", *args)
    assert result.returncode == 0, result.stdout + result.stderr
    webhook = row(result, f"notify webhook {url}/…")
    assert webhook.startswith(f"notify webhook {url}/… warn ")
    assert "refused" in webhook.lower()
    for text in (result.stdout, result.stderr):
        assert "xoxSecretPart" not in text and TOKEN not in text


def test_the_token_never_shows_even_when_a_channel_echoes_it(
    run: Run, write_config: Callable[..., Path]
) -> None:
    echo = f"denied: Authorization: Bearer {TOKEN}"
    with CaptureServer() as ntfy, CaptureServer() as hook:
        ntfy.answer(401, echo)
        hook.answer(401, f"{echo} for POST {SECRET_PATH}")
        write_config(
            notifications=_notifications(
                _ntfy(ntfy.url, token=TOKEN), _webhook(hook.url, token=TOKEN)
            )
        )
        result = run("doctor", "--send-test")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ntfy.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"  # it was sent
    assert hook.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert "test notification failed" in row(result, "notify ntfy")
    assert "Bearer ***" in row(result, "notify webhook")
    for text in (result.stdout, result.stderr):
        assert TOKEN not in text and "xoxSecretPart" not in text


def test_a_detail_with_brackets_is_shown_as_it_is(
    run: Run, write_config: Callable[..., Path], server: CaptureServer
) -> None:
    server.answer(500, "[error] database is locked")
    write_config(notifications=_notifications(_ntfy(server.url)))
    result = run("doctor", "--send-test")
    assert "HTTP 500: [error] database is locked" in row(result, "notify ntfy")


def test_probe_calls_each_agent_and_says_whether_structured_output_is_accepted(
    run: Run, write_config: Callable[..., Path]
) -> None:
    path = write_config()
    data = _without_test_agents(yaml.safe_load(path.read_text()))
    with FakeOpenAI(refuse_json_schema=True) as fake:
        fake.script(Reply('{"ready": true}'))
        for name, form in (("openai-form", "json_schema"), ("llama-form", "json_object")):
            data["agents"]["available"][name] = {
                "type": "openai",
                "base_url": f"{fake.url}/v1",
                "model": "tiny",
                "structured_output": form,
            }
        path.write_text(yaml.safe_dump(data))
        plain = run("doctor")
        assert fake.requests == [], "doctor without --probe calls no agent"
        result = run("doctor", "--probe")
    assert plain.returncode == 0 and result.returncode == 0, result.stdout + result.stderr
    llama = row(result, "probe llama-form")
    assert llama.startswith("probe llama-form ok replied in ")
    assert llama.endswith("""'{"ready": true}'; structured output (json_object) accepted""")
    openai_form = row(result, "probe openai-form")
    assert openai_form.startswith("probe openai-form warn replied in ")
    assert "structured output (json_schema) not usable: " in openai_form
    assert "the server refused structured output (HTTP 500: Unsupported" in openai_form
    assert row(result, "probe demo").startswith("probe demo ok replied in ")
    assert row(result, "probe claude") == (
        "probe claude ok not called: its command 'claude' is not on PATH"
    )


def test_probe_obeys_the_call_deadline_whatever_the_server_does(
    run: Run, write_config: Callable[..., Path]
) -> None:
    """Before, `doctor --probe` against a server sending only `: PROCESSING` comment lines was
    still running after 40 s with call_timeout_seconds 6."""
    path = write_config()
    data = _without_test_agents(yaml.safe_load(path.read_text()))
    data["agents"]["call_timeout_seconds"] = 2
    with FakeOpenAI() as fake:
        fake.script(Reply(hostile="comments"))
        data["agents"]["available"]["queued"] = {
            "type": "openai",
            "base_url": f"{fake.url}/v1",
            "model": "tiny",
        }
        path.write_text(yaml.safe_dump(data))
        result = subprocess_with_limit(run, 60, "doctor", "--probe")
    assert row(result, "probe queued").startswith(
        "probe queued warn agent 'queued' failed at step 'doctor-probe' (attempt 1: no whole "
        "reply within agents.call_timeout_seconds (2 s): the server sent only"
    ), result.stdout


def subprocess_with_limit(run: Run, seconds: float, *args: str) -> subprocess.CompletedProcess[str]:
    """`run(*args)`, failed (not hung) when it outlives `seconds`."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run, *args).result(timeout=seconds)


@pytest.mark.parametrize("command", [("doctor",), ("run", "bd.md", "--auto-confirm")])
def test_a_plugin_that_exits_at_import_is_named_and_the_command_fails(
    run: Run, write_config: Callable[..., Path], tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Before, both ended rc 0 saying nothing (and `run` made nothing)."""
    folder = tmp_path / "plugins" / "checklist"
    shutil.copytree(REPO_ROOT / "examples" / "plugins" / "checklist", folder)
    with (folder / "builder.py").open("a") as builder:
        builder.write("\nimport sys\nsys.exit(0)\n")
    write_config(plugins={"directory": str(folder.parent)})
    (tmp_path / "bd.md").write_text("Plan a small garden party.\n")
    result = run(*command)
    said = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == 1, said
    assert f"plugin folder {folder} is refused: builder.py cannot be imported: it calls " in said
    assert "sys.exit(0) when imported" in said
    assert not (tmp_path / "projects").exists() or not any((tmp_path / "projects").iterdir())


def test_every_agent_is_listed_with_its_state_as_new_project_offers_it(
    tmp_path: Path, run: Run
) -> None:
    """Before, New Project offered agents that were not installed (a project that halts at once)."""
    data = yaml.safe_load((REPO_ROOT / "config.yaml.example").read_text())
    data["projects"]["directory"] = str(tmp_path / "projects")
    with FakeOpenAI() as fake:
        data["agents"]["available"] = {
            "demo": {"command": sys.executable, "flags": ["-c", "print('ok')"]},
            "absent": {"command": "no-such-agent-cli"},
            "served": {"type": "openai", "base_url": f"{fake.url}/v1", "model": "tiny"},
            "down": {"type": "openai", "base_url": f"{refused_url()}/v1", "model": "tiny"},
        }
        data["agents"]["default"] = "demo"
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
        result = run("doctor")
        assert not [r for r in fake.requests if r.method == "POST"], "no agent is called"
    agents = row(result, "agents")
    assert "absent not found (its command 'no-such-agent-cli' is not on PATH)" in agents
    assert "demo installed" in agents
    assert "served reachable" in agents and "down not reachable" in agents


def test_a_cli_that_is_not_logged_in_is_named_with_the_command_that_logs_it_in(
    tmp_path: Path, run: Run
) -> None:
    """`codex` on PATH with no key and no auth.json: the default-agent row and `--probe` say
    so (the probe makes no call), with `codex login`."""
    data = yaml.safe_load((REPO_ROOT / "config.yaml.example").read_text())
    data["projects"]["directory"] = str(tmp_path / "projects")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    codex = bin_dir / "codex"
    codex.write_text(f"#!/bin/sh\ntouch {tmp_path / 'called'}\n")
    codex.chmod(0o755)
    data["agents"]["available"] = {
        "codex": {**data["agents"]["available"]["codex"], "command": str(codex)}
    }
    data["agents"]["default"] = "codex"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = run("doctor", "--probe")
    assert "codex is not logged in" in row(result, "agent ")
    probe = row(result, "probe codex")
    assert "not called" in probe and "run `codex login`, or set CODEX_API_KEY" in probe
    assert not (tmp_path / "called").exists()


def test_piped_output_keeps_every_path_whole_and_folds_the_prefect_internals(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    """Piped with no COLUMNS (a file, `| less`): each check is one line, however long its path."""
    from thoughtforge.flows.runtime.prefect_internals import INTERNALS

    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "projects"
    write_config(projects={"directory": str(deep)})

    def doctor(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "thoughtforge", "doctor", *flags],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO_ROOT)},
        )

    result = doctor()
    assert result.returncode == 0, result.stdout + result.stderr
    assert row(result, "projects directory") == f"projects directory ok {deep} is writable"
    assert "…" not in result.stdout
    assert row(result, "Prefect internals") == (
        f"Prefect internals ok all {len(INTERNALS)} found in the installed Prefect "
        "(--verbose lists them)"
    )
    assert "Prefect internal " not in result.stdout
    verbose = doctor("--verbose")
    for internal in INTERNALS:
        assert row(verbose, f"Prefect internal {internal.key} ").startswith(
            f"Prefect internal {internal.key} ok"
        )


def test_on_a_narrow_terminal_a_long_path_folds_onto_the_next_line_and_is_never_cut() -> None:
    import io

    from rich.console import Console

    from thoughtforge.cli.doctor import Check, print_checks

    path = "/home/someone/" + "a-rather-long-folder-name/" * 4 + "plugins/checklist"
    terminal = Console(file=io.StringIO(), force_terminal=True, width=60, color_system=None)
    print_checks(terminal, [Check(name="deliverable types", outcome="fail", detail=path)])
    printed = terminal.file.getvalue()  # type: ignore[attr-defined]
    assert "…" not in printed
    assert path in "".join(line.split("FAIL", 1)[-1].strip() for line in printed.splitlines())
