"""The locked-acceptance check as code mode's steps use it: the criteria as the person states
them, the tests named after them, ThoughtForge's own run of those tests, the lock, and the
verdict on a step.

`check_locked_acceptance` is the deliverable validator of code mode: given the project and the
commit a build or fix step started from, the verdict on what the step left in the work tree.
Python projects (pytest) are locked test by test and run by ThoughtForge itself; in any other
language the lock holds the test files that name a criterion (whole), the runner's configuration
and the suite's count, and the project's own command's verdict is the tests' result
(`survey.generic_survey`).
"""

from __future__ import annotations

from pathlib import Path

from thoughtforge.core import git_repo
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import CONSTRAINTS_FILE
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import discard_agent_changes
from thoughtforge.errors import PhaseHalt, ProjectFileError, StateFileError
from thoughtforge.models import HaltReason
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.traceability import (
    TRACEABILITY_FILE,
    Criterion,
    Evidence,
    Trace,
    criteria,
    render,
)
from thoughtforge.plugins.code.acceptance.lock import AcceptanceLock, read_lock, write_lock
from thoughtforge.plugins.code.acceptance.reads import fingerprints_now, locked_reads
from thoughtforge.plugins.code.acceptance.runner import (
    AcceptanceRun,
    Result,
    collected_count,
    pytest_program,
    run_locked,
)
from thoughtforge.plugins.code.acceptance.survey import (
    Survey,
    generic_survey,
    remove_ignored_runner_files,
    survey,
)
from thoughtforge.plugins.code.acceptance.verdict import (
    NAMING,
    LockVerdict,
    criterion_test_name,
    judge,
    lock_of,
)
from thoughtforge.plugins.code.suite import Suite
from thoughtforge.plugins.code.suite_run import TestRun


def check_locked_acceptance(
    project_dir: Path,
    before: str | None,
    *,
    program: list[str],
    timeout: float,
    count: bool = True,
) -> LockVerdict:
    """The verdict on the step that started at commit `before` (None: the lock's own commit)
    and left the work tree as it is: which locked tests, runner files or collected tests it
    touched, and which reworded criteria it left without a test (the collected count only with
    `count`: it takes a run of pytest). No lock, no objection."""
    lock = read_lock(project_dir)
    if lock is None:
        return LockVerdict()
    stated = criteria(read_own_text(project_dir / CONSTRAINTS_FILE))
    if lock.per == "file":
        verdict = judge(lock, stated, generic_survey(project_dir), None)
    else:
        collected = collected_count(project_dir, program, timeout) if count else None
        reads = fingerprints_now(project_dir, lock.reads)
        verdict = judge(lock, stated, survey(project_dir), collected, reads)
    base = before or lock.commit
    if verdict.refused and base:
        changed = git_repo.changed_since(project_dir, base, []) or []
        log_event(project_dir, "locked_acceptance_diff", since=base[:12], files=changed[:50])
    return verdict


