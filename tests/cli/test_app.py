"""The CLI as a user runs it: a real process, real files, exit codes and messages."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import git
import pytest
import yaml

from tests.conftest import BRAIN_DUMP, REPO_ROOT
from thoughtforge.cli import app
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run(tmp_path: Path) -> Run:
    def run(
        *args: str, stdin: str | None = None, columns: int = 200
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "thoughtforge", *args],
            cwd=tmp_path,
            input=stdin,
            capture_output=True,
            text=True,
            env={
                "PATH": "/usr/bin:/bin",
                "HOME": str(tmp_path),
                "COLUMNS": str(columns),
                "PYTHONPATH": str(REPO_ROOT),  # this checkout's code, not an installed copy's
            },
        )

    return run


def test_init_new_status_from_an_empty_directory(run: Run, tmp_path: Path) -> None:
    assert run("init").returncode == 0
    assert (tmp_path / "config.yaml").exists()
    assert run("init").returncode == 1  # never overwrites without --force
    created = run("new", "--brain-dump", "-", stdin=BRAIN_DUMP)
    assert created.returncode == 0, created.stderr
    [project] = (tmp_path / "projects").iterdir()
    assert project.name in created.stdout.replace("\n", "")
    assert [c.summary for c in git.Repo(project).iter_commits()] == ["Create project"]
    listing = run("status")
    assert listing.returncode == 0
    assert project.name in listing.stdout and "brain_dump" in listing.stdout
    detail = run("status", project.name)
    assert detail.returncode == 0 and "halt_reason" in detail.stdout


def test_init_writes_the_example_brain_dump_the_readme_starts_from(
    run: Run, tmp_path: Path
) -> None:
    """A tool install's folder has no examples/: the README's `run examples/wedding-plan.md`
    works there after `init`, and a brain dump already there is kept."""
    written = run("init")
    example = tmp_path / "examples" / "wedding-plan.md"
    assert example.read_text() == (REPO_ROOT / "examples" / "wedding-plan.md").read_text()
    assert "examples/wedding-plan.md" in written.stdout
    example.write_text("My own wedding.")
    assert run("init", "--force").returncode == 0
    assert example.read_text() == "My own wedding."


def _new_projects(tmp_path: Path, count: int = 1) -> list[Path]:
    """`count` projects in the config `init` wrote, made in this process as `new` makes them
    (`new` itself is tried above): the tests below are about what other commands do with them."""
    config = load_config(tmp_path / "config.yaml")
    for _ in range(count):
        create_project(config, brain_dump=BRAIN_DUMP)
    return sorted((tmp_path / "projects").iterdir())


def test_truncated_status_json_exits_nonzero_naming_the_file(run: Run, tmp_path: Path) -> None:
    run("init")
    [project] = _new_projects(tmp_path)
    status = project / "status.json"
    truncated = status.read_bytes()[:40]
    status.write_bytes(truncated)
    for args in (("status",), ("status", project.name)):
        result = run(*args)
        assert result.returncode == 1
        assert str(status) in result.stderr.replace("\n", "")
        assert "Traceback" not in result.stderr
    assert status.read_bytes() == truncated


def test_one_corrupt_project_is_listed_as_unreadable_among_the_others(
    run: Run, tmp_path: Path
) -> None:
    run("init")
    first, broken, last = _new_projects(tmp_path, 3)
    (broken / "status.json").write_text('{"phase": "buil')
    result = run("status")
    assert result.returncode == 1
    rows = {line.split()[1]: line for line in result.stdout.splitlines() if "│" in line}
    assert "brain_dump" in rows[first.name] and "brain_dump" in rows[last.name]
    assert "unreadable" in rows[broken.name]
    [error] = result.stderr.replace("\n", "").split("error: ")[1:]
    assert error.startswith(f"{broken / 'status.json'}: is not valid JSON")


def test_bad_config_value_exits_nonzero_naming_the_key(run: Run, tmp_path: Path) -> None:
    run("init")
    config = tmp_path / "config.yaml"
    config.write_text(config.read_text().replace("max_iterations: 50", 'max_iterations: "many"'))
    result = run("status")
    assert result.returncode == 1
    assert "polish.max_iterations" in result.stderr and "'many'" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_config_and_example_names_the_expected_path(run: Run, tmp_path: Path) -> None:
    result = run("status")
    assert result.returncode == 1
    assert str(tmp_path / "config.yaml") in result.stderr.replace("\n", "")


def test_new_warns_when_the_default_agent_is_not_on_path(run: Run, tmp_path: Path) -> None:
    run("init")
    config = tmp_path / "config.yaml"
    config.write_text(config.read_text().replace("default: demo", "default: claude"))
    result = run("new", "-b", "-", stdin=BRAIN_DUMP)
    assert result.returncode == 0
    assert "Default agent 'claude' not found on PATH" in result.stderr.replace("\n", "")


def test_unreadable_brain_dump_is_a_clear_error(run: Run) -> None:
    run("init")
    result = run("new", "-b", "missing.txt")
    assert result.returncode == 1 and "cannot read brain dump missing.txt" in result.stderr


def test_doctor_reports_each_check(run: Run, tmp_path: Path) -> None:
    assert run("doctor").returncode == 1
    run("init")
    result = run("doctor")
    assert result.returncode == 0, result.stdout
    for check in ("config", "agent", "projects directory", "prompts", "Prefect API", "board"):
        assert check in result.stdout


@pytest.mark.parametrize("args", [("--help",), ("status",), ("new", "--help"), ("board",)])
def test_light_commands_do_not_import_prefect(args: tuple[str, ...], tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text((REPO_ROOT / "config.yaml.example").read_text())
    probe = (
        "import sys\nfrom thoughtforge.cli import main\n"
        f"sys.argv = ['thoughtforge', *{list(args)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "loaded = any(m.split('.')[0] == 'prefect' for m in sys.modules)\n"
        "print('PREFECT_LOADED' if loaded else 'NO_PREFECT')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.stdout.strip().endswith("NO_PREFECT"), result.stdout + result.stderr


def test_run_refuses_a_missing_default_agent_instead_of_using_the_demo(
    run: Run, tmp_path: Path
) -> None:
    """Before, a missing `claude` silently became the scripted demo agent's canned text."""
    _init_with(run, tmp_path, "default: demo", "default: claude")
    (tmp_path / "dump.md").write_text(BRAIN_DUMP)
    result = run("run", "dump.md", "--auto-confirm")
    assert result.returncode == 1
    message = " ".join(result.stderr.split())
    assert "agent 'claude' cannot run" in message and "thoughtforge doctor" in message
    assert "--agent demo" in message and "Traceback" not in result.stderr
    assert _no_project(tmp_path)


