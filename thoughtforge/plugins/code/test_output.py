"""Reading a test run's output: counts, failing test names and runner crashes.

One pure parser per runner family. `read_output` tries them in `PARSERS` order and keeps the first
that recognises its own summary, so the format is told from the output, not from the command: a
`make test` that runs pytest is read as pytest. More specific formats come first, since a pytest
or cargo summary also looks like the plain `N passed, N failed` closing line.

Numbers are only ever read, never inferred. What a format cannot tell is said in `note`:

* pytest: `passed`, `failed` (failed tests plus errors) from the closing summary line; names from
  the `FAILED`/`ERROR` lines of the short summary, which the default `-rfE` prints. A collection
  error, a conftest that does not import, an internal or usage error, or no tests at all is a
  crash. These are pytest's exit codes 2 to 5, recognised by what pytest prints for each, so they
  are still found when `make` wraps pytest and replaces its exit code.
* Jest: the `Tests:` line; names from the `●` headings. A suite that failed to run is a crash.
* node's built-in runner: the `# pass N` (TAP) or `ℹ pass N` (spec reporter) totals; cancelled
  tests count as failed. Names from `not ok` lines (a suite failing only through its tests is
  left out, as its tests are listed) or the spec reporter's `✖ failing tests:` list.
* cargo: the `test result:` line of every test binary, summed; names from the `failures:` list.
  A crate that does not compile, or a test binary killed by a signal, is a crash.
* go: top-level `--- PASS/FAIL/SKIP:` lines. Without `-v`, go names failing tests only, so passing
  ones are not counted and the note says how many packages passed. A package that does not build
  is a crash.
* plain: the last line saying `N passed` and/or `N failed`; it names no tests.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable

from pydantic import BaseModel


class Tally(BaseModel):
    """What could be read from a run's output; `runner` is the format that recognised it."""

    runner: str | None = None
    total: int = 0
    passed: int = 0
    failed: int = 0
    failing: list[str] = []
    crash_reason: str | None = None
    note: str | None = None


Parser = Callable[[str], Tally | None]
"""Reads an ANSI-free output; None when the output is not in its format."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def read_output(output: str) -> Tally | None:
    """The first parser's reading of `output`, or None when no format is recognised."""
    text = strip_ansi(output)
    return next((tally for parse in PARSERS if (tally := parse(text)) is not None), None)


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(name.strip() for name in names))


def _counts(text: str) -> dict[str, int]:
    """`3 passed, 1 failed` and the like, as {word: number}."""
    return {word: int(n) for n, word in re.findall(r"(\d+) ([a-z]+)", text)}


_PYTEST_SUMMARY = re.compile(
    r"^=*\s*((?:\d+ [a-z]+, )*\d+ [a-z]+|no tests ran) in \d+(?:\.\d+)?s\b", re.MULTILINE
)
_PYTEST_NAME = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.MULTILINE)
_PYTEST_CRASHES = (
    (re.compile(r"^!* ?Interrupted: (.*?) ?!*$", re.MULTILINE), "pytest stopped early: {}"),
    (re.compile(r"^ImportError while loading conftest '(.*)'", re.MULTILINE), "{} does not import"),
    (
        re.compile(r"^INTERNALERROR> (\w+(?:Error|Exception)\b.*)$", re.MULTILINE),
        "pytest internal error: {}",
    ),
    (re.compile(r"^ERROR: usage: .*\n(.*)$", re.MULTILINE), "pytest usage error: {}"),
)


def parse_pytest(text: str) -> Tally | None:
    summaries = _PYTEST_SUMMARY.findall(text)
    crashes = [
        reason.format(found.group(1))
        for pattern, reason in _PYTEST_CRASHES
        if (found := pattern.search(text))
    ]
    if not summaries and not crashes:
        return None
    counts = _counts(summaries[-1]) if summaries else {}
    errors = counts.get("error", 0) + counts.get("errors", 0)
    failed = counts.get("failed", 0) + errors
    total = sum(counts.get(word, 0) for word in ("passed", "skipped", "xfailed", "xpassed"))
    total += failed
    if summaries and total == 0:
        crashes.append("no tests ran")
    return Tally(
        runner="pytest",
        total=total,
        passed=counts.get("passed", 0),
        failed=failed,
        failing=_unique(_PYTEST_NAME.findall(text)),
        crash_reason=crashes[0] if crashes else None,
    )


_JEST_TESTS = re.compile(r"^Tests:\s+(.*\d+ total)\s*$", re.MULTILINE)
_JEST_NAME = re.compile(r"^\s*● (.+?)\s*$", re.MULTILINE)
_JEST_NOT_TESTS = ("Console", "Test suite failed to run")


def parse_jest(text: str) -> Tally | None:
    lines = _JEST_TESTS.findall(text)
    if not lines:
        return None
    counts = _counts(lines[-1])
    headings = _JEST_NAME.findall(text)
    not_run = "Test suite failed to run" in headings
    return Tally(
        runner="jest",
        total=counts.get("total", 0),
        passed=counts.get("passed", 0),
        failed=counts.get("failed", 0),
        failing=_unique(h for h in headings if h not in _JEST_NOT_TESTS and not h.endswith(":")),
        crash_reason="a test suite failed to run" if not_run else None,
    )


