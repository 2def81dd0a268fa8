"""One polish iteration's steps: review the deliverable, fix it, record the result in git.

Each step leaves the files in a state a re-run can read, which is what makes a kill at any point
safe (the loop's docstring tells the whole story):

* the review is written to `review.json` and committed ("review #N") before the fix is asked for,
  so a re-run reuses it instead of asking again;
* a fix already written to the deliverable before a kill is kept, not applied twice;
* state, log and commit are recorded together: if the commit fails, both files are put back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ValidationError

from thoughtforge.core import (
    CONSTRAINTS_FILE,
    POLISH_LOG_FILE,
    POLISH_STATE_FILE,
    REVIEW_FILE,
    PolishState,
    git_repo,
    log_event,
    read_own_text,
    write_polish_state,
    write_text_atomic,
)
from thoughtforge.errors import PhaseHalt, UnusableAnswer
from thoughtforge.models import Counts, HaltReason, Issue
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish import polish_log
from thoughtforge.phases.polish.guards import describe
from thoughtforge.phases.polish.review import TestResults, parse_review
from thoughtforge.phases.reasking import UNUSABLE_HELP, reask
from thoughtforge.prompting import estimate_tokens, truncate_text

MIN_FIX_LENGTH_RATIO = 0.5
_PROMPT_OVERHEAD_TOKENS = 2_000
_HEADING = re.compile(r"#{1,6}\s")


class StoredReview(BaseModel):
    iteration: int
    issues: list[Issue]
    tests: TestResults | None = None


class FixResult(BaseModel):
    applied: bool
    summary: str


class PolishSteps:
    """The review, fix and record steps of the polish loop over one engine, for a document.

    The document is the plugin's deliverable (`docs/plan.md` for a plan); the prompts are the
    type's `<type>-review` and `<type>-fix`, which are given the document as `{{<type>}}`, and
    the review must fit the plugin's review schema. A plugin may subclass it (its reviewer's
    `PolishSteps`): code mode measures the tests before each review and lets its fixer edit the
    files itself.
    """

    def __init__(self, engine: PhaseEngine, reviewer: str, fixer: str) -> None:
        self.engine = engine
        self.reviewer = reviewer
        self.fixer = fixer
        self.dir = engine.project.dir
        self.plugin = engine.plugin
        self.document = engine.plugin.deliverable
        self.review_step = f"{engine.plugin.name}-review"
        self.fix_step = f"{engine.plugin.name}-fix"

    @property
    def deliverable(self) -> Path:
        return self.plugin.deliverable_path(self.dir)

    def measure(self) -> TestResults | None:
        """What the orchestrator measures before the review (a plan: nothing)."""
        return None

    def review(self, n: int, constraints: str, guidance: str) -> StoredReview:
        """Ask the reviewer, re-asking on malformed output; write and commit the review."""
        measured = self.measure()
        prompt = self._review_prompt(constraints, guidance)
        retries = self.engine.config.polish.retry_malformed_output
        try:
            parsed = self.engine.ask_until_usable(
                self.reviewer,
                self.engine.call(self.review_step, n, self.plugin.review.model_json_schema()),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal),
                lambda answer: parse_review(answer, self.plugin.review),
                attempts=retries + 1,
            )
        except UnusableAnswer as exc:
            raise PhaseHalt(
                HaltReason.REVIEW_MALFORMED,
                f"Review output still malformed after {retries} re-asks at iteration {n}: {exc}. "
                f"{UNUSABLE_HELP}",
            ) from None
        review = StoredReview(iteration=n, issues=parsed.issues, tests=measured)
        self.engine.write(REVIEW_FILE, review.model_dump_json(indent=2) + "\n")
        if review.issues:
            self.engine.commit(f"review #{n}: {describe(Counts.of(review.issues))}")
        return review

    def fix(
        self, state: PolishState, review: StoredReview, constraints: str, guidance: str
    ) -> FixResult:
        """Ask the fixer for the whole document; a fragment is refused, twice in a row halts."""
        old = self.engine.read(self.document)
        issues = json.dumps([i.model_dump(mode="json") for i in review.issues], indent=2)
        prompt = self.engine.prompts.render(
            self.fix_step,
            issues=issues,
            constraints=constraints,
            guidance=guidance,
            **{self.plugin.name: old},
        )
        call = self.engine.call(self.fix_step, review.iteration)
        new = _strip_fence(self.engine.ask(self.fixer, prompt, call))
        why = _broken(old, new)
        if why is None:
            new = new if new.endswith("\n") else new + "\n"
            self.engine.write(self.document, new)
            return FixResult(
                applied=True, summary=f"{self.document} updated ({len(old)} → {len(new)} chars)"
            )
        log_event(self.dir, "fix_rejected", level="warning", iteration=review.iteration, why=why)
        self.engine.keeper(self.fix_step)(review.iteration, UnusableAnswer(why, new))
        if _last_fix_rejected(state):
            raise PhaseHalt(
                HaltReason.FIX_OUTPUT_INVALID,
                f"Fix output rejected twice in a row (iteration {review.iteration}: {why}).",
            )
        return FixResult(applied=False, summary=f"rejected: {why}; kept the previous document")

    def constraints(self) -> str:
        """Re-read at every iteration: the human may edit them while the loop runs."""
        return self.engine.read(CONSTRAINTS_FILE)

    def stored_review(self, n: int) -> StoredReview | None:
        """The review of iteration `n` if a previous run got that far before it was stopped."""
        try:
            review = StoredReview.model_validate_json((self.dir / REVIEW_FILE).read_bytes())
        except (OSError, ValidationError):
            return None
        if review.iteration != n:
            return None
        if review.issues and git_repo.is_dirty(self.dir, REVIEW_FILE):
            self.engine.commit(f"review #{n}: {describe(Counts.of(review.issues))}")
        log_event(self.dir, "review_reused", iteration=n)
        return review

    def previous_fix(self, review: StoredReview, recovered: bool) -> FixResult | None:
        """The fix that needs no agent: none for a clean review, or one written before a kill."""
        if not review.issues:
            return FixResult(applied=False, summary="none needed: the review found no issues")
        if recovered and git_repo.is_dirty(self.dir, self.document):
            return FixResult(
                applied=True, summary=f"{self.document} updated before an interruption; kept"
            )
        return None

    def settle(self, state: PolishState) -> None:
        """Commit what a run stopped between writing iteration N's state and committing it left."""
        if state.iteration and git_repo.is_dirty(self.dir):
            self.engine.commit(f"iteration #{state.iteration}: recovered after an interruption")

    def record(self, new: PolishState, entry: str, subject: str) -> None:
        """State, log and commit together: if the commit fails, both files are put back."""
        saved = {name: _snapshot(self.dir / name) for name in (POLISH_STATE_FILE, POLISH_LOG_FILE)}
        write_polish_state(self.dir, new)
        polish_log.append(self.dir, entry)
        try:
            self.engine.commit(subject)
        except PhaseHalt:
            for name, content in saved.items():
                _restore(self.dir / name, content)
            raise

    def _review_prompt(self, constraints: str, guidance: str) -> str:
        document = self.engine.read(self.document)
        window = self.engine.config.agent(self.reviewer).prompt_budget_tokens
        room = window - estimate_tokens(document + guidance) - _PROMPT_OVERHEAD_TOKENS
        fitted = truncate_text(constraints, max(room, 0))
        if fitted.truncated:
            log_event(self.dir, "constraints_truncated", level="warning", tokens=room)
        return self.engine.prompts.render(
            self.review_step,
            constraints=fitted.text,
            guidance=guidance,
            **{self.plugin.name: document},
        )


def _snapshot(path: Path) -> str | None:
    return read_own_text(path) if path.exists() else None


def _restore(path: Path, content: str | None) -> None:
    if content is None:
        path.unlink(missing_ok=True)
    else:
        write_text_atomic(path, content)


def _broken(old: str, new: str) -> str | None:
    """Why `new` cannot replace `old`: a fragment, or a document that lost part of its skeleton.

    The reviewer must never be asked to approve a structurally broken deliverable, so every
    heading of the document before the fix must still stand, in the same order, after it.
    """
    if not new.strip() or len(new) < MIN_FIX_LENGTH_RATIO * len(old):
        share = round(100 * len(new) / max(len(old), 1))
        return f"fixer returned {len(new)} chars, {share}% of the previous {len(old)}"
    remaining = iter(_headings(new))
    lost = [h for h in _headings(old) if not any(h == kept for kept in remaining)]
    if lost:
        return f"fixer dropped or reordered the heading(s) {', '.join(lost)}"
    return None


def _headings(text: str) -> list[str]:
    """The document's Markdown headings, outside code fences, as written."""
    headings, fenced = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and _HEADING.match(stripped):
            headings.append(" ".join(stripped.split()))
    return headings


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
