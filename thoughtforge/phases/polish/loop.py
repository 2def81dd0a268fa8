"""Phase 4, the polish loop: review → commit → fix → commit, until a convergence guard says stop.

Plain Python, so it runs (and is benchmarked) with or without Prefect: the Prefect flow passes a
`runner` that turns each review and fix into a named task. The files are the truth, which makes a
kill at any point safe:

* `polish_state.json` is written only when an iteration is complete, and only if its commit succeeds
  (otherwise it is put back), so `iteration` is always the last iteration fully recorded in git.
* `review.json` holds the latest review and is committed right after the review ("review #N"). A
  re-run that finds the review of the next iteration reuses it instead of asking again, and a fix
  already written to the deliverable before the kill is kept, not applied twice.
* Anything left uncommitted by a kill after the state was written is committed on the next start.

Plan mode's safety rules hold here as in Phase 3: an agent with tool flags is refused before any
call, and the two files the loop writes (`review.json`, `docs/plan.md`) pass `validate` first.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from thoughtforge import git_repo, guards, polish_log
from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.atomic_write import write_text_atomic
from thoughtforge.config import Config
from thoughtforge.context_window import estimate_tokens, truncate_text
from thoughtforge.errors import (
    AgentFailure,
    PhaseHalt,
    StateFileError,
    ThoughtForgeError,
    TransitionError,
)
from thoughtforge.guards import GuardReport
from thoughtforge.models import Counts, DeliverableType, HaltReason, Issue, Phase
from thoughtforge.plugins.safety import SafetyViolation, check_agent, load_rules, write_checked
from thoughtforge.project import CONSTRAINTS_FILE, PLAN_FILE, Project
from thoughtforge.project_log import log_event
from thoughtforge.prompts import PromptLibrary
from thoughtforge.review import MalformedReview, TestResults, parse_review
from thoughtforge.state import (
    POLISH_STATE_FILE,
    ChatMessage,
    PolishState,
    TrajectoryEntry,
    append_chat,
    read_polish_state,
    utc_now,
    write_polish_state,
)
from thoughtforge.step_runner import StepRunner, run_direct
from thoughtforge.transition import TransitionHooks, transition

REVIEW_FILE = "review.json"
MIN_FIX_LENGTH_RATIO = 0.5
_PROMPT_OVERHEAD_TOKENS = 2_000


class StoredReview(BaseModel):
    iteration: int
    issues: list[Issue]
    tests: TestResults | None = None


class FixResult(BaseModel):
    applied: bool
    summary: str


class PolishOutcome(BaseModel):
    verdict: Literal["done", "halt"]
    halt_reason: HaltReason | None
    reason: str
    iteration: int
    counts: Counts
    deliverable: Path


IterationListener = Callable[[PolishState, GuardReport], None]


class PolishLoop:
    """One run of Phase 4 over a project in `polishing`, from wherever its files say it stopped."""

    def __init__(
        self,
        project: Project,
        config: Config,
        *,
        runner: StepRunner = run_direct,
        on_iteration: IterationListener | None = None,
        hooks: TransitionHooks | None = None,
    ) -> None:
        self.project = project
        self.config = config
        self.runner = runner
        self.on_iteration = on_iteration or (lambda state, report: None)
        self.hooks = hooks
        self.prompts = PromptLibrary(config.prompts.directory)
        status = project.status()
        if status.phase is not Phase.POLISHING:
            raise TransitionError(f"project {project.id} is in '{status.phase}', not 'polishing'")
        if status.deliverable_type is DeliverableType.CODE:
            raise ThoughtForgeError("the code-mode polish loop is not available yet")
        self.fixer = status.agent
        self.reviewer = config.polish.reviewer_agent or status.agent
        self.project_name = status.project_name or project.id
        self.rules = load_rules(DeliverableType.PLAN)

    def run(self) -> PolishOutcome:
        try:
            self._check_agents()
            state = self._load_state()
            git_repo.remove_stale_lock(self.project.dir)
            self._settle(state)
            while True:
                state, report = self._iteration(state, state.iteration + 1)
                if report.verdict == "done":
                    return self._finish(state, report)
                if report.verdict == "halt":
                    assert report.halt_reason is not None, "guards name the reason of every halt"
                    raise PhaseHalt(report.halt_reason, report.reason)
        except PhaseHalt as halt:
            return self._halt(halt)

    def _iteration(self, state: PolishState, n: int) -> tuple[PolishState, GuardReport]:
        constraints = self._constraints()
        review = self._stored_review(n)
        recovered = review is not None
        if review is None:
            review = self.runner(f"review #{n}", lambda: self._review(n, constraints))
        fix = self._previous_fix(state, review, recovered) or self.runner(
            f"fix #{n}", lambda: self._fix(state, review, constraints)
        )
        counts = Counts.of(review.issues)
        entry = TrajectoryEntry(
            iteration=n,
            **counts.model_dump(),
            total=counts.total,
            fix_applied=fix.applied,
            timestamp=utc_now(),
        )
        tests_passed = None if review.tests is None else review.tests.failed == 0
        report = guards.evaluate(
            [*state.trajectory, entry],
            review.issues,
            state.last_issues,
            self.config.polish,
            tests_passed,
        )
        new_state = PolishState(
            iteration=n,
            counts=counts,
            trajectory=[*state.trajectory, entry],
            tests_passed=tests_passed,
            completed=report.verdict == "done",
            halt_reason=report.halt_reason,
            last_issues=review.issues,
        )
        entry_text = polish_log.iteration_entry(
            n, entry.timestamp, review.issues, fix.summary, report
        )
        subject = f"fix #{n}: {fix.summary}" if review.issues else f"review #{n}: no issues"
        self._record(new_state, entry_text, subject)
        log_event(
            self.project.dir, "guards", iteration=n, verdict=report.verdict, guard=report.guard
        )
        self.on_iteration(new_state, report)
        return new_state, report

    # --- steps -----------------------------------------------------------------------------

    def _review(self, n: int, constraints: str) -> StoredReview:
        prompt = self._review_prompt(constraints)
        call = self._call("plan-review", n)
        reason = ""
        for attempt in range(self.config.polish.retry_malformed_output + 1):
            asked = prompt if attempt == 0 else _re_ask(prompt, reason)
            answer = self._ask(self.reviewer, asked, call)
            try:
                parsed = parse_review(answer, DeliverableType.PLAN)
            except MalformedReview as exc:
                reason = str(exc)
                log_event(
                    self.project.dir,
                    "review_malformed",
                    level="warning",
                    attempt=attempt + 1,
                    reason=reason,
                )
                continue
            review = StoredReview(
                iteration=n, issues=parsed.issues, tests=getattr(parsed, "tests", None)
            )
            self._write(REVIEW_FILE, review.model_dump_json(indent=2) + "\n")
            if review.issues:
                self._commit(f"review #{n}: {guards.describe(Counts.of(review.issues))}")
            return review
        raise PhaseHalt(
            HaltReason.REVIEW_MALFORMED,
            f"Review output still malformed after {self.config.polish.retry_malformed_output} "
            f"re-asks at iteration {n}: {reason}",
        )

    def _fix(self, state: PolishState, review: StoredReview, constraints: str) -> FixResult:
        plan_path = self.project.dir / PLAN_FILE
        old = plan_path.read_text(encoding="utf-8")
        issues = json.dumps([i.model_dump(mode="json") for i in review.issues], indent=2)
        prompt = self.prompts.render("plan-fix", issues=issues, constraints=constraints, plan=old)
        new = _strip_fence(self._ask(self.fixer, prompt, self._call("plan-fix", review.iteration)))
        if new.strip() and len(new) >= MIN_FIX_LENGTH_RATIO * len(old):
            new = new if new.endswith("\n") else new + "\n"
            self._write(PLAN_FILE, new)
            return FixResult(
                applied=True, summary=f"{PLAN_FILE} updated ({len(old)} → {len(new)} chars)"
            )
        share = round(100 * len(new) / max(len(old), 1))
        why = f"fixer returned {len(new)} chars, {share}% of the previous {len(old)}"
        log_event(
            self.project.dir, "fix_rejected", level="warning", iteration=review.iteration, why=why
        )
        if _last_fix_rejected(state):
            raise PhaseHalt(
                HaltReason.FIX_OUTPUT_INVALID,
                f"Fix output rejected twice in a row (iteration {review.iteration}: {why}).",
            )
        return FixResult(applied=False, summary=f"rejected: {why}; kept the previous document")

    def _review_prompt(self, constraints: str) -> str:
        plan = (self.project.dir / PLAN_FILE).read_text(encoding="utf-8")
        window = self.config.agent(self.reviewer).context_window_tokens
        room = window - estimate_tokens(plan) - _PROMPT_OVERHEAD_TOKENS
        fitted = truncate_text(constraints, max(room, 0))
        if fitted.truncated:
            log_event(self.project.dir, "constraints_truncated", level="warning", tokens=room)
        return self.prompts.render("plan-review", constraints=fitted.text, plan=plan)

    def _ask(self, agent: str, prompt: str, call: AgentCall) -> str:
        try:
            return invoke_agent(self.config, agent, prompt, call)
        except AgentFailure as exc:
            raise PhaseHalt(HaltReason.AGENT_FAILURE, str(exc)) from None

    def _check_agents(self) -> None:
        for agent in dict.fromkeys((self.reviewer, self.fixer)):
            try:
                check_agent(self.config, agent, self.rules)
            except SafetyViolation as exc:
                raise PhaseHalt(HaltReason.AGENT_FAILURE, f"agent '{agent}': {exc}") from None

    def _write(self, relpath: str, text: str) -> None:
        try:
            write_checked(self.project.dir, relpath, text, self.rules)
        except SafetyViolation as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None

    def _call(self, step: str, n: int) -> AgentCall:
        return AgentCall(
            step=step, project_dir=self.project.dir, phase=Phase.POLISHING.value, iteration=n
        )

    # --- files -----------------------------------------------------------------------------

    def _load_state(self) -> PolishState:
        path = self.project.dir / POLISH_STATE_FILE
        if not path.exists() and not git_repo.ever_committed(self.project.dir, POLISH_STATE_FILE):
            return PolishState()
        try:
            return read_polish_state(self.project.dir)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None

    def _constraints(self) -> str:
        path = self.project.dir / CONSTRAINTS_FILE
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{path} is unreadable: {exc}") from None

    def _stored_review(self, n: int) -> StoredReview | None:
        """The review of iteration `n` if a previous run got that far before it was stopped."""
        try:
            review = StoredReview.model_validate_json((self.project.dir / REVIEW_FILE).read_bytes())
        except (OSError, ValidationError):
            return None
        if review.iteration != n:
            return None
        if review.issues and git_repo.is_dirty(self.project.dir, REVIEW_FILE):
            self._commit(f"review #{n}: {guards.describe(Counts.of(review.issues))}")
        log_event(self.project.dir, "review_reused", iteration=n)
        return review

    def _previous_fix(
        self, state: PolishState, review: StoredReview, recovered: bool
    ) -> FixResult | None:
        if not review.issues:
            return FixResult(applied=False, summary="none needed: the review found no issues")
        if recovered and git_repo.is_dirty(self.project.dir, PLAN_FILE):
            return FixResult(
                applied=True, summary=f"{PLAN_FILE} updated before an interruption; kept"
            )
        return None

    def _settle(self, state: PolishState) -> None:
        """Commit what a run stopped between writing iteration N's state and committing it left."""
        if state.iteration and git_repo.is_dirty(self.project.dir):
            self._commit(f"iteration #{state.iteration}: recovered after an interruption")

    def _record(self, new: PolishState, entry: str, subject: str) -> None:
        """State, log and commit together: if the commit fails, both files are put back."""
        saved = {
            name: _snapshot(self.project.dir / name)
            for name in (POLISH_STATE_FILE, polish_log.POLISH_LOG_FILE)
        }
        write_polish_state(self.project.dir, new)
        polish_log.append(self.project.dir, entry)
        try:
            self._commit(subject)
        except PhaseHalt:
            for name, content in saved.items():
                _restore(self.project.dir / name, content)
            raise

    def _commit(self, subject: str) -> None:
        git_repo.commit_or_halt(self.project.dir, subject)

    # --- endings ---------------------------------------------------------------------------

    def _finish(self, state: PolishState, report: GuardReport) -> PolishOutcome:
        deliverable = self.project.dir / PLAN_FILE
        message = (
            f"Polish loop finished after {state.iteration} iterations: {report.reason} "
            f"Deliverable: {deliverable}"
        )
        append_chat(
            self.project.dir, ChatMessage(role="system", content=message, phase=Phase.POLISHING)
        )
        transition(
            self.project,
            Phase.DONE,
            summary=f"Project '{self.project_name}' — {report.reason} Ready for final review.",
            hooks=self.hooks,
        )
        return PolishOutcome(
            verdict="done",
            halt_reason=None,
            reason=message,
            iteration=state.iteration,
            counts=state.counts,
            deliverable=deliverable,
        )

    def _halt(self, halt: PhaseHalt) -> PolishOutcome:
        reason = str(halt)
        append_chat(
            self.project.dir,
            ChatMessage(
                role="system",
                content=f"Halted: {reason} Options: resume, override, terminate.",
                phase=Phase.POLISHING,
            ),
        )
        transition(
            self.project,
            Phase.HALTED,
            halt_reason=halt.halt_reason,
            summary=f"Project '{self.project_name}' — {reason} Review needed.",
            hooks=self.hooks,
        )
        try:
            state = read_polish_state(self.project.dir)
        except StateFileError:
            state = PolishState()
        return PolishOutcome(
            verdict="halt",
            halt_reason=halt.halt_reason,
            reason=reason,
            iteration=state.iteration,
            counts=state.counts,
            deliverable=self.project.dir / PLAN_FILE,
        )


def _snapshot(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def _restore(path: Path, content: str | None) -> None:
    if content is None:
        path.unlink(missing_ok=True)
    else:
        write_text_atomic(path, content)


def _re_ask(prompt: str, reason: str) -> str:
    return (
        f"{prompt}\n\nYour previous answer could not be used: {reason}. "
        "Answer again with the JSON object only."
    )


def _last_fix_rejected(state: PolishState) -> bool:
    if not state.trajectory:
        return False
    last = state.trajectory[-1]
    return last.total > 0 and not last.fix_applied


def _strip_fence(text: str) -> str:
    """Fixers often wrap the document in one ```markdown fence; the document is what is inside."""
    stripped = text.strip()
    lines = stripped.splitlines()
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        return "\n".join(lines[1:-1])
    return stripped