def test_run_refuses_a_broken_plugin_folder_before_creating_the_project(
    run: Run, tmp_path: Path
) -> None:
    broken = tmp_path / "plugins" / "checklist"
    shutil.copytree(REPO_ROOT / "examples" / "plugins" / "checklist", broken)
    (broken / "builder.py").write_text("import thoughtforge.no_such_module\n")
    _init_with(run, tmp_path, "directory: null ", "directory: plugins ")
    (tmp_path / "dump.md").write_text(BRAIN_DUMP)
    result = run("run", "dump.md", "--auto-confirm")
    assert result.returncode == 1
    message = " ".join(result.stderr.split())
    assert f"plugin folder {broken} is refused: builder.py cannot be imported" in message
    assert "no_such_module" in message and "Traceback" not in result.stderr
    assert _no_project(tmp_path)


def test_a_brain_dump_over_the_cap_is_refused_pointing_to_resources(
    run: Run, tmp_path: Path
) -> None:
    _init_with(run, tmp_path, "max_chars: 200000", "max_chars: 1000")
    result = run("new", "-b", "-", stdin="word " * 1000)
    message = " ".join(result.stderr.split())
    assert result.returncode == 1 and "brain_dump.max_chars is 1,000" in message
    assert "--resource" in message
    assert _no_project(tmp_path)


@pytest.mark.parametrize("command", ["new", "run"])
def test_a_brain_dump_too_short_to_distil_is_refused_before_any_project_is_made(
    run: Run, tmp_path: Path, command: str
) -> None:
    """Before, `run` made the project, then halted (exit 3) with it counted as active."""
    run("init")
    short = "Plan a small wedding for 40 people."
    args = ("new", "-b", "-") if command == "new" else ("run", "-", "--auto-confirm")
    result = run(*args, stdin=f"  {short}\n\n")  # the blank around it does not count
    message = " ".join(result.stderr.split())
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"the brain dump has {len(short)} characters; at least 100 are needed" in message
    assert "Traceback" not in result.stderr
    assert _no_project(tmp_path)


