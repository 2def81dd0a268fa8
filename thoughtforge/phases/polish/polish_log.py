"""`polish_log.md`: the human-readable story of the polish loop, one entry per iteration."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from thoughtforge.core.own_files import open_own
from thoughtforge.core.staging import POLISH_LOG_FILE
from thoughtforge.models import Counts, Issue
from thoughtforge.phases.polish.finding_tracker import Finding, FindingTracker
from thoughtforge.phases.polish.guards import GuardReport, describe
from thoughtforge.prompting.markdown_escaping import escape_untrusted

_HEADER = "# Polish log\n"


def iteration_entry(
    iteration: int,
    at: datetime,
    issues: list[Issue],
    fix_summary: str,
    report: GuardReport,
    merged: int = 0,
    tracker: FindingTracker | None = None,
) -> str:
    """One iteration's entry: the review, the fix, the tracker's findings, every guard's finding,
    the verdict."""
    counts = Counts.of(issues)
    duplicates = f"; {merged} duplicate issue(s) merged" if merged else ""
    lines = [
        f"## Iteration {iteration} — {at.isoformat(timespec='seconds')}",
        "",
        f"**Review:** {describe(counts)} (total {counts.total}{duplicates})",
        "",
        "### Issues found",
        *(_issue_line(issue) for issue in issues),
        *(["- none"] if not issues else []),
        "",
        "### Fixes applied",
        f"- {fix_summary}",
        "",
        *(_tracker_lines(tracker, iteration) if tracker is not None else []),
        "### Guards",
        *(f"- {r.name}: {'TRIGGERED — ' if r.triggered else ''}{r.detail}" for r in report.results),
        *(f"- warning: {w}" for w in report.warnings),
        "",
        f"**Verdict:** {report.verdict}"
        + (f" ({report.guard}) — {report.reason}" if report.guard else ""),
        "",
    ]
    return "\n".join(lines) + "\n"


def open_findings(tracker: FindingTracker, iteration: int, limit: int = 10) -> str:
    """What the completion message lists: the findings still open, and those dismissed rather
    than fixed (with why)."""
    still = tracker.active
    dismissed = [f for f in tracker.findings if f.status == "dismissed"]
    text = ""
    if still:
        lines = [finding_line(f, iteration) for f in still[:limit]]
        more = [f"- … and {len(still) - limit} more (polish_log.md)"] if len(still) > limit else []
        text += "\n\nStill open:\n" + "\n".join(lines + more)
    if dismissed:
        lines = [finding_line(f, iteration) for f in dismissed[:limit]]
        text += "\n\nDismissed by a review, not fixed:\n" + "\n".join(lines)
    return text


def finding_line(finding: Finding, iteration: int) -> str:
    """A finding of the tracker as the log, the completion message and the page list it."""
    where = f" ({escape_untrusted(finding.location)})" if finding.location else ""
    return (
        f"- **{finding.id} {finding.severity}**{where}: {escape_untrusted(finding.description)}"
        f" — {finding_state(finding, iteration)}"
    )


def finding_state(
    finding: Finding, iteration: int, quote: Callable[[str], str] = escape_untrusted
) -> str:
    """Its life so far: age, what addressed it, why it closed or why not (the reviewer's words
    `quote`d, for Markdown by default)."""
    if finding.status == "dismissed":
        return f"dismissed at iteration {finding.dismissed_at}: {quote(finding.dismissal)}"
    fixes = ", ".join(f"#{n}" for n in finding.addressed_by)
    addressed = f"; its place changed by fix {fixes}" if fixes else ""
    if finding.undone_by:
        undone = ", ".join(f"#{n}" for n in finding.undone_by)
        addressed += f"; put back as it was by fix {undone}"
    if finding.status == "resolved":
        return f"resolved at iteration {finding.resolved_at}{_why_resolved(finding, quote)}"
    if finding.not_shown:
        addressed += f"; not resolved: {'; '.join(finding.not_shown)}"
    age = finding.age(iteration)
    silent = (
        f"; not reported since iteration {finding.last_reported}, its place unchanged"
        if finding.silent_since is not None
        else ""
    )
    found = f"found at iteration {finding.found_at} ({age} review(s))"
    return f"{finding.status}, {found}{addressed}{silent}"


def _why_resolved(finding: Finding, quote: Callable[[str], str]) -> str:
    fixes = ", ".join(f"#{n}" for n in finding.addressed_by)
    review = f"review #{finding.resolved_at}"
    if finding.resolution == "confirmed":
        return f": {review} confirmed it, quoting '{quote(_clip(finding.quote))}'"
    if finding.resolution == "unplaced":
        return (
            f"; its place changed by fix {fixes} (it names none: the whole document), and "
            f"{review}, which confirms nothing, did not report it"
        )
    place = f" ({quote(_clip(finding.fixed_at, 60))})" if finding.fixed_at else ""
    return f"; its place changed by fix {fixes}{place}, and {review} did not report it"


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tracker_lines(tracker: FindingTracker, iteration: int) -> list[str]:
    closed = [f for f in tracker.findings if iteration in (f.resolved_at, f.dismissed_at)]
    return [
        "### Open findings",
        *(finding_line(f, iteration) for f in tracker.active),
        *(["- none"] if not tracker.active else []),
        "",
        *(
            ["### Closed this iteration", *(finding_line(f, iteration) for f in closed), ""]
            if closed
            else []
        ),
    ]


def resume_entry(at: datetime, halted_by: str, iteration: int) -> str:
    """The line that marks where a human resumed a halted loop."""
    return (
        f"## Resumed at {at.isoformat(timespec='seconds')} — Halted by {halted_by} "
        f"at iteration {iteration}, resumed by human\n\n"
    )


def append(project_dir: Path, entry: str) -> None:
    """Append an entry, writing the log's heading first if the file is new."""
    path = project_dir / POLISH_LOG_FILE
    with open_own(path, "a") as log:
        if log.tell() == 0:
            log.write(_HEADER + "\n")
        log.write(entry)


def _issue_line(issue: Issue) -> str:
    """The reviewer's words are quoted, never allowed to shape the log."""
    where = f" ({escape_untrusted(issue.location)})" if issue.location else ""
    fix = f" → {escape_untrusted(issue.recommendation)}" if issue.recommendation else ""
    return f"- **{issue.severity}**{where}: {escape_untrusted(issue.description)}{fix}"
