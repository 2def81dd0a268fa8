"""Phase 4 in code mode: test → review → fix → commit, found by the polish loop by name.

Each iteration first runs the project's tests; the reviewer sees their result and the codebase
(or, when it does not fit the reviewer's window, a manifest and the `git diff` of the last
iteration); the review records the tests as measured, never as the reviewer copied them, so the
termination guard's "all tests pass" is the orchestrator's observation. The fixer is a coding
agent that edits the files itself: it is given the issues, the test result and the files the
issues name, and what it changed is committed.

The acceptance tests are locked (`acceptance`): each measure also runs them with ThoughtForge's
own command, and one that does not pass there counts as a failing test whatever the suite said;
a fix that touches them, the runner's configuration or the suite's count is refused and undone
like any broken fix; `docs/traceability.md` is rewritten with each iteration, and a criterion
with no test blocks `done` with a halt that names it.
"""

from __future__ import annotations

import hashlib
import json

from thoughtforge.adapters.agents.invoke import ATTEMPTS
from thoughtforge.core import PolishState, changes, git_repo, log_event
from thoughtforge.core.own_files import read_own_bytes
from thoughtforge.core.staging import PRIVATE_FILES, is_own
from thoughtforge.errors import AgentFailure, PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish.iteration import FixResult, StoredReview
from thoughtforge.phases.polish.iteration import PolishSteps as PlanPolishSteps
from thoughtforge.phases.polish.review import TestResults
from thoughtforge.phases.traceability import unevidenced, without_evidence_reason
from thoughtforge.plugins.code.acceptance.check import REMEDY, Acceptance
from thoughtforge.plugins.code.acceptance.lock import LOCK_FILE, AcceptanceLock, write_lock
from thoughtforge.plugins.code.acceptance.runner import AcceptanceRun
from thoughtforge.plugins.code.acceptance.verdict import LockVerdict, criterion_test_name
from thoughtforge.plugins.code.coder import coder_for
from thoughtforge.plugins.code.context import fix_context, review_context
from thoughtforge.plugins.code.suite import Suite, describe, results
from thoughtforge.plugins.code.test_runner import TestRun
from thoughtforge.prompting import estimate_tokens

_PROMPT_OVERHEAD_TOKENS = 2_000
GITIGNORE = ".gitignore"
"""ThoughtForge's: a fixer that edits it could hide a file from what is judged and committed."""


