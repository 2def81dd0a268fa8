"""Code projects prepared by hand for Phase 3 (docs written directly), and the files a scripted
coding agent writes into them: a small Python calculator with a bug that a fix removes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.build_setup import locked_project
from thoughtforge.config import Config
from thoughtforge.core.git_repo import commit
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_status, write_status
from thoughtforge.models import DeliverableType, Phase

SPEC = """# Spec: Pocket Calculator

## Deliverable Overview

A Python library that adds and multiplies integers.

## Deliverable Structure

Language: Python 3.11 on Linux. Tools: pytest. No dependencies. One module `calc.py`.

## Key Decisions

- Plain functions, no classes.

## Resolved Unknowns

None

## Dependencies

None

## Scope Boundaries

- Integers only.
"""
CONSTRAINTS = (
    "# Constraints: Pocket Calculator\n\n## Acceptance Criteria\n\n"
    "- add(2, 3) is 5\n- mul(2, 3) is 6\n"
)
TEST_COMMAND = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider"]

CALC_BUGGY = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST_CALC = (
    "from calc import add, mul\n\n\ndef test_ac_1_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_ac_2_mul():\n    assert mul(2, 3) == 6\n"
)
PYPROJECT = '[project]\nname = "calc"\nversion = "0.1.0"\n'
BUGGY_BUILD = {"calc.py": CALC_BUGGY, "test_calc.py": TEST_CALC, "pyproject.toml": PYPROJECT}
GOOD_BUILD = {**BUGGY_BUILD, "calc.py": CALC_FIXED}

COMPLETE_PLAN = "# Plan\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n| a | b | c |\n"
PASS = '{"verdict": "pass", "reasons": ["decided and detailed"]}'
FAIL = '{"verdict": "fail", "reasons": ["the storage format is undecided"]}'


def code_sections(tmp_path: Path, **sections: Any) -> dict[str, Any]:
    """Config sections for code tests: this interpreter's pytest runs the built project."""
    code = {"test_commands": {"python": TEST_COMMAND}, **sections.pop("code", {})}
    return {"code": code, **sections}


def code_project(config: Config, resources: dict[str, str] | None = None) -> Project:
    """A code project as Phase 2 leaves it, with `resources` (name: text) among its inputs."""
    docs = {
        "docs/intent.md": "# Intent: Pocket Calculator\n",
        "docs/spec.md": SPEC,
        "docs/constraints.md": CONSTRAINTS,
    }
    inputs = {f"resources/{name}": text for name, text in (resources or {}).items()}
    return locked_project(config, {**docs, **inputs}, DeliverableType.CODE, "Pocket Calculator")


def write_script(path: Path, **steps: Any) -> Path:
    """Answers per step; a write-only answer is `{"text": ..., "write": {...}}`."""
    path.write_text(yaml.safe_dump({"steps": steps}))
    return path


def wrote(files: dict[str, str], text: str = "done", **extra: Any) -> dict[str, Any]:
    """An answer that writes `files` into the project."""
    return {"text": text, "write": files, **extra}


def polishing_code_project(config: Config, files: dict[str, str]) -> Project:
    """A code project as Phase 3 leaves it, with `files` built and committed."""
    project = code_project(config)
    for name, text in files.items():
        (project.dir / name).parent.mkdir(parents=True, exist_ok=True)
        (project.dir / name).write_text(text)
    write_status(
        project.dir, read_status(project.dir).model_copy(update={"phase": Phase.POLISHING})
    )
    commit(project.dir, "Phase 3 complete: code built")
    return project


def code_review(tests: dict[str, int], *issues: dict[str, str]) -> str:
    """A code review as a reviewer writes it (the tests copied, maybe wrongly)."""
    return json.dumps({"issues": list(issues), "tests": tests})


ISSUE = {
    "severity": "medium",
    "description": "mul adds its arguments instead of multiplying them",
    "location": "calc.py:6",
    "recommendation": "return a * b",
}
