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
from collections.abc import Mapping

from thoughtforge.adapters.agents.invoke import ATTEMPTS, prompt_room
from thoughtforge.core import git_repo
from thoughtforge.core.own_files import read_own_bytes
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import PRIVATE_FILES, changes, is_own
from thoughtforge.core.state import PolishState
from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish.iteration import PolishSteps as PlanPolishSteps
from thoughtforge.phases.polish.review import TestResults
from thoughtforge.phases.polish.review_prompt import Cut, fit_review_prompt
from thoughtforge.phases.polish.step_results import FixResult, StoredReview
from thoughtforge.phases.traceability import Trace, without_evidence, without_evidence_reason
from thoughtforge.plugins.code.acceptance.check import REMEDY, Acceptance
from thoughtforge.plugins.code.acceptance.lock import LOCK_FILE, AcceptanceLock, write_lock
from thoughtforge.plugins.code.acceptance.runner import AcceptanceRun
from thoughtforge.plugins.code.acceptance.verdict import LockVerdict, criterion_test_name
from thoughtforge.plugins.code.coder import coder_for
from thoughtforge.plugins.code.context import ReviewContext, fix_context, review_context
from thoughtforge.plugins.code.suite import Suite, describe, results
from thoughtforge.plugins.code.suite_run import TestRun
from thoughtforge.prompting import estimate_tokens

