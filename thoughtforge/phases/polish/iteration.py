"""One polish iteration's steps: review the deliverable, fix it, record the result in git.

Each step leaves the files in a state a re-run can read, which is what makes a kill at any point
safe (the loop's docstring tells the whole story):

* the review is written to `review.json` and committed ("review #N") before the fix is asked for,
  so a re-run reuses it instead of asking again;
* a fix already written to the deliverable before a kill is kept, not applied twice;
* state, log and commit are recorded together: if the commit fails, both files are put back.

Every review records which version of the deliverable it read (a content hash, `fingerprint`), and
every fix says what it did to it (`FixResult.outcome`, in `step_results`): changed it, left it as it
was, restored an earlier version, or was refused (by the plugin's validator, `phases.deliverable`).
The guards read those.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

from pydantic import ValidationError

from thoughtforge.core import git_repo
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import read_own_bytes, read_own_text
from thoughtforge.core.project import CONSTRAINTS_FILE
from thoughtforge.core.project_log import log_event
from thoughtforge.core.revisions import current_revision
from thoughtforge.core.staging import POLISH_LOG_FILE, REVIEW_FILE
from thoughtforge.core.state import POLISH_STATE_FILE, PolishState, write_polish_state
from thoughtforge.errors import PhaseHalt, UnusableReply
from thoughtforge.models import Counts, HaltReason
from thoughtforge.phases.deliverable import edit_rule
from thoughtforge.phases.deliverable.verdict import Candidate, DeliverableVerdict
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.polish import polish_log
from thoughtforge.phases.polish.finding_tracker import (
    TRACKER_FILE,
    Finding,
    FindingTracker,
    write_tracker,
)
from thoughtforge.phases.polish.fix_evidence import quoted_in
from thoughtforge.phases.polish.guards import describe
from thoughtforge.phases.polish.review import (
    CheckedConfirmation,
    TestResults,
    merge_duplicates,
    parse_review,
    prompt_echoes,
    still_standing,
)
from thoughtforge.phases.polish.review_prompt import Cut, fit_review_prompt
from thoughtforge.phases.polish.review_request import (
    NO_OPEN_FINDINGS,
    changes_since_review,
    open_findings_text,
)
from thoughtforge.phases.polish.step_results import (
    FixResult,
    StoredReview,
    changed_version,
    fix_result,
    version_of,
)
from thoughtforge.phases.quoted_evidence import Quote
from thoughtforge.phases.reasking import UNUSABLE_HELP, reask
from thoughtforge.phases.traceability import (
    QUOTE_REMEDY,
    QUOTED_NOTE,
    TRACEABILITY_FILE,
    Trace,
    criteria,
    numbered,
    quoted_traces,
    render,
    without_evidence,
    without_evidence_reason,
)


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
        """The review prompt's list of the tracker's open findings, set before each review."""
        self.measured: TestResults | None = None
        """What `measure` found before the review being asked."""
        self.evidence: list[Quote] = []
        """The last review's evidence for the criteria, checked against the document each time
        it is used (the fix after the review may have changed the passages)."""

    @property
    def deliverable(self) -> Path:
        return self.plugin.deliverable_path(self.dir)

    def measure(self) -> TestResults | None:
        """What the orchestrator measures before the review (a plan: nothing)."""
        return None

    def write_traceability(self) -> None:
        """`docs/traceability.md` for this iteration (`phases.traceability`): here each
        criterion with the passage the review quoted for it, checked in the document as the
        iteration left it."""
        document = render(self.engine.project_name, self._traces(), QUOTED_NOTE)
        self.engine.write(TRACEABILITY_FILE, document)

    def before_done(self) -> None:
        """What must hold before the guards' `done` stands, raising `PhaseHalt` when it does
        not: here a passage of the document as it is now, quoted by the last review, for every
        criterion (code mode: a locked test of each passed in ThoughtForge's own run)."""
        missing = without_evidence(self._traces())
        if missing:
            reason = without_evidence_reason(missing, QUOTE_REMEDY)
            raise PhaseHalt(HaltReason.CRITERION_WITHOUT_EVIDENCE, reason)

    def _traces(self) -> list[Trace]:
        document = self.engine.read(self.document)
        return quoted_traces(criteria(self.constraints()), document, self.evidence)

    def review(
        self, n: int, constraints: str, guidance: str, findings: list[Finding] | None = None
    ) -> StoredReview:
        """Ask the reviewer, re-asking on malformed output; write and commit the review. The
        reviewer is shown the tracker's open `findings` to confirm or dismiss."""
        measured = self.measured = self.measure()
        self.open_findings = open_findings_text(findings or [], self.changes_shown(n))
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
        except UnusableReply as exc:
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
        read = self.quotable() if parsed.resolved else ""
        confirmed = [
            CheckedConfirmation(id=c.id, quote=c.quote, found=quoted_in(c.quote, read))
            for c in parsed.resolved
        ]
        review = StoredReview(
            iteration=n,
            issues=issues,
            tests=measured,
            version=self.fingerprint(),
            constraints=version_of(constraints),
            revision=current_revision(self.dir),
            merged=merged,
            dismissed=parsed.dismissed,
            confirmed=confirmed,
            evidence=parsed.evidence,
        )
        self.evidence = review.evidence
        self.engine.write(REVIEW_FILE, review.model_dump_json(indent=2) + "\n")
        if review.issues:
            self.engine.commit(f"review #{n}: {describe(Counts.of(review.issues))}")
        return review

    def fix(
        self, state: PolishState, review: StoredReview, constraints: str, guidance: str
    ) -> FixResult:
        """Ask the fixer for the whole document; the plugin's validator decides whether it may
        replace it (anything else is refused and the document kept; the guards halt on repeated
        refusals or idle fixes). A fix that breaks what a fix may change (`edit_rule`, which the
        prompt states) is asked again once, told what it broke, before it counts as refused."""
        old = self.engine.read(self.document)
        issues = json.dumps([i.model_dump(mode="json") for i in review.issues], indent=2)
        prompt = self.engine.prompts.render(
            self.fix_step,
            issues=issues,
            constraints=constraints,
            guidance=guidance,
            edit_rule=edit_rule.rule_text(),
            **{self.plugin.name: old},
        )
        again = f"Answer again with the whole document, keeping to this:\n{edit_rule.rule_text()}"

        def judged(answer: str) -> tuple[str, DeliverableVerdict]:
            verdict = self.plugin.check_deliverable(
                self.engine.project, Candidate(stage="fix", text=answer, previous=old)
            )
            if verdict.problem == "structure":
                raise UnusableReply(verdict.reason, answer)
            return answer, verdict

        try:
            # the fix is its answer: a document it wrote itself is put back before it is judged
            answer, verdict = self.engine.ask_until_usable(
                self.fixer,
                self.engine.call(self.fix_step, review.iteration),
                lambda refusal: prompt if refusal is None else reask(prompt, refusal, again),
                judged,
                attempts=2,
                also=(self.document,),
            )
        except UnusableReply as exc:  # each answer is kept already
            return self.refuse(review.iteration, f"{exc} (asked again once)", None)
        if not verdict.accepted:
            return self.refuse(review.iteration, verdict.reason, answer)
        if verdict.stripped:
            log_event(
                self.dir, "outside_text_stripped", iteration=review.iteration, what=verdict.stripped
            )
        result = fix_result(state, old, verdict.document, self.document, verdict.stripped_note)
        if result.outcome == "unchanged":
            return result
        self.mark_fixed(version_of(verdict.document + "\n"))
        self.engine.write(self.document, verdict.document + "\n")
        if result.outcome == "restored":
            self._restored(state, result)
        return result

    def refuse(self, n: int, why: str, answer: str | None) -> FixResult:
        """A fix that is not a whole deliverable: kept in `rejected/` (None: kept already), the
        deliverable unchanged."""
        log_event(self.dir, "fix_rejected", level="warning", iteration=n, why=why)
        if answer is not None:
            self.engine.keeper(self.fix_step)(n, UnusableReply(why, answer))
        return FixResult(outcome="refused", summary=f"refused: {why}; kept the previous version")

    def changed(self, state: PolishState, version: str, summary: str, what: str) -> FixResult:
        """A fix that changed `what`: a new version (`summary` says how), or one seen before."""
        result = changed_version(state, version, summary, what)
        if result.outcome == "restored":
            self._restored(state, result)
        return result

    def _restored(self, state: PolishState, result: FixResult) -> None:
        log_event(
            self.dir, "fix_restored_version", iteration=state.iteration + 1, of=result.restored
        )

    def quotable(self) -> str:
        """What a review's quotes are checked against: the deliverable as it is now."""
        return read_own_text(self.deliverable) if self.deliverable.is_file() else ""

    def changes_shown(self, n: int) -> str:
        """What changed in the deliverable since review #n−1 read it, in words (the reviewer is
        shown it with the open findings); empty when nothing did or it cannot be told."""
        if n < 2 or not self.deliverable.is_file():
            return ""
        return changes_since_review(self.dir, n - 1, self.document, self.quotable())

    def fingerprint(self) -> str:
        """The content hash of the deliverable as it is now."""
        return version_of(self.engine.read(self.document))

    def constraints(self) -> str:
        """Re-read at every iteration: the human may edit them while the loop runs."""
        return self.engine.read(CONSTRAINTS_FILE)

    def stored_review(self, n: int, constraints: str) -> StoredReview | None:
        """The review of iteration `n` if a previous run got that far before it was stopped, and
        only if it read what stands now (`_stale`): an iteration number alone is no proof, as a
        revision or a re-polish numbers its iterations from 1 again."""
        try:
            review = StoredReview.model_validate_json(read_own_bytes(self.dir / REVIEW_FILE))
        except (OSError, ValidationError):
            return None
        if review.iteration != n:
            return None
        stale = self._stale(review, constraints)
        if stale:
            log_event(self.dir, "stored_review_stale", iteration=n, why=stale)
            return None
        if review.issues and git_repo.is_dirty(self.dir, REVIEW_FILE):
            self.engine.commit(f"review #{n}: {describe(Counts.of(review.issues))}")
        log_event(self.dir, "review_reused", iteration=n)
        self.evidence = review.evidence
        return review

    def _stale(self, review: StoredReview, constraints: str) -> str | None:
        """Why `review` is no review of the deliverable as it stands; None when it is. It must
        belong to this revision, have judged these constraints, and have read this version (or
        its own fix made it: a fix written before an interruption is kept)."""
        if review.revision != current_revision(self.dir):
            return f"it belongs to revision {review.revision}"
        if review.constraints != version_of(constraints):
            return "the constraints changed since it was written"
        if self.fingerprint() not in (review.version, review.fixed_to):
            return f"it read another version of {self.document}"
        return None

    def mark_fixed(self, version: str) -> None:
        """Record in the stored review what its fix made of the deliverable (`fixed_to`)."""
        stored = StoredReview.model_validate_json(read_own_bytes(self.dir / REVIEW_FILE))
        fixed = stored.model_copy(update={"fixed_to": version})
        self.engine.write(REVIEW_FILE, fixed.model_dump_json(indent=2) + "\n")

    def previous_fix(self, review: StoredReview, recovered: bool) -> FixResult | None:
        """The fix that needs no agent: none for a clean review, or the one this review's fixer
        wrote before a kill or a halt (`fixed_to`), committed or not."""
        if not review.issues:
            return FixResult(outcome="none", summary="none needed: the review found no issues")
        if recovered and review.fixed_to == self.fingerprint():
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

    def record(self, new: PolishState, tracker: FindingTracker, entry: str, subject: str) -> None:
        """State, tracker, log and commit together: if the commit fails, the files are put back."""
        names = (POLISH_STATE_FILE, TRACKER_FILE, POLISH_LOG_FILE)
        saved = {name: _snapshot(self.dir / name) for name in names}
        try:
            self.write_traceability()
            write_polish_state(self.dir, new)
            write_tracker(self.dir, tracker)
            polish_log.append(self.dir, entry)
            self.engine.commit(subject)
        except (PhaseHalt, OSError) as failure:  # a full disk, a read-only folder: none half-made
            for name, content in saved.items():
                _restore(self.dir / name, content)
            if isinstance(failure, PhaseHalt):
                raise
            raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{failure}.") from None

    def _review_prompt(self, constraints: str, guidance: str) -> str:
        """The review prompt within the reviewer's window, the acceptance criteria and the
        document whole (`review_prompt`)."""
        document = self.engine.read(self.document)

        listed = numbered(criteria(constraints))  # never cut: the criteria, numbered

        def render(parts: Mapping[str, str]) -> str:
            return self.engine.prompts.render(
                self.review_step,
                constraints=parts["constraints"],
                criteria=listed,
                guidance=parts["guidance"],
                open_findings=self.open_findings,
                **{self.plugin.name: document},
            )

        parts = {"constraints": constraints, "guidance": guidance}
        cuts = [Cut("constraints"), Cut("guidance", keep="tail")]
        return fit_review_prompt(self.engine, self.reviewer, render, parts, cuts).text


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