class PolishSteps(PlanPolishSteps):
    """The polish loop's steps for a code deliverable."""

    def __init__(self, engine: PhaseEngine, reviewer: str, fixer: str) -> None:
        super().__init__(engine, reviewer, fixer)
        self.suite = Suite(engine, engine.config.code)
        self.code = coder_for(engine.config, fixer, self.suite.command, attempts=ATTEMPTS)
        self.last_run: TestRun | None = None
        self.acceptance = Acceptance(engine, self.suite)
        self.last_acceptance: AcceptanceRun | None = None

    def measure(self) -> TestResults:
        """The suite's result; a locked acceptance test that does not pass when ThoughtForge
        runs it itself, or that anything since the lock touched (a reviewer with write access
        too), is one more failure, whatever the suite's own run said."""
        run = self.last_run = self.suite.run()
        measured = results(run)
        lock = self._lock()
        accepted = self.last_acceptance = self.acceptance.run([t.node_id for t in lock.tests], run)
        tampered = [str(t) for t in self.acceptance.verdict(None, count=False).touched]
        if lock.per == "file" and run.total < lock.collected:
            tampered.append(
                f"the suite ran {run.total} tests, fewer than the {lock.collected} it had"
            )
        unmet = [node for node in accepted.failing if node not in run.failing] + tampered
        if not unmet:
            return measured
        log_event(
            self.dir,
            "acceptance_failing",
            level="warning",
            tests={node: accepted.results[node] for node in accepted.failing},
            touched=tampered,
            crash=accepted.crash,
        )
        return TestResults(
            total=max(measured.total, len(lock.tests)),
            passed=max(measured.passed - len(unmet), 0),
            failed=measured.failed + len(unmet),
        )

    def before_done(self) -> None:
        """A criterion no test is named after blocks `done`, as does a locked test changed
        since its lock (by the reviewer, say): it is no evidence. Override accepts it as it is."""
        self._lock()
        touched = self.acceptance.verdict(None, count=False).touched
        if touched:
            raise PhaseHalt(
                HaltReason.CRITERION_WITHOUT_EVIDENCE,
                "The locked acceptance tests changed outside a fix, so they are no evidence: "
                f"{'; '.join(str(t) for t in touched[:8])}. Put them back as they were locked "
                "(git) and resume, or override to accept the deliverable as it is.",
            )
        missing = unevidenced(self.acceptance.traces(self._last_acceptance()))
        if missing:
            raise PhaseHalt(
                HaltReason.CRITERION_WITHOUT_EVIDENCE, without_evidence_reason(missing, REMEDY)
            )

    def write_traceability(self) -> None:
        """Each criterion with its tests as this iteration ran them, committed with it."""
        self.acceptance.write_traceability(self.acceptance.traces(self._last_acceptance()))

    def _last_acceptance(self) -> AcceptanceRun:
        """This iteration's run of the locked tests; run now when the review was one stored
        before an interruption (no measure ran)."""
        lock = self._lock()
        if self.last_acceptance is None:
            self.last_acceptance = self.acceptance.run(
                [t.node_id for t in lock.tests], self.last_run
            )
        return self.last_acceptance

    def fix(
        self, state: PolishState, review: StoredReview, constraints: str, guidance: str
    ) -> FixResult:
        """The coding agent fixes the files; the change is what it left in the tree."""
        window = self.engine.config.agent(self.fixer).prompt_budget_tokens
        issues = json.dumps([i.model_dump(mode="json") for i in review.issues], indent=2)
        room = window - estimate_tokens(issues + constraints + guidance) - _PROMPT_OVERHEAD_TOKENS
        files = fix_context(self.dir, [i.location for i in review.issues], max(room, 0))
        if files.truncated or files.left_out:
            log_event(
                self.dir,
                "fix_context_truncated",
                level="warning",
                truncated=files.truncated,
                left_out=files.left_out,
            )
        lock = self._lock()
        before = [record[0] for record in git_repo.log_records(self.dir, "%H", last=1)]
        prompt = self.engine.prompts.render(
            "code-fix",
            acceptance=self._unlocked_note(lock),
            test_command=" ".join(self.suite.command()),
            issues=issues,
            test_results=self._tests_line(review.tests),
            constraints=constraints,
            guidance=guidance,
            files=files.text,
        )
        try:
            with self.engine.agent_at_work("code-fix", also=(LOCK_FILE, GITIGNORE)):
                self.code(prompt, self.engine.call("code-fix", review.iteration))
        except AgentFailure as exc:
            raise PhaseHalt(HaltReason.AGENT_FAILURE, str(exc)) from None
        changed = changes(self.dir).foreign
        verdict = self.plugin.check_deliverable(
            self.engine.project, Candidate(stage="fix", files=changed)
        )
        why = None if verdict.accepted else verdict.reason
        locked = None
        if why is None and changed:
            locked = self.acceptance.verdict(before[0] if before else None)
            if locked.refused:
                why = locked.reason
                log_event(
                    self.dir,
                    "locked_acceptance_refused",
                    level="warning",
                    iteration=review.iteration,
                    touched=[str(t) for t in locked.touched],
                    untested=[c.number for c in locked.untested],
                )
        if why is not None:
            answer = "\n".join(changed)
            self.acceptance.undo()
            return self.refuse(review.iteration, why, answer)
        if locked is not None:
            self._relock(lock, locked)
        version = self.fingerprint()
        if not changed or version == review.version:
            return FixResult(outcome="unchanged", summary="unchanged: the fixer changed no file")
        more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        named = f"{', '.join(changed[:5])}{more}"
        return self.changed(state, version, f"changed {named}", named)

    def _lock(self) -> AcceptanceLock:
        """The lock; taken from the tree as it stands when Phase 3 took none (a project built
        before locking)."""
        return self.acceptance.lock() or self.acceptance.take_lock()

    def _relock(self, lock: AcceptanceLock, verdict: LockVerdict) -> None:
        """After an accepted step: the criteria the person reworded are locked again with the
        tests the step left, and a suite that grew keeps its new count as the floor."""
        if verdict.unlocked:
            relocked = self.acceptance.take_lock()
            log_event(self.dir, "acceptance_relocked", criteria=verdict.unlocked)
            lock = relocked
        if verdict.collected is not None and verdict.collected > lock.collected:
            write_lock(self.dir, lock.model_copy(update={"collected": verdict.collected}))

    def _unlocked_note(self, lock: AcceptanceLock) -> str:
        """What the fixer is told about the criteria the person reworded since the lock."""
        stated = {c.number: c.text for c in self.acceptance.criteria()}
        reworded = [n for n in stated if (c := lock.criterion(n)) is None or c.text != stated[n]]
        if not reworded:
            return "No acceptance criterion changed since the tests were locked."
        lines = [
            f"- criterion {n}: “{stated[n]}”: leave a test named "
            f"{criterion_test_name(n)} that checks this wording"
            for n in reworded
        ]
        return (
            "The person changed these acceptance criteria since the tests were locked; their "
            "tests are unlocked for this fix, which must leave one test for each:\n"
            + "\n".join(lines)
        )

    def fingerprint(self) -> str:
        """The content hash of the code: every file git would keep but ThoughtForge's own."""
        digest = hashlib.sha256()
        for relpath in git_repo.listed_files(self.dir):
            path = self.dir / relpath
            if is_own(relpath) or relpath.startswith(PRIVATE_FILES) or not path.is_file():
                continue
            try:
                content = read_own_bytes(path)
            except OSError as exc:  # a link, a pipe, a giant: what it is, not what it holds
                content = f"\0{exc}".encode()
            digest.update(relpath.encode() + b"\0" + content + b"\0")
        return digest.hexdigest()[:16]

    def previous_fix(self, review: StoredReview, recovered: bool) -> FixResult | None:
        failing = review.tests is not None and review.tests.failed > 0
        if not review.issues and not failing:
            return FixResult(outcome="none", summary="none needed: no issues and the tests pass")
        if recovered and changes(self.dir).foreign:
            return FixResult(
                outcome="changed",
                summary="code changed before an interruption; kept",
                version=self.fingerprint(),
            )
        return None

    def _review_prompt(self, constraints: str, guidance: str) -> str:
        run = self.last_run
        output = run.output_tail if run else ""
        window = self.engine.config.agent(self.reviewer).prompt_budget_tokens
        room = window - estimate_tokens(constraints + guidance + output) - _PROMPT_OVERHEAD_TOKENS
        code = review_context(self.dir, max(room, 0), since=None)
        if code.truncated:
            log_event(self.dir, "review_context_truncated", level="warning", mode=code.mode)
        return self.engine.prompts.render(
            "code-review",
            test_command=" ".join(self.suite.command()),
            test_results=self._tests_line(results(run) if run else None),
            test_output=output,
            constraints=constraints,
            guidance=guidance,
            open_findings=self.open_findings,
            code_mode=(
                "the whole codebase"
                if code.mode == "codebase"
                else "too large to show whole: a manifest and the last iteration's diff"
            ),
            code=code.text,
        )

    def _tests_line(self, tests: TestResults | None) -> str:
        if tests is None:
            return "not run"
        line = f"{tests.passed} passed, {tests.failed} failed, {tests.total} in total"
        if self.last_run is not None:
            line += f" ({describe(self.last_run)})"
        return line
