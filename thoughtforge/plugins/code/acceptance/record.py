"""What ThoughtForge's own pytest run records beside its JUnit report (`in_project/
record_plugin.py`, loaded with `-p`): every project file the tests opened or imported, each with
the project file whose code did it and the test then running, and how to call each test outside
pytest (read by `outside`).

The plugin and the plain run (`in_project/`) are copied into the run's scratch folder, which is
put first on `PYTHONPATH` (both runs get the same value, so it tells the code under test
nothing).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from thoughtforge.core.own_files import read_own_bytes

IN_PROJECT = Path(__file__).parent / "in_project"
PLUGIN = "thoughtforge_locked_run"
PLAIN_RUN = "thoughtforge_plain_run.py"
"""The plain run (with its two siblings beside it, `thoughtforge_plain_*.py`)."""
RECORD = "record.json"
MAX_RECORD_BYTES = 20_000_000


class Read(BaseModel):
    """A project file the run read: opened for reading (`open`) or imported (`import`)."""

    kind: Literal["open", "import"]
    path: str
    by: str
    """The project file whose code opened or imported it (the innermost on the stack)."""
    test: str | None = None
    """The test running then (its node id without parameters); None while pytest collected."""
    module: str | None = None


class RunRecord(BaseModel):
    executable: str = ""
    """The interpreter that ran pytest: the plain run uses it too."""
    reads: list[Read] = []


def install(scratch: Path) -> tuple[list[str], dict[str, str]]:
    """The plugin and the plain run copied into `scratch`: pytest's extra arguments (the plugin
    and where it writes) and the environment both runs share."""
    shutil.copyfile(IN_PROJECT / "record_plugin.py", scratch / f"{PLUGIN}.py")
    for name in ("plain_run", "plain_equality", "plain_fixtures"):
        shutil.copyfile(IN_PROJECT / f"{name}.py", scratch / f"thoughtforge_{name}.py")
    path = os.pathsep.join(p for p in (str(scratch), os.environ.get("PYTHONPATH", "")) if p)
    return ["-p", PLUGIN, f"--tf-record={scratch / RECORD}"], {"PYTHONPATH": path}


def read_record(scratch: Path) -> RunRecord | None:
    """The record the plugin wrote; None when it wrote none (or one that cannot be read)."""
    path = scratch / RECORD
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            return None
        return RunRecord.model_validate_json(read_own_bytes(path, MAX_RECORD_BYTES))
    except (OSError, ValidationError):
        return None
