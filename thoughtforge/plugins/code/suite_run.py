"""Run a code project's own test suite and read what it reports.

ThoughtForge never picks a test framework: the coding agent gives the project the standard entry
point of its language (`npm test`, `make test`, pytest, ...), and `code.test_commands` maps each
language to that command. `detect_language` picks the language, `run_tests` runs the command in
the project directory and `test_output` reads the result.

An agent-written suite is untrusted: it may wait for input, hang, print megabytes, leave
children behind or write outside the project. So stdin is closed, the run is bounded by a timeout
after which its whole tree is killed, its writes are held as an agent call's are, and its output
is refused past `MAX_OUTPUT_BYTES` (the run is stopped there).
A run that could not produce a verdict on the tests is `crashed`; a failing test is not a crash.
A command that never started its runner (`python -m pytest` where that python has no pytest, a
`make test` with no test target) is told from the output's last line (`start_failure`): no test
ran, and nothing the coding agent writes can make it run.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from pydantic import computed_field

from thoughtforge.adapters.agents.process import ProcessResult, run_command
from thoughtforge.adapters.agents.write_boundary import open_boundary
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.processes import AGENT_MARK
from thoughtforge.plugins.code.test_output import Tally, read_output, strip_ansi
from thoughtforge.prompting import SectionedText

MAX_OUTPUT_BYTES = 5_000_000
TAIL_CHARS = 4000
SPEC_SECTION = "Deliverable Structure"
_UNREAD = "no test summary recognised in the output: only the exit code ({}) is known"
_RUN_ENV = {"CI": "true", "NO_COLOR": "1"}  # no watch mode, no prompts, no colour codes

LANGUAGE_WORDS: dict[str, tuple[str, ...]] = {
    "python": ("Python",),
    "node": ("Node.js", "NodeJS", "Node", "JavaScript", "TypeScript"),
    "rust": ("Rust",),
    "go": ("Go", "Golang"),
}
"""The words in a spec that name a built-in language; any other language is named by its key.
Whole words, in any case, except "Go": in lower case it is an English verb."""
_CASE_SENSITIVE = frozenset({"Go"})

PROJECT_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("python", ("pyproject.toml", "setup.py", "pytest.ini")),
    ("node", ("package.json",)),
    ("rust", ("Cargo.toml",)),
    ("go", ("go.mod",)),
)
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_MAKE_TEST_TARGET = re.compile(r"^(?:[^\s:#=]+[ \t]+)*test[ \t]*::?(?!=)", re.MULTILINE)
_NOT_STARTED = re.compile(
    r"No module named \S+|command not found|: not found$|No rule to make target|"
    r"Missing script|could not determine executable to run|Unknown command"
)
"""What a shell, an interpreter, make or npm prints as its last line when the test runner itself
could not be started."""
_PROGRAM_PREFIX = re.compile(r"\S+: ")


class TestRun(Tally):
    """One run of a project's test command. `total` counts every test the runner reported,
    skipped ones too; `note` says what the output did not tell; `output_tail` is the end of the
    output (ANSI colours removed) for the fixer and the review."""

    __test__: ClassVar[bool] = False  # not a pytest test class, despite its name

    exit_code: int | None
    output_tail: str = ""
    start_failure: str | None = None
    """Why the command could not start its runner (the output's words), when it could not."""

    @computed_field  # type: ignore[prop-decorator]  # mypy cannot read it; pydantic's docs say so
    @property
    def crashed(self) -> bool:
        """The runner itself failed: the counts, if any, are not a verdict on the tests."""
        return self.crash_reason is not None

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0 and not self.crashed and self.failed == 0


def detect_language(
    spec_text: str, project_dir: Path, commands: dict[str, list[str]]
) -> str | None:
    """The project's language, among those `commands` knows.

    The spec's Deliverable Structure section names the intended language; the files the agent
    built show the actual one. Where they disagree the files win, since the tests to run are the
    ones that exist. Files naming several languages (a Makefile beside a pyproject.toml) are
    settled by the spec when it names one of them, else by the order of `PROJECT_MARKERS`, with
    a Makefile's `test` target last. With no marker file, the spec's language is used.
    """
    found = _file_languages(project_dir, commands)
    intended = _spec_language(spec_text, commands)
    if intended in found or not found:
        return intended
    return found[0]


def _file_languages(project_dir: Path, commands: dict[str, list[str]]) -> list[str]:
    found = [
        language
        for language, names in PROJECT_MARKERS
        if any((project_dir / name).is_file() for name in names)
    ]
    if any(_has_test_target(project_dir / name) for name in _MAKEFILES):
        found.append("make")
    return [language for language in found if language in commands]


def _has_test_target(makefile: Path) -> bool:
    try:
        return bool(_MAKE_TEST_TARGET.search(read_own_text(makefile, errors="replace")))
    except OSError:
        return False


def _spec_language(spec_text: str, commands: dict[str, list[str]]) -> str | None:
    """The language named first, looking first at the lines that say "language"."""
    section = SectionedText.parse(spec_text).get(SPEC_SECTION) or ""
    lines = section.splitlines()
    stated = [line for line in lines if re.search(r"\blanguages?\b", line, re.IGNORECASE)]
    for text in ("\n".join(stated), section):
        mentions = [
            (found.start(), language)
            for language in commands
            for pattern in _spec_words(language)
            if (found := pattern.search(text))
        ]
        if mentions:
            return min(mentions)[1]
    return None


def _spec_words(language: str) -> list[re.Pattern[str]]:
    return [
        re.compile(
            rf"(?<!\w){re.escape(word)}(?!\w)", 0 if word in _CASE_SENSITIVE else re.IGNORECASE
        )
        for word in LANGUAGE_WORDS.get(language, (language,))
    ]


def run_tests(project_dir: Path, command: list[str], timeout: float) -> TestRun:
    """Run `command` in `project_dir` and read its result; never raises for a bad suite."""
    if not command:
        raise ValueError("an empty test command")
    problem = _cannot_start(project_dir, command[0])
    if problem:
        return TestRun(exit_code=None, crash_reason=problem, start_failure=problem)
    result = run_in_project(project_dir, command, timeout)
    output = strip_ansi(result.stdout)
    read = read_output(output)
    if read is None and result.returncode:
        said = _not_started(output)
        if said is not None:
            return TestRun(
                exit_code=result.returncode,
                crash_reason=f"could not start: {said}",
                start_failure=said,
                output_tail=output[-TAIL_CHARS:],
            )
    tally = read or Tally(note=_UNREAD.format(result.returncode))
    crash_reason = stopped_early(result, timeout) or tally.crash_reason
    if crash_reason is None and tally.runner and tally.failed == 0 and result.returncode:
        crash_reason = f"exited with code {result.returncode} although no test failed"
    return TestRun(
        **tally.model_dump(exclude={"crash_reason"}),
        crash_reason=crash_reason,
        exit_code=result.returncode,
        output_tail=output[-TAIL_CHARS:],
    )


def run_in_project(
    project_dir: Path,
    command: list[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
    report_dir: Path | None = None,
    *,
    dropped: str | None = None,
) -> ProcessResult:
    """Run a command of the untrusted suite in the project: stdin closed, output merged and
    capped, its whole tree killed at the timeout, its writes held to the project and a scratch
    folder as an agent's are (`write_boundary`), and `report_dir` (ThoughtForge's report); no
    variable starting `dropped`."""
    also = () if report_dir is None else (report_dir,)
    boundary = open_boundary(project_dir, project_writable=True, also_writable=also)
    marked = {AGENT_MARK: str(project_dir), **boundary.environment()}
    inherited = {k: v for k, v in os.environ.items() if not (dropped and k.startswith(dropped))}
    try:
        return run_command(
            command,
            stdin_text="",
            env={**inherited, **_RUN_ENV, **marked, **(env or {})},
            timeout=timeout,
            max_bytes=MAX_OUTPUT_BYTES,
            cwd=project_dir,
            merge_stderr=True,
            writable=boundary.writable,
        )
    finally:
        boundary.close()


def _not_started(output: str) -> str | None:
    """The output's last line when it says the runner could not be started (a program path
    before it dropped: `/usr/bin/python3: No module named pytest`), else None."""
    last = next((line.strip() for line in reversed(output.splitlines()) if line.strip()), "")
    found = _NOT_STARTED.search(last)
    if found is None:
        return None
    prefix = _PROGRAM_PREFIX.fullmatch(last[: found.start()])
    return (last[found.start() :] if prefix else last)[:300]


def install_hint(command: list[str]) -> str:
    """What to install so `command` starts: the module a `-m` names, else its program."""
    if "-m" in command[:-1]:
        return f"install {command[command.index('-m') + 1]} for that interpreter"
    return f"install {command[0]} (or what it runs)"


def _cannot_start(project_dir: Path, program: str) -> str | None:
    if not project_dir.is_dir():
        return f"the project directory {project_dir} does not exist"
    located = str(project_dir / program) if os.sep in program else program
    if shutil.which(located) is None:
        return f"command not found: {program}"
    return None


def stopped_early(result: ProcessResult, timeout: float) -> str | None:
    """Why the run ended before the suite did, if it did."""
    if result.timed_out:
        return f"timed out after {timeout:g} s; the suite and its processes were killed"
    if result.too_large:
        return f"printed more than {MAX_OUTPUT_BYTES:,} bytes; the suite was stopped"
    if result.returncode is not None and result.returncode < 0:
        number = -result.returncode
        return f"killed by signal {number} ({signal.strsignal(number)})"
    return None
