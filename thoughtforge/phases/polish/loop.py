"""Phase 4, the polish loop: review → commit → fix → commit, until a convergence guard says stop.

Plain Python, so it runs (and is benchmarked) with or without Prefect. An iteration is not a
Prefect task run: a task run has a cost of its own (its state events, and the server recording them
on the same cores) that would make a long polish markedly slower than the loop itself
(bench/bench_polish_overhead.py measures it). The
flow logs a line per iteration and publishes the trajectory instead (`on_iteration`), and the
files record each step anyway. (`step_runner` wraps the review and the fix inside an iteration:
plain calls, unless a test stops the loop between them.)

The files are the truth, which makes a kill at any point safe:

* `polish_state.json` is written only when an iteration is complete, and only if its commit succeeds
  (otherwise it is put back), so `iteration` is always the last iteration fully recorded in git.
* `review.json` holds the latest review and is committed right after the review ("review #N"). A
  re-run that finds the review of the next iteration reuses it instead of asking again, and a fix
  already written to the deliverable before the kill is kept, not applied twice. The review names
  the deliverable version, the constraints and the revision it read; one that read anything else
  (a revision's or a re-polish's loop starts numbering again) is never reused.
* Anything left uncommitted by a kill after the state was written is committed on the next start.

This module drives the iterations; `iteration` holds one iteration's steps and `assessment` the
guards' verdict on it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from thoughtforge.adapters.agents.graceful_stop import take_next_step
from thoughtforge.catalogue import halt_options
from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.hooks import TransitionHooks, notify, show_on_board
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.spend.ledger import iteration_spend
from thoughtforge.core.spend.summary import spend_of
from thoughtforge.core.state import POLISH_STATE_FILE, PolishState, read_polish_state
from thoughtforge.errors import PhaseHalt, StateFileError
from thoughtforge.halt_advice import HALT_ADVICE
from thoughtforge.models import Counts, HaltReason, Phase
from thoughtforge.phases import chat
from thoughtforge.phases.engine import PhaseEngine, StepRunner, run_direct
from thoughtforge.phases.failure_halts import HALTING_FAILURES, halt_for
from thoughtforge.phases.polish import polish_log
from thoughtforge.phases.polish.assessment import Assessment, assess
from thoughtforge.phases.polish.finding_tracker import (
    FindingTracker,
    after_resume,
    after_review,
    read_tracker,
)
from thoughtforge.phases.polish.guards import GuardReport
from thoughtforge.phases.polish.iteration import PolishSteps
from thoughtforge.phases.polish.step_results import StoredReview
from thoughtforge.plurals import plural


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
        step_runner: StepRunner = run_direct,
        on_iteration: IterationListener | None = None,
        hooks: TransitionHooks | None = None,
    ) -> None:
        self.engine = PhaseEngine(project, config, Phase.POLISHING, hooks)
        self.step_runner = step_runner
        self.on_iteration = on_iteration or (lambda state, report: None)
        reviewer = config.polish.reviewer_agent or self.engine.agent
        kind: type[PolishSteps] = self.engine.plugin.polish_steps or PolishSteps
        self.steps = kind(self.engine, reviewer=reviewer, fixer=self.engine.agent)
        self.dir = project.dir
        self.last_report: GuardReport | None = None
        self.tracker = FindingTracker()

    def run(self) -> PolishOutcome:
        try:
            self.engine.start(self.steps.reviewer, self.steps.fixer)
            state = self._load_state()
            self.tracker = self._load_tracker(state)
            self.steps.settle(state)
            while True:
                n = state.iteration + 1
                verdict = self._iteration(state, n)
                state, report = verdict.state, verdict.report
                if report.verdict == "done":
                    self.steps.before_done()
                    return self._finish(state, report)
                if report.verdict == "halt":
                    assert report.halt_reason is not None, "guards name the reason of every halt"
                    raise PhaseHalt(report.halt_reason, report.reason)
        except HALTING_FAILURES as failure:
            return self._halt(halt_for(failure))

    def _iteration(self, state: PolishState, n: int) -> Assessment:
        take_next_step()  # a run told to stop ends here, not after one more test run
        constraints = self.steps.constraints()
        said = chat.unread_words(self.engine.chat())
        guidance = chat.guidance_text(said)
        review = self.steps.stored_review(n, constraints)
        recovered = review is not None
        if review is None:
            shown = self.tracker.active
            review = self.step_runner(
                f"review #{n}", lambda: self.steps.review(n, constraints, guidance, shown)
            )
        reviewed = after_review(self.tracker, n, review.issues, review.dismissed, review.confirmed)
        to_fix = _with_silent_findings(review, reviewed)
        fix = self.steps.previous_fix(to_fix, recovered) or self.step_runner(
            f"fix #{n}", lambda: self.steps.fix(state, to_fix, constraints, guidance)
        )
        spend = iteration_spend(self.dir, n)
        verdict = assess(state, reviewed, review, fix, self.engine.config.polish, spend)
        entry_text = polish_log.iteration_entry(
            n,
            verdict.entry.timestamp,
            review.issues,
            fix.summary,
            verdict.report,
            merged=review.merged,
            tracker=verdict.tracker,
        )
        self.steps.record(verdict.state, verdict.tracker, entry_text, fix.subject(n))
        self.tracker = verdict.tracker
        self.engine.mark_read(said, f"polish iteration {n}")
        report = self.last_report = verdict.report
        self._announce(report)
        log_event(self.dir, "guards", iteration=n, verdict=report.verdict, guard=report.guard)
        self.on_iteration(verdict.state, report)
        return verdict

    def _announce(self, report: GuardReport) -> None:
        """The card shows the metrics as they grow; a guard's warning is told as it happens."""
        engine = self.engine
        show_on_board(engine.project, engine.hooks)
        for warning in report.warnings:
            summary = f"Project '{engine.project_name}' — {warning}."
            notify(engine.project, "guard_triggered", summary, engine.hooks)

    def _load_state(self) -> PolishState:
        path = self.dir / POLISH_STATE_FILE
        if not path.exists() and not git_repo.ever_committed(self.dir, POLISH_STATE_FILE):
            return PolishState()
        try:
            return read_polish_state(self.dir)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None

    def _load_tracker(self, state: PolishState) -> FindingTracker:
        """The tracker recorded with the state; a fresh one when polishing starts again."""
        try:
            tracker = read_tracker(self.dir)
        except StateFileError as exc:
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None
        if tracker.reviewed != state.iteration:
            return FindingTracker()
        return after_resume(tracker) if state.halt_reason is not None else tracker

    def _finish(self, state: PolishState, report: GuardReport) -> PolishOutcome:
        deliverable = self.steps.deliverable
        still_open = polish_log.open_findings(self.tracker, state.iteration)
        spent = f" Spent {spend_of(self.engine.config, self.engine.project).line}."
        message = (
            f"Polish loop finished after {plural(state.iteration, 'iteration')}: {report.reason} "
            f"Deliverable: {deliverable}{still_open}{spent}"
        )
        self.engine.say(message)
        name = self.engine.project_name
        self.engine.advance(
            Phase.DONE,
            f"Project '{name}' — {report.reason} Ready for final review.{spent}{still_open}",
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
        name = self.engine.project_name
        advice = HALT_ADVICE.get(halt.halt_reason)
        options = halt_options(halt.halt_reason, Phase.POLISHING)
        options = f"{options} ({advice})" if advice else options
        summary = f"Project '{name}' — {halt}" + (f" To act: {advice}." if advice else "")
        self.engine.halt(halt, options, f"{summary} Review needed.")
        try:
            state = read_polish_state(self.dir)
        except StateFileError:
            state = PolishState()
        return PolishOutcome(
            verdict="halt",
            halt_reason=halt.halt_reason,
            reason=str(halt),
            iteration=state.iteration,
            counts=state.counts,
            deliverable=self.steps.deliverable,
        )


def _with_silent_findings(review: StoredReview, tracker: FindingTracker) -> StoredReview:
    """What the fixer is given: the review's issues, and the critical and medium findings the
    review left silent though no fix changed their place (they are still open)."""
    silent = [f.as_issue() for f in tracker.silent() if f.serious]
    if not silent:
        return review
    return review.model_copy(update={"issues": [*review.issues, *silent]})
