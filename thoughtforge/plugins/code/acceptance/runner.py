"""ThoughtForge runs the locked acceptance tests itself, with its own command: the project's
pytest (the program its test command names), given the locked node ids, the project as its root
directory, the configured `addopts` ignored (`-o addopts=`, so no `-k` or `--deselect` in them
counts), no cache (`-p no:cacheprovider`, so no `--lf` state), and a JUnit XML report it reads
itself. Only the locked tests' own modules are imported, so a test module the fixer added cannot
patch what they import.

A locked test passes only when pytest reports it run and passed: skipped, xfailed, errored or
not collected at all is a failure, and so is an xfail-marked test that passed (`xfail_strict`:
a criterion's test its author expects to fail is no evidence either way). A parametrised test
passes when every case does. And it passes only when it passes a second way too, outside pytest
(`outside`): code that answers right only under pytest fails there. The run records what the
tests read (`record`), which the lock holds to (`reads`).
"""

from __future__ import annotations

import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel

from thoughtforge.plugins.code.acceptance.outside import run_outside
from thoughtforge.plugins.code.acceptance.record import Read, install, read_record
from thoughtforge.plugins.code.suite_run import TAIL_CHARS, run_in_project, stopped_early
from thoughtforge.plugins.code.test_output import strip_ansi

Result = Literal["passed", "failed", "error", "skipped", "xfailed", "not run"]
MAX_REPORT_BYTES = 20_000_000
_OWN_OPTIONS = ["-o", "addopts=", "-o", "xfail_strict=true", "-p", "no:cacheprovider", "-q"]
_ENV = {"PYTHONDONTWRITEBYTECODE": "1"}
_COLLECTED = re.compile(r"^(?:(\d+)(?:/\d+)? tests? collected|no tests collected)", re.MULTILINE)
_WORST = ("not run", "error", "failed", "xfailed", "skipped", "passed")


class AcceptanceRun(BaseModel):
    results: dict[str, Result]
    """Locked node id → its result in this run."""
    crash: str | None = None
    output_tail: str = ""
    outside: dict[str, str] = {}
    """Node id → why it failed outside pytest, where pytest passed it."""
    unchecked: dict[str, str] = {}
    """Node id → why the run outside pytest could not call it (pytest's verdict stands)."""
    reads: list[Read] = []
    """The project files the run opened or imported (`record.Read`)."""

    @property
    def failing(self) -> list[str]:
        return [node for node, result in self.results.items() if result != "passed"]


def pytest_program(test_command: list[str]) -> list[str]:
    """The part of the project's test command that starts pytest (`pytest`, `python -m pytest`);
    this interpreter's pytest when the command names none (a `make test`)."""
    for index, token in enumerate(test_command):
        name = PurePosixPath(token).name
        if name in ("pytest", "py.test"):
            return test_command[: index + 1]
        if token == "-m" and test_command[index + 1 : index + 2] == ["pytest"]:
            return test_command[: index + 2]
    return [sys.executable, "-m", "pytest"]


def run_locked(
    project_dir: Path, program: list[str], node_ids: list[str], timeout: float
) -> AcceptanceRun:
    """Run exactly `node_ids` and read each one's result from the JUnit report."""
    if not node_ids:
        return AcceptanceRun(results={})
    with tempfile.TemporaryDirectory(prefix="thoughtforge-acceptance-") as folder:
        scratch = Path(folder)
        report = scratch / "report.xml"
        plugin, env = install(scratch)
        argv = [
            *program,
            *_OWN_OPTIONS,
            *plugin,
            "--rootdir",
            str(project_dir),
            f"--junitxml={report}",
            "-o",
            "junit_logging=no",
            "--",
            *node_ids,
        ]
        output, crash = _run(project_dir, argv, timeout, env, scratch)
        cases = _read_report(report)
        if cases is None:
            crash = crash or "pytest wrote no report"
            cases = {}
        results = {node: _result_of(node, cases) for node in node_ids}
        record = read_record(scratch)
        passed = [node for node, result in results.items() if result == "passed"]
        if record is None:
            crash = crash or "pytest's run left no record of what it ran"
            outside = {}
            results.update(dict.fromkeys(passed, "error"))
        else:
            outside = run_outside(project_dir, scratch, record, {**_ENV, **env}, passed, timeout)
    failed = {node: o.why for node, o in outside.items() if o.result == "failed"}
    results.update(dict.fromkeys(failed, "failed"))
    return AcceptanceRun(
        results=results,
        crash=crash,
        output_tail=output[-TAIL_CHARS:],
        outside=failed,
        unchecked={node: o.why for node, o in outside.items() if o.result == "unchecked"},
        reads=record.reads if record else [],
    )


def collected_count(project_dir: Path, program: list[str], timeout: float) -> int:
    """How many tests the whole suite collects under ThoughtForge's own options; 0 when pytest
    names no count (it could not collect)."""
    argv = [*program, *_OWN_OPTIONS, "--rootdir", str(project_dir), "--collect-only"]
    output, _ = _run(project_dir, argv, timeout)
    found = _COLLECTED.findall(output)
    return int(found[-1]) if found and found[-1] else 0


def _run(
    project_dir: Path,
    argv: list[str],
    timeout: float,
    env: dict[str, str] | None = None,
    report_dir: Path | None = None,
) -> tuple[str, str | None]:
    try:
        result = run_in_project(
            project_dir, argv, timeout, {**_ENV, **(env or {})}, report_dir, dropped="PYTEST_"
        )
    except OSError as exc:
        return "", f"cannot start {argv[0]}: {exc}"
    return strip_ansi(result.stdout), stopped_early(result, timeout)


def _read_report(report: Path) -> dict[tuple[str, str], list[Result]] | None:
    """(classname, name) → the results of the test cases so named; None without a report."""
    try:
        if report.stat().st_size > MAX_REPORT_BYTES:
            return None
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return None
    cases: dict[tuple[str, str], list[Result]] = {}
    for case in root.iter("testcase"):
        key = (case.get("classname", ""), case.get("name", ""))
        cases.setdefault(key, []).append(_case_result(case))
    return cases


def _case_result(case: ET.Element) -> Result:
    if case.find("error") is not None:
        return "error"
    if case.find("failure") is not None:
        return "failed"
    skipped = case.find("skipped")
    if skipped is not None:
        return "xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"
    return "passed"


def _result_of(node_id: str, cases: dict[tuple[str, str], list[Result]]) -> Result:
    path, *names = node_id.split("::")
    classname = ".".join([path.removesuffix(".py").replace("/", "."), *names[:-1]])
    function = names[-1] if names else ""
    found = [
        result
        for (cls, name), results in cases.items()
        if cls == classname and (name == function or name.startswith(f"{function}["))
        for result in results
    ]
    if not found:
        return "not run"
    return min(found, key=_WORST.index)
