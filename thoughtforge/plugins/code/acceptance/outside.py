"""The locked tests' second run, outside pytest's runtime (`in_project/plain_run.py`): a plain
Python process, in the interpreter pytest ran in, with no `PYTEST_*` variable, that calls each
test pytest passed under another name, judging its `==` by plain value. A test passes only when
both runs say so; one the plain run cannot call as pytest does (a fixture it lacks) keeps
pytest's verdict, and the run says which.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, TypeAdapter, ValidationError

from thoughtforge.core.own_files import read_own_bytes
from thoughtforge.plugins.code.acceptance.record import PLAIN_RUN, RECORD, RunRecord
from thoughtforge.plugins.code.suite_run import run_in_project, stopped_early

OUT = "outside.json"
NODES = "nodes.json"
MAX_OUT_BYTES = 5_000_000


class Outside(BaseModel):
    result: Literal["passed", "failed", "unchecked"]
    why: str = ""


def run_outside(
    project_dir: Path,
    scratch: Path,
    record: RunRecord,
    env: dict[str, str],
    nodes: list[str],
    timeout: float,
) -> dict[str, Outside]:
    """Each of `nodes` as the plain run found it; a node it gave no result for failed."""
    if not nodes:
        return {}
    interpreter = Path(record.executable)
    if not _outside_the_project(interpreter, project_dir):
        why = "pytest's record names no interpreter outside the project"
        return {node: Outside(result="failed", why=why) for node in nodes}
    (scratch / NODES).write_text(json.dumps(nodes), encoding="utf-8")  # argv would show them
    argv = [str(interpreter), *(str(scratch / name) for name in (PLAIN_RUN, RECORD, NODES, OUT))]
    try:
        ran = run_in_project(project_dir, argv, timeout, env, scratch, dropped="PYTEST_")
        stopped = stopped_early(ran, timeout)
    except OSError as exc:
        stopped = f"cannot start {interpreter}: {exc}"
    found = _read(scratch / OUT)
    missing = Outside(result="failed", why=stopped or "the run outside pytest gave no result")
    return {node: found.get(node, missing) for node in nodes}


def _outside_the_project(interpreter: Path, project_dir: Path) -> bool:
    try:
        real = interpreter.resolve()
        return (
            interpreter.is_absolute()
            and real.is_file()
            and not real.is_relative_to(project_dir.resolve())
        )
    except OSError:
        return False


_RESULTS = TypeAdapter(dict[str, Outside])


def _read(path: Path) -> dict[str, Outside]:
    try:
        if path.stat().st_size > MAX_OUT_BYTES:
            return {}
        return _RESULTS.validate_json(read_own_bytes(path, MAX_OUT_BYTES))
    except (OSError, ValidationError):
        return {}