_PROMPT_OVERHEAD_TOKENS = 2_000
_CODE_SHARE = 4
"""The code is left at least a quarter of the reviewer's window: the rest is cut first."""
_CODE_MODES = {
    "codebase": "the whole codebase",
    "manifest": "too large to show whole: a manifest and the last iteration's diff",
}
_FAILING_NAMED = 8
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
        self.measured_version: str | None = None
        """The code's fingerprint when the tests were last run (`measure`)."""

    def measure(self) -> TestResults:
        """The suite's result; a criterion's test (locked, or named after one since) that does
        not pass when ThoughtForge runs it itself, or a locked one that anything since the lock
        touched (a reviewer with write access too), is one more failure, whatever the suite's
        own run said."""
        run = self.last_run = self.suite.run()
        measured = results(run)
        lock = self._lock()
        accepted = self.last_acceptance = self.acceptance.run(
            self.acceptance.evidence_tests(lock), run
        )
        self.measured_version = self.fingerprint()
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
        """Every criterion's tests passed in ThoughtForge's own run of the code as it is now
        (a fix after the last measure is run again first: its code is not trusted), or `done`
        does not stand: a criterion with no test, or one skipped, xfailed, errored or failing,
        halts, as does a locked test changed since its lock (by the reviewer, say). Override
        accepts it as it is."""
        self._lock()
        touched = self.acceptance.verdict(None, count=False).touched
        if touched:
            raise PhaseHalt(
                HaltReason.CRITERION_WITHOUT_EVIDENCE,
                "The locked acceptance tests changed outside a fix, so they are no evidence: "
                f"{'; '.join(str(t) for t in touched[:8])}. Put them back as they were locked "
                "(git) and resume, or override to accept the deliverable as it is.",
            )
        if self.measured_version != self.fingerprint():
            again = self.measure()
            self.write_traceability()
            log_event(self.dir, "tests_rerun_before_done", failed=again.failed, total=again.total)
            if again.failed and not without_evidence(self._traces()):
                raise PhaseHalt(
                    HaltReason.GUARD_FIX_REGRESSION,
                    "The last fix came after the review that found the code good enough, and "
                    f"ThoughtForge's run of it fails {again.failed} of {again.total} tests: "
                    "resume to review it again, or override to accept it as it is.",
                )
        missing = without_evidence(self._traces())
        if missing:
            raise PhaseHalt(
                HaltReason.CRITERION_WITHOUT_EVIDENCE, without_evidence_reason(missing, REMEDY)
            )

    def _traces(self) -> list[Trace]:
        return self.acceptance.traces(self._last_acceptance())

    def write_traceability(self) -> None:
        """Each criterion with its tests as this iteration ran them, committed with it."""
        self.acceptance.write_traceability(self._traces())

    def _last_acceptance(self) -> AcceptanceRun:
        """This iteration's run of the locked tests; run now when the review was one stored
        before an interruption (no measure ran)."""
        lock = self._lock()
        if self.last_acceptance is None:
            self.last_acceptance = self.acceptance.run(
                self.acceptance.evidence_tests(lock), self.last_run
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
        with self.engine.agent_at_work("code-fix", also=(LOCK_FILE, GITIGNORE)):
            self.code(prompt, self.engine.call("code-fix", review.iteration))  # failing halts
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
        self.mark_fixed(version)
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
        if recovered and review.fixed_to == self.fingerprint():
            return FixResult(
                outcome="changed",
                summary="code changed before an interruption; kept",
                version=self.fingerprint(),
            )
        return None

    def _review_prompt(self, constraints: str, guidance: str) -> str:
        """The test results as ThoughtForge measured them (its own run of the locked tests
        among them), then the code in the room the rest leaves: whole when it fits, else a
        manifest and a diff. The rest is fitted first (`review_prompt`: the acceptance
        criteria never cut), leaving the code its whole size or a `_CODE_SHARE` of the window,
        whichever is less."""
        run = self.last_run

        def render(parts: Mapping[str, str], code: ReviewContext | None = None) -> str:
            return self.engine.prompts.render(
                "code-review",
                test_command=" ".join(self.suite.command()),
                test_results=self._measured_line(),
                test_output=parts["test_output"],
                constraints=parts["constraints"],
                guidance=parts["guidance"],
                open_findings=self.open_findings,
                code_mode=_CODE_MODES[code.mode if code else "codebase"],
                code=code.text if code else "",
            )

        parts = {
            "constraints": constraints,
            "guidance": guidance,
            "test_output": run.output_tail if run else "",
        }
        cuts = [Cut("test_output", keep="tail"), Cut("constraints"), Cut("guidance", keep="tail")]
        room = prompt_room(self.engine.config.agent(self.reviewer))
        whole = review_context(self.dir, room, since=None)
        kept = min(whole.tokens, room // _CODE_SHARE)
        fitted = fit_review_prompt(self.engine, self.reviewer, render, parts, cuts, kept)
        left = max(room - estimate_tokens(render(fitted.parts)), 0)
        fits = whole.mode == "codebase" and whole.tokens <= left
        code = whole if fits else review_context(self.dir, left, since=None)
        if code.truncated:
            log_event(self.dir, "review_context_truncated", level="warning", mode=code.mode)
        return render(fitted.parts, code)

    def _measured_line(self) -> str:
        """What the reviewer is told of the tests: ThoughtForge's measure, and its own run of
        the locked acceptance tests, never only the project's suite line, which the code under
        test could influence."""
        line = self._tests_line(self.measured)
        accepted = self.last_acceptance
        if accepted is None:
            return line
        failing = [f"{node} ({accepted.results[node]})" for node in accepted.failing]
        ran = len(accepted.results)
        own = (
            f"ThoughtForge's own run of the locked acceptance tests: {ran - len(failing)} of "
            f"{ran} passed"
        )
        more = len(failing) - _FAILING_NAMED
        if failing:
            own += f"; not passing: {', '.join(failing[:_FAILING_NAMED])}"
            own += f" and {more} more" if more > 0 else ""
        if accepted.crash:
            own += f"; the run crashed: {accepted.crash}"
        return f"{line}. {own}."

    def _tests_line(self, tests: TestResults | None) -> str:
        if tests is None:
            return "not run"
        line = f"{tests.passed} passed, {tests.failed} failed, {tests.total} in total"
        if self.last_run is not None:
            line += f" (the project's own suite: {describe(self.last_run)})"
        return line
