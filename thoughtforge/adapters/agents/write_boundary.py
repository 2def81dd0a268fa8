"""Where an agent call, or a run of the project's tests, may write: ThoughtForge's boundary,
whatever the CLI's own sandbox does.

Every call gets a private scratch folder, its `TMPDIR`, removed when the call ends. Where the
kernel offers Landlock (`landlock`), the call's supervisor holds every write of its tree beneath

* the project folder, for a step that edits (code build and fix) and for a command with no CLI
  profile (the demo agent, a person's own script: the engine's plan-mode checks see what it
  changed); a CLI's text step (every plan step) leaves the project read-only;
* the scratch folder, the devices a shell writes to (`/dev/null`, a terminal), and the files the
  CLI keeps its own sessions and settings in (`CliKind.own_files`: `~/.claude`, `~/.codex`,
  `~/.gemini`), without which it does not start.

Elsewhere nothing prevents a write: the call is told so in `doctor` and the run's first lines,
and what appears or changes beside the project folder during a call (`../escape.txt`) is found
after it and refuses the call, named: the run halts.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.adapters.agents.landlock import abi_version

DEVICES = tuple(Path(p) for p in ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts"))
"""What a shell or a test writes to that is no place: the null device, a terminal (a CLI's
pseudo-terminal for its commands: `/dev/pts`, `/dev/ptmx` inside it)."""
_CACHES = {
    "XDG_CACHE_HOME": "cache",
    "npm_config_cache": "npm",
    "GOMODCACHE": "go-mod",
    "CARGO_HOME": "cargo",
}
"""Cache variables, and their folders in the scratch (pip and Go's build cache follow XDG)."""
_SCRATCH_PREFIX = "thoughtforge-scratch-"
_MAX_NAMED = 5


@functools.cache
def landlock_abi() -> int:
    """The Landlock ABI agent calls are held with; 0 where there is none."""
    return abi_version()


def boundary_in_force() -> str:
    """Which write boundary holds agent calls here, in a person's words."""
    abi = landlock_abi()
    if abi:
        return (
            f"Landlock (ABI {abi}): an agent call and a test run write only in the project folder "
            "(a plan step: not even there), a scratch folder and the CLI's own settings"
        )
    return (
        "none: this system offers no Landlock, so an agent call can write outside its project "
        "folder; what it writes beside the project is found after the call and halts the run"
    )


class Boundary(BaseModel):
    """One call's scratch folder and what it may write (None: nothing holds it)."""

    project_dir: Path
    scratch: Path
    writable: tuple[Path, ...] | None
    beside: dict[str, tuple[int, int]] | None
    """Without Landlock: the entries beside the project as the call began."""

    def environment(self) -> dict[str, str]:
        """The temporary folder, and held by Landlock, the caches a build or a test run writes
        in the home folder (pip, npm, Go, Cargo), all in the scratch folder."""
        env = {name: str(self.scratch) for name in ("TMPDIR", "TMP", "TEMP")}
        if self.writable is not None:
            env.update({name: str(self.scratch / folder) for name, folder in _CACHES.items()})
        return env

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    def written_outside(self) -> str | None:
        """Without Landlock: what the call wrote beside the project, as the refusal says it."""
        if self.beside is None:
            return None
        now = _beside(self.project_dir, self.scratch)
        written = sorted(name for name, seen in now.items() if self.beside.get(name) != seen)
        if not written:
            return None
        shown = ", ".join(str(self.project_dir.parent / name) for name in written[:_MAX_NAMED])
        more = f" and {len(written) - _MAX_NAMED} more" if len(written) > _MAX_NAMED else ""
        return (
            f"the agent wrote outside its project folder: {shown}{more}. Nothing on this system "
            "holds an agent's writes (no Landlock): check what it wrote, then resume."
        )


def open_boundary(
    project_dir: Path, *, project_writable: bool, also_writable: tuple[Path, ...] = ()
) -> Boundary:
    """A call's boundary, its scratch folder made; `close()` it when the call ends.
    `also_writable`: a CLI's own files, ThoughtForge's own report folder."""
    scratch = Path(tempfile.mkdtemp(prefix=_SCRATCH_PREFIX))
    if not landlock_abi():
        beside = _beside(project_dir, scratch)
        return Boundary(project_dir=project_dir, scratch=scratch, writable=None, beside=beside)
    writable = (*((project_dir,) if project_writable else ()), scratch, *also_writable, *DEVICES)
    return Boundary(project_dir=project_dir, scratch=scratch, writable=writable, beside=None)


def _beside(project_dir: Path, scratch: Path) -> dict[str, tuple[int, int]]:
    """The entries of the project's parent that are not projects (a project's own folder changes
    as its run goes) nor the call's scratch: each one's change time and size."""
    parent = project_dir.parent
    found = {}
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return {}
    for entry in entries:
        path = Path(entry.path)
        if path in (project_dir, scratch) or (path / "status.json").exists():
            continue
        try:
            seen = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        found[entry.name] = (seen.st_ctime_ns, seen.st_size)
    return found
