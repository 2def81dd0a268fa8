"""One polish iteration's steps: review the deliverable, fix it, record the result in git.

Each step leaves the files in a state a re-run can read, which is what makes a kill at any point
safe (the loop's docstring tells the whole story):

* the review is written to `review.json` and committed ("review #N") before the fix is asked for,
  so a re-run reuses it instead of asking again;
* a fix already written to the deliverable before a kill is kept, not applied twice;
* state, log and commit are recorded together: if the commit fails, both files are put back.

Every review records which version of the deliverable it read (a content hash, `fingerprint`),
and every fix says what it did to it (`FixResult.outcome`): changed it, left it as it was,
restored an earlier version, or was refused (by the plugin's validator, `phases.deliverable`).
The guards read those.
"""

from __future__ import annotations

import hashlib
import json
import re
from contextlib import suppress
from pathlib import Path

from pydantic import BaseModel, ValidationError

from thoughtforge.core import (
    CONSTRAINTS_FILE,
    POLISH_LOG_FILE,
    POLISH_STATE_FILE,
    REVIEW_FILE,
    FixOutcome,
    PolishState,
    git_repo,
    log_event,
    read_own_text,
    write_polish_state,
    write_text_atomic,
)
from thoughtforge.core.own_files import read_own_bytes
from thoughtforge.errors import PhaseHalt, UnusableAnswer
from thoughtforge.models import Counts, HaltReason, Issue
from thoughtforge.phases.deliverable.markdown_tables import (
    changed_headings,
    same_text,
    section_versions,
    sections,
)
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish import polish_log
from thoughtforge.phases.polish.guards import describe, version_name
from thoughtforge.phases.polish.ledger import LEDGER_FILE, Finding, Ledger, write_ledger
from thoughtforge.phases.polish.review import (
    Dismissal,
    TestResults,
    merge_duplicates,
    parse_review,
    prompt_echoes,
    still_standing,
)
from thoughtforge.phases.reasking import UNUSABLE_HELP, reask
from thoughtforge.phases.traceability import TRACEABILITY_FILE, plan_traceability
from thoughtforge.prompting import estimate_tokens, truncate_text

_PROMPT_OVERHEAD_TOKENS = 2_000


class StoredReview(BaseModel):
    iteration: int
    issues: list[Issue]
    tests: TestResults | None = None
    version: str | None = None
    """The content hash of the deliverable the review read."""
    merged: int = 0
    """Duplicate issues of the answer counted once."""
    dismissed: list[Dismissal] = []
    """The open findings it was shown that it dismissed, with why."""


class FixResult(BaseModel):
    outcome: FixOutcome
    summary: str
    restored: int | None = None
    """With `restored`: the iteration whose fix first made that version (0: as polishing began)."""
    version: str | None = None
    """The content hash of what the fix left, when it changed the deliverable."""
    places: list[str] | None = None
    """Where it changed the deliverable (a document's headings); None: unknown, so anywhere."""
    every_place: list[str] | None = None
    """Every place of the deliverable it left (a document's headings), when known."""
    place_versions: tuple[dict[str, str], dict[str, str]] | None = None
    """Each place's content hash before the fix and after it, when known (`after_fix` reopens a
    finding whose fixed place the fix put back as it was)."""

    @property
    def changed_places(self) -> list[str] | None:
        """What the ledger counts as changed: nothing unless the fix was applied."""
        return self.places if self.applied else []

    @property
    def applied(self) -> bool:
        return self.outcome in ("changed", "restored")

    def subject(self, n: int) -> str:
        """The commit's subject: a fix that changed nothing never claims a change."""
        if self.outcome == "none":
            return f"review #{n}: no issues"
        return f"fix #{n}: {self.summary}"