_NODE_TOTAL = re.compile(r"^[#ℹ] (tests|pass|fail|cancelled|skipped|todo) (\d+)$", re.MULTILINE)
_TAP_RESULT = re.compile(r"^\s*(?:not )?ok \d+\b")
_TAP_NOT_OK = re.compile(r"^\s*not ok \d+ - (.*?)(?: # (TODO|SKIP)\b.*)?$")
_SPEC_FAILED = re.compile(r"^✖ (.+?) \([\d.]+m?s\)$")


def parse_node(text: str) -> Tally | None:
    counts = {word: int(n) for word, n in _NODE_TOTAL.findall(text)}
    if "tests" not in counts or "pass" not in counts:
        return None
    return Tally(
        runner="node",
        total=counts["tests"],
        passed=counts["pass"],
        failed=counts.get("fail", 0) + counts.get("cancelled", 0),
        failing=_unique(_tap_failures(text.splitlines()) or _spec_failures(text)),
    )


def _tap_failures(lines: list[str]) -> list[str]:
    return [
        found.group(1)
        for index, line in enumerate(lines)
        if (found := _TAP_NOT_OK.match(line))
        and found.group(2) is None
        and not _only_subtests_failed(lines, index + 1)
    ]


def _only_subtests_failed(lines: list[str], start: int) -> bool:
    """The YAML block after a `not ok` says why; it ends at `...` (or the next test's line)."""
    for line in itertools.islice(lines, start, None):
        if line.strip() == "failureType: 'subtestsFailed'":
            return True
        if line.strip() == "..." or _TAP_RESULT.match(line):
            return False
    return False


def _spec_failures(text: str) -> list[str]:
    _, heading, failures = text.partition("✖ failing tests:")
    found = (_SPEC_FAILED.match(line) for line in failures.splitlines()) if heading else ()
    return [match.group(1) for match in found if match]


_CARGO_RESULT = re.compile(
    r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;", re.MULTILINE
)
_CARGO_FAILURES = re.compile(r"^failures:\n((?: {4}\S.*\n?)+)", re.MULTILINE)
_CARGO_CRASHES = (
    (re.compile(r"^error: could not compile `(.+?)`", re.MULTILINE), "crate {} does not compile"),
    (
        re.compile(r"^\s*process didn't exit successfully: `(.+?)` \(signal: ", re.MULTILINE),
        "test binary {} was killed by a signal",
    ),
)


def parse_cargo(text: str) -> Tally | None:
    results = [tuple(map(int, result)) for result in _CARGO_RESULT.findall(text)]
    crashes = [
        reason.format(found.group(1))
        for pattern, reason in _CARGO_CRASHES
        if (found := pattern.search(text))
    ]
    if not results and not crashes:
        return None
    passed, failed, ignored = [sum(column) for column in zip(*results, strict=True)] or [0, 0, 0]
    return Tally(
        runner="cargo",
        total=passed + failed + ignored,
        passed=passed,
        failed=failed,
        failing=_unique(
            name for block in _CARGO_FAILURES.findall(text) for name in block.splitlines()
        ),
        crash_reason=crashes[0] if crashes else None,
    )


_GO_TEST = re.compile(r"^--- (PASS|FAIL|SKIP): (\S+)", re.MULTILINE)
_GO_PACKAGE = re.compile(r"^(ok  |FAIL|\?   )\t(\S+)[\t ](.*)$", re.MULTILINE)
_GO_NOT_BUILT = ("[build failed]", "[setup failed]")


def parse_go(text: str) -> Tally | None:
    tests = _GO_TEST.findall(text)
    packages = _GO_PACKAGE.findall(text)
    if not tests and not packages:
        return None
    verdicts = [verdict for verdict, _ in tests]
    unbuilt = [name for _, name, rest in packages if rest.strip() in _GO_NOT_BUILT]
    passed_packages = sum(1 for status, _, _ in packages if status == "ok  ")
    note = None
    if passed_packages and "PASS" not in verdicts:
        note = (
            f"go test names passing tests only with -v: the tests of {passed_packages} "
            "passing package(s) are not counted"
        )
    return Tally(
        runner="go",
        total=len(tests),
        passed=verdicts.count("PASS"),
        failed=verdicts.count("FAIL"),
        failing=_unique(name for verdict, name in tests if verdict == "FAIL"),
        crash_reason=f"package {unbuilt[0]} does not build" if unbuilt else None,
        note=note,
    )


_PLAIN = re.compile(r"\b\d+ (?:passed|failed)\b")


def parse_plain(text: str) -> Tally | None:
    line = next((line for line in reversed(text.splitlines()) if _PLAIN.search(line)), None)
    if line is None:
        return None
    counts = _counts(line)
    passed, failed = counts.get("passed", 0), counts.get("failed", 0)
    return Tally(
        runner="plain",
        total=passed + failed,
        passed=passed,
        failed=failed,
        note="the output names no failing tests" if failed else None,
    )


PARSERS: tuple[Parser, ...] = (
    parse_pytest,
    parse_cargo,
    parse_go,
    parse_jest,
    parse_node,
    parse_plain,
)
