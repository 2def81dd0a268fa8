"""Git run read-only in the project, and the NUL-separated paths it prints."""

from __future__ import annotations

import subprocess
from pathlib import Path

from thoughtforge.core.git_repo import SAFE_OPTIONS
from thoughtforge.errors import ThoughtForgeError


def path_names(output: bytes) -> list[str]:
    """NUL-separated paths; a name that is not UTF-8 cannot be shown in a prompt and is left out."""
    names: list[str] = []
    for raw in output.split(b"\0"):
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if name and not name.endswith("/"):
            names.append(name)
    return names


def git_output(project_dir: Path, *args: str) -> bytes:
    done = run_git(project_dir, *args)
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip()
        raise ThoughtForgeError(f"git {args[0]} failed in {project_dir}: {why}")
    return done.stdout


def run_git(project_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", *SAFE_OPTIONS, "-c", "core.quotepath=off", *args],
        cwd=project_dir,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