class Acceptance:
    """The acceptance criteria of one code project and the tests that stand for them."""

    def __init__(self, engine: PhaseEngine, suite: Suite) -> None:
        self.engine = engine
        self.suite = suite
        self.dir = engine.project.dir
        self.timeout = engine.config.code.test_timeout_seconds

    def criteria(self) -> list[Criterion]:
        return criteria(self.engine.read(CONSTRAINTS_FILE))

    def per_test(self) -> bool:
        """Whether the tests are locked and run one by one (pytest's), as the lock says once
        taken, else as the project's language and command say."""
        lock = self.lock()
        if lock is not None:
            return lock.per == "test"
        return self.suite.language() == "python" or any(
            "pytest" in token for token in self.suite.command()
        )

    def program(self) -> list[str]:
        return pytest_program(self.suite.command())

    def survey(self) -> Survey:
        return survey(self.dir) if self.per_test() else generic_survey(self.dir)

    def lock(self) -> AcceptanceLock | None:
        """The lock, if taken (whatever the project's files now say its language is: a step
        that swaps `pyproject.toml` for a `package.json` does not lift it); one that cannot be
        read halts."""
        try:
            return read_lock(self.dir)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{exc}.") from None

    def run(self, node_ids: list[str], suite_run: TestRun | None = None) -> AcceptanceRun:
        """ThoughtForge's own run of `node_ids`; one the tree no longer has is "not run" (given
        to pytest, a missing node id would stop it running any). Locked by file, they have the
        project's own suite's verdict, `suite_run`."""
        present = {t.node_id for t in self.survey().tests}
        if not self.per_test():
            verdict: Result = "not run"
            if suite_run is not None:
                verdict = "passed" if suite_run.succeeded else "failed"
            return AcceptanceRun(
                results={n: verdict if n in present else "not run" for n in node_ids}
            )
        run = run_locked(
            self.dir, self.program(), [n for n in node_ids if n in present], self.timeout
        )
        if run.outside or run.unchecked:
            log_event(
                self.dir,
                "acceptance_outside_pytest",
                level="warning" if run.outside else "info",
                failed=run.outside,
                unchecked=run.unchecked,
            )
        missing: dict[str, Result] = {n: "not run" for n in node_ids if n not in present}
        return run.model_copy(update={"results": {**run.results, **missing}})

    def evidence_tests(self, lock: AcceptanceLock) -> list[str]:
        """What ThoughtForge runs as the criteria's evidence: the locked tests, and every test
        named after a criterion since (one added skipped or xfailed says its criterion does not
        hold, whatever the locked one says)."""
        now = self.survey()
        named = [t.node_id for c in self.criteria() for t in now.for_criterion(c.number)]
        return list(dict.fromkeys([*(t.node_id for t in lock.tests), *named]))

    def take_lock(self, ran: AcceptanceRun | None = None) -> AcceptanceLock:
        """Lock the tests named after each criterion as they stand now, with what they read in
        `ran` (their run on this tree; run now without one)."""
        per_test = self.per_test()
        now = self.survey()
        if per_test:
            collected = collected_count(self.dir, self.program(), self.timeout)
        else:
            collected = self.suite.run_once().total
        lock = lock_of(self.criteria(), now, collected, _head(self.dir))
        lock = lock.model_copy(update={"per": "test" if per_test else "file"})
        if per_test and lock.tests:
            ran = ran or self.run([t.node_id for t in lock.tests])
            lock = lock.model_copy(update={"reads": locked_reads(self.dir, ran.reads, lock)})
        try:
            write_lock(self.dir, lock)
        except OSError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"cannot write the lock: {exc}") from None
        log_event(
            self.dir,
            "acceptance_locked",
            tests=[t.node_id for t in lock.tests],
            runner_files=sorted(lock.runner),
            reads=sorted(lock.reads),
            collected=collected,
        )
        return lock

    def verdict(self, before: str | None, count: bool = True) -> LockVerdict:
        try:
            return check_locked_acceptance(
                self.dir, before, program=self.program(), timeout=self.timeout, count=count
            )
        except (StateFileError, ProjectFileError, OSError, UnicodeDecodeError) as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"cannot check the lock: {exc}") from None

    def undo(self) -> None:
        """A refused step's work undone to the last commit, with any runner file it hid from
        git (`remove_ignored_runner_files`)."""
        discard_agent_changes(self.dir)
        strays = remove_ignored_runner_files(self.dir)
        if strays:
            log_event(self.dir, "ignored_runner_files_removed", level="warning", files=strays)

    def traces(self, run: AcceptanceRun | None) -> list[Trace]:
        """Each criterion with the tests named after it, their last result and the commit they
        ran at."""
        now = self.survey()
        commit = _head(self.dir)
        results = run.results if run else {}
        return [
            Trace(
                criterion=criterion,
                evidence=[
                    Evidence(
                        what=t.node_id, result=results.get(t.node_id, "not run"), commit=commit
                    )
                    for t in now.for_criterion(criterion.number)
                ],
            )
            for criterion in self.criteria()
        ]

    def write_traceability(self, traces: list[Trace]) -> None:
        note = (
            f"Each acceptance criterion of constraints.md with the tests named after it "
            f"({NAMING}), as ThoughtForge ran them itself. A skipped, xfailed, xpassed, errored "
            "or uncollected test counts as failed."
        )
        self.engine.write(TRACEABILITY_FILE, render(self.engine.project_name, traces, note))

    def problems(self, run: AcceptanceRun, untested: list[Criterion]) -> list[str]:
        """What stands between the suite and the criteria, one line each, for the fixer."""
        return [
            f"criterion #{c.number} “{c.text}”: no test named {criterion_test_name(c.number)}"
            for c in untested
        ] + [
            f"{node} ({result} when ThoughtForge ran it itself"
            + (f": it passed under pytest, not when called outside it: {why})" if why else ")")
            for node, result in run.results.items()
            if result != "passed"
            for why in [run.outside.get(node)]
        ]


REMEDY = (
    f"Each needs a test named after it ({NAMING}) that passes when ThoughtForge runs it itself "
    "(skipped, xfailed, xpassed or errored is no pass): fix it by hand, or tell the agent in the "
    "chat and resume."
)


def _head(project_dir: Path) -> str | None:
    commits = git_repo.log_records(project_dir, "%H", last=1)
    return commits[-1][0] if commits else None
