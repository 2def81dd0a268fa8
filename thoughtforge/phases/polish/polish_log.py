"""`polish_log.md`: the human-readable story of the polish loop, one entry per iteration."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from thoughtforge.core import POLISH_LOG_FILE, SecondReview
from thoughtforge.models import Counts, Issue
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
    second_review: SecondReview | None = None,
) -> str:
    """One iteration's entry: the review, the fix, every guard's finding, the verdict."""
    counts = Counts.of(issues)
    duplicates = f"; {merged} duplicate issue(s) merged" if merged else ""
    second = (
        f"**Second review** of the version iteration {second_review.found_at} found "
        f"{len(second_review.issues)} critical or medium issue(s) in and iteration "
        f"{second_review.clean_at} found clean: it was given those issues."
        if second_review
        else ""
    )
    lines = [
        f"## Iteration {iteration} — {at.isoformat(timespec='seconds')}",
        "",
        f"**Review:** {describe(counts)} (total {counts.total}{duplicates})",
        "",
        *([second, ""] if second else []),
        "### Issues found",
        *(_issue_line(issue) for issue in issues),
        *(["- none"] if not issues else []),
        "",
        "### Fixes applied",
        f"- {fix_summary}",
        "",
        "### Guards",
        *(f"- {r.name}: {'TRIGGERED — ' if r.triggered else ''}{r.detail}" for r in report.results),
        *(f"- warning: {w}" for w in report.warnings),
        "",
        f"**Verdict:** {report.verdict}"
        + (f" ({report.guard}) — {report.reason}" if report.guard else ""),
        "",
    ]
    return "\n".join(lines) + "\n"


def open_issues(issues: list[Issue], limit: int = 10) -> str:
    """The issues a plateau leaves open, as the completion message lists them."""
    if not issues:
        return ""
    lines = [_issue_line(issue) for issue in issues[:limit]]
    more = [f"- … and {len(issues) - limit} more (polish_log.md)"] if len(issues) > limit else []
    return "\n\nStill open:\n" + "\n".join(lines + more)


def resume_entry(at: datetime, halted_by: str, iteration: int) -> str:
    """The line that marks where a human resumed a halted loop."""
    return (
        f"## Resumed at {at.isoformat(timespec='seconds')} — Halted by {halted_by} "
        f"at iteration {iteration}, resumed by human\n\n"
    )


def append(project_dir: Path, entry: str) -> None:
    """Append an entry, writing the log's heading first if the file is new."""
    path = project_dir / POLISH_LOG_FILE
    with path.open("a", encoding="utf-8") as log:
        if log.tell() == 0:
            log.write(_HEADER + "\n")
        log.write(entry)


def _issue_line(issue: Issue) -> str:
    """The reviewer's words are quoted, never allowed to shape the log."""
    where = f" ({escape_untrusted(issue.location)})" if issue.location else ""
    fix = f" → {escape_untrusted(issue.recommendation)}" if issue.recommendation else ""
    return f"- **{issue.severity}**{where}: {escape_untrusted(issue.description)}{fix}"
