"""Phase 4 in code mode: test → review → fix → commit, found by the polish loop by name.

Each iteration first runs the project's tests; the reviewer sees their result and the codebase
(or, when it does not fit the reviewer's window, a manifest and the `git diff` of the last
iteration); the review records the tests as measured, never as the reviewer copied them, so the
termination guard's "all tests pass" is the orchestrator's observation. The fixer is a coding
agent that edits the files itself: it is given the issues, the test result and the files the
issues name, and what it changed is committed.
"""

from __future__ import annotations

import hashlib
import json

from thoughtforge.adapters.agents.invoke import ATTEMPTS
from thoughtforge.core import PolishState, changes, discard_agent_changes, git_repo, log_event
from thoughtforge.core.staging import PRIVATE_FILES, is_own
from thoughtforge.errors import AgentFailure, PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish.iteration import FixResult, StoredReview
from thoughtforge.phases.polish.iteration import PolishSteps as PlanPolishSteps
from thoughtforge.phases.polish.review import TestResults
from thoughtforge.plugins.code.coder import coder_for
from thoughtforge.plugins.code.context import fix_context, review_context
from thoughtforge.plugins.code.suite import Suite, describe, results
from thoughtforge.plugins.code.test_runner import TestRun
from thoughtforge.prompting import estimate_tokens

_PROMPT_OVERHEAD_TOKENS = 2_000


class PolishSteps(PlanPolishSteps):
    """The polish loop's steps for a code deliverable."""

    def __init__(self, engine: PhaseEngine, reviewer: str, fixer: str) -> None:
        super().__init__(engine, reviewer, fixer)
        self.suite = Suite(engine, engine.config.code)
        self.code = coder_for(engine.config, fixer, self.suite.command, attempts=ATTEMPTS)
        self.last_run: TestRun | None = None

    def measure(self) -> TestResults:
        self.last_run = self.suite.run()
        return results(self.last_run)

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
        prompt = self.engine.prompts.render(
            "code-fix",
            test_command=" ".join(self.suite.command()),
            issues=issues,
            test_results=self._tests_line(review.tests),
            constraints=constraints,
            guidance=guidance,
            files=files.text,
        )
        try:
            self.code(prompt, self.engine.call("code-fix", review.iteration))
        except AgentFailure as exc:
            raise PhaseHalt(HaltReason.AGENT_FAILURE, str(exc)) from None
        changed = changes(self.dir).foreign
        verdict = self.plugin.check_deliverable(
            self.engine.project, Candidate(stage="fix", files=changed)
        )
        if not verdict.accepted:
            answer = "\n".join(changed)
            discard_agent_changes(self.dir)
            return self.refuse(review.iteration, verdict.reason, answer)
        version = self.fingerprint()
        if not changed or version == review.version:
            return FixResult(outcome="unchanged", summary="unchanged: the fixer changed no file")
        more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        named = f"{', '.join(changed[:5])}{more}"
        return self.changed(state, version, f"changed {named}", named)

    def fingerprint(self) -> str:
        """The content hash of the code: every file git would keep but ThoughtForge's own."""
        digest = hashlib.sha256()
        for relpath in git_repo.listed_files(self.dir):
            path = self.dir / relpath
            if is_own(relpath) or relpath.startswith(PRIVATE_FILES) or not path.is_file():
                continue
            digest.update(relpath.encode() + b"\0" + path.read_bytes() + b"\0")
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