def version_of(text: str) -> str:
    """The content hash of a document, blind to blank lines, line endings and runs of spaces
    (`same_text`): a fix that changes only those changes nothing."""
    normal = "\n".join(filter(None, map(same_text, text.splitlines())))
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


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
        self.open_findings = NO_OPEN_FINDINGS
        """The review prompt's list of the ledger's open findings, set before each review."""

    @property
    def deliverable(self) -> Path:
        return self.plugin.deliverable_path(self.dir)

    def measure(self) -> TestResults | None:
        """What the orchestrator measures before the review (a plan: nothing)."""
        return None

    def write_traceability(self) -> None:
        """`docs/traceability.md` for this iteration (`phases.traceability`): here each
        criterion with the plan row or section that addresses it."""
        document = plan_traceability(
            self.engine.project_name, self.constraints(), self.engine.read(self.document)
        )
        self.engine.write(TRACEABILITY_FILE, document)

    def before_done(self) -> None:
        """What must hold before the guards' `done` stands: a plugin's steps raise `PhaseHalt`
        when it does not (code mode: a criterion without a test)."""

    def review(
        self, n: int, constraints: str, guidance: str, findings: list[Finding] | None = None
    ) -> StoredReview:
        """Ask the reviewer, re-asking on malformed output; write and commit the review. The
        reviewer is shown the ledger's open `findings` to confirm or dismiss."""
        measured = self.measure()
        self.open_findings = open_findings_text(findings or [])
        prompt = self._review_prompt(constraints, guidance)
        echoes = prompt_echoes(prompt, self.plugin.review)
        retries = self.engine.config.polish.retry_malformed_output
        try:
            parsed = self.engine.ask_until_usable(
                self.reviewer,
                self.engine.call(self.review_step, n, self.plugin.review.model_json_schema()),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal),
                lambda answer: parse_review(answer, self.plugin.review, echoes),
                attempts=retries + 1,
            )
        except UnusableAnswer as exc:
            raise PhaseHalt(
                HaltReason.REVIEW_MALFORMED,
                f"Review output still malformed after {retries} re-asks at iteration {n}: {exc}. "
                f"{UNUSABLE_HELP}",
            ) from None
        standing, gone = still_standing(parsed.issues)
        if gone:
            log_event(self.dir, "issues_said_resolved", iteration=n, dropped=gone)
        issues, merged = merge_duplicates(standing)
        if merged:
            log_event(self.dir, "duplicate_issues_merged", iteration=n, merged=merged)
        review = StoredReview(
            iteration=n,
            issues=issues,
            tests=measured,
            version=self.fingerprint(),
            merged=merged,
            dismissed=parsed.dismissed,
        )
        self.engine.write(REVIEW_FILE, review.model_dump_json(indent=2) + "\n")
        if review.issues:
            self.engine.commit(f"review #{n}: {describe(Counts.of(review.issues))}")
        return review

    def fix(
        self, state: PolishState, review: StoredReview, constraints: str, guidance: str
    ) -> FixResult:
        """Ask the fixer for the whole document; the plugin's validator decides whether it may
        replace it (anything else is refused and the document kept; the guards halt on repeated
        refusals or idle fixes)."""
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
        # the fix is its answer: a document it wrote itself is put back before it is judged
        answer = self.engine.ask(self.fixer, prompt, call, also=(self.document,))
        verdict = self.plugin.check_deliverable(
            self.engine.project, Candidate(stage="fix", text=answer, previous=old)
        )
        if not verdict.accepted:
            return self.refuse(review.iteration, verdict.reason, answer)
        if verdict.stripped:
            log_event(
                self.dir, "outside_text_stripped", iteration=review.iteration, what=verdict.stripped
            )
        new = verdict.document + "\n"
        if version_of(new) == version_of(old):
            return FixResult(
                outcome="unchanged",
                summary=f"unchanged: the fixer returned {self.document} as it was"
                + verdict.stripped_note,
            )
        self.engine.write(self.document, new)
        sizes = f"({len(old)} → {len(new)} chars)"
        summary = f"{self.document} updated {sizes}{verdict.stripped_note}"
        result = self.changed(state, version_of(new), summary, f"{self.document} {sizes}")
        every = [s.heading for s in sections(new)]
        places = changed_headings(old, new) if _WORD.findall(old) != _WORD.findall(new) else []
        versions = (section_versions(old), section_versions(new))
        return result.model_copy(
            update={"places": places, "every_place": every, "place_versions": versions}
        )

    def refuse(self, n: int, why: str, answer: str) -> FixResult:
        """A fix that is not a whole deliverable: kept in `rejected/`, the deliverable unchanged."""
        log_event(self.dir, "fix_rejected", level="warning", iteration=n, why=why)
        self.engine.keeper(self.fix_step)(n, UnusableAnswer(why, answer))
        return FixResult(outcome="refused", summary=f"refused: {why}; kept the previous version")

    def changed(self, state: PolishState, version: str, summary: str, what: str) -> FixResult:
        """A fix that changed `what`: a new version (`summary` says how), or one seen before."""
        earlier = state.versions.get(version)
        if earlier is None:
            return FixResult(outcome="changed", summary=summary, version=version)
        log_event(self.dir, "fix_restored_version", iteration=state.iteration + 1, of=earlier)
        return FixResult(
            outcome="restored",
            summary=f"{what} restored to {version_name(earlier)}",
            restored=earlier,
            version=version,
        )

    def fingerprint(self) -> str:
        """The content hash of the deliverable as it is now."""
        return version_of(self.engine.read(self.document))

    def constraints(self) -> str:
        """Re-read at every iteration: the human may edit them while the loop runs."""
        return self.engine.read(CONSTRAINTS_FILE)

    def stored_review(self, n: int) -> StoredReview | None:
        """The review of iteration `n` if a previous run got that far before it was stopped."""
        try:
            review = StoredReview.model_validate_json(read_own_bytes(self.dir / REVIEW_FILE))
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
            return FixResult(outcome="none", summary="none needed: the review found no issues")
        if recovered and git_repo.is_dirty(self.dir, self.document):
            return FixResult(
                outcome="changed",
                summary=f"{self.document} updated before an interruption; kept",
                version=self.fingerprint(),
            )
        return None

    def settle(self, state: PolishState) -> None:
        """Commit what a run stopped between writing iteration N's state and committing it left."""
        if state.iteration and git_repo.is_dirty(self.dir):
            self.engine.commit(f"iteration #{state.iteration}: recovered after an interruption")

    def record(self, new: PolishState, ledger: Ledger, entry: str, subject: str) -> None:
        """State, ledger, log and commit together: if the commit fails, the files are put back."""
        names = (POLISH_STATE_FILE, LEDGER_FILE, POLISH_LOG_FILE)
        saved = {name: _snapshot(self.dir / name) for name in names}
        try:
            self.write_traceability()
            write_polish_state(self.dir, new)
            write_ledger(self.dir, ledger)
            polish_log.append(self.dir, entry)
            self.engine.commit(subject)
        except (PhaseHalt, OSError) as failure:  # a full disk, a read-only folder: none half-made
            for name, content in saved.items():
                _restore(self.dir / name, content)
            if isinstance(failure, PhaseHalt):
                raise
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{failure}.") from None

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
            open_findings=self.open_findings,
            **{self.plugin.name: document},
        )


_WORD = re.compile(r"\w+")
"""A fix that changed no word (punctuation, a symbol) changed the document, but no place of it:
it addresses no finding, and a clean review after it is no evidence."""


def _snapshot(path: Path) -> str | None:
    return read_own_text(path) if path.exists() else None


def _restore(path: Path, content: str | None) -> None:
    """Put a file back as it was, as far as the disk lets: removed first, so a full disk has
    the room it took back."""
    with suppress(OSError):
        if (read_own_text(path) if path.exists() else None) == content:
            return
        path.unlink(missing_ok=True)
        if content is not None:
            write_text_atomic(path, content)


NO_OPEN_FINDINGS = "(none)"


def open_findings_text(findings: list[Finding]) -> str:
    """The ledger's open findings as the reviewer is shown them, oldest first, with their ids."""
    if not findings:
        return NO_OPEN_FINDINGS
    shown = [
        {
            "id": f.id,
            "severity": f.severity.value,
            "description": f.description,
            "location": f.location,
            "found_at_iteration": f.found_at,
            "place_changed_by_fix": f.addressed_by[-1] if f.status == "addressed" else None,
        }
        for f in findings
    ]
    return json.dumps(shown, indent=2)