def test_invalid_utf8_on_stdin_is_one_clear_line(tmp_path: Path, run: Run) -> None:
    run("init")
    result = subprocess.run(
        [sys.executable, "-m", "thoughtforge", "new", "-b", "-"],
        cwd=tmp_path,
        input=b"caf\xe9 plans\n",
        capture_output=True,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "COLUMNS": "200",
            "PYTHONPATH": str(REPO_ROOT),
        },
    )
    stderr = result.stderr.decode()
    assert result.returncode == 1 and "not UTF-8" in stderr and "Traceback" not in stderr


def test_a_bad_secret_value_in_config_is_never_echoed(run: Run, tmp_path: Path) -> None:
    run("init")
    config = tmp_path / "config.yaml"
    data = yaml.safe_load(config.read_text())
    data["connectors"]["notion"]["token"] = ["secret_AbC123xyz"]
    config.write_text(yaml.safe_dump(data))
    result = run("status")
    assert result.returncode == 1 and "connectors.notion.token" in result.stderr
    assert "secret_AbC123xyz" not in result.stderr + result.stdout and "***" in result.stderr


def test_status_lists_files_an_agent_left_uncommitted(run: Run, tmp_path: Path) -> None:
    run("init")
    [project] = _new_projects(tmp_path)
    (project / "evil.py").write_text("print('x')\n")
    detail = run("status", project.name)
    assert detail.returncode == 0
    assert "not written by ThoughtForge, not committed: evil.py" in " ".join(detail.stdout.split())


HOSTILE_NAME = "Plan [/x] \x1b]52;c;ZXZpbA==\x07 \x1b]0;pwned\x07 \x1b[2J"
"""Markup that crashed `status`, a clipboard write (OSC 52), a window title and a screen clear."""


@pytest.mark.parametrize("command", [("status",), ("status", "PROJECT"), ("board",)])
def test_an_agent_chosen_name_is_printed_as_text(
    run: Run, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Before, `[/x]` in a name made `status` crash for every project (MarkupError), and the
    escape sequences were printed raw by `board`, `status` and `status ID`."""
    run("init")
    [project] = _new_projects(tmp_path)
    status = json.loads((project / "status.json").read_text())
    (project / "status.json").write_text(json.dumps({**status, "project_name": HOSTILE_NAME}))
    (project / "evil\x1b[2J.md").write_text("an agent's file")
    shown = run(*(project.name if part == "PROJECT" else part for part in command))
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout + shown.stderr and "\x07" not in shown.stdout
    flat = "".join(shown.stdout.split())
    assert "Plan[/x]" in flat and "\\x1b]52;c;" in flat and "\\x1b[2J" in flat


def test_say_refuses_an_empty_message_and_a_finished_project(run: Run, tmp_path: Path) -> None:
    """Before, `say ""` stored an empty message and `say` to a done project answered "queued"."""
    run("init")
    [project] = _new_projects(tmp_path)
    empty = run("say", project.name, "  ")
    assert empty.returncode == 1 and "Write a message first" in empty.stderr
    status = project / "status.json"
    status.write_text(status.read_text().replace('"brain_dump"', '"done"'))
    late = run("say", project.name, "One more thing")
    assert late.returncode == 1 and "Traceback" not in late.stderr
    assert "Done: the deliverable is final" in late.stderr
    chat = (project / "chat_history.json").read_text()
    assert "One more thing" not in chat and '"content": "  "' not in chat


def _init_with(run: Run, tmp_path: Path, setting: str, replacement: str) -> None:
    """`thoughtforge init`, then one line of the written config changed."""
    run("init")
    config = tmp_path / "config.yaml"
    config.write_text(config.read_text().replace(setting, replacement))


def _no_project(tmp_path: Path) -> bool:
    projects = tmp_path / "projects"
    return not projects.exists() or not any(projects.iterdir())


def test_help_reflows_to_the_terminal_with_no_line_cut_mid_sentence(run: Run) -> None:
    """Before, a docstring's line breaks survived: "recorded beside the config, so" stood alone
    on its line at 80 columns, and the command list broke "file / drop"."""
    for command in app.registered_commands:
        paragraphs = (command.help or "").split("\n\n")
        assert all("\n" not in paragraph for paragraph in paragraphs), command.name
    shown = run("up", "--help", columns=80).stdout.splitlines()
    usage = next(n for n, line in enumerate(shown) if "Usage:" in line)
    prose = shown[usage + 1 : next(n for n, line in enumerate(shown) if "Options" in line)]
    for line, following in pairwise(prose):
        if line.strip() and following.strip():  # a line its paragraph goes on after
            assert len(line.strip()) > 60, line
