"""What a reviewer is shown besides the deliverable: the tracker's open findings by id, and what
the fixes changed since the last review, from which it reports a finding again, dismisses it, or
confirms it resolved by quoting the text that resolves it."""

from __future__ import annotations

import json
from pathlib import Path

from thoughtforge.core import git_repo
from thoughtforge.core.word_diff import as_text, text_change
from thoughtforge.phases.polish.finding_tracker import Finding

NO_OPEN_FINDINGS = "(none)"
CHANGES_SHOWN = 12_000
"""The most characters of the fixes' changes a review prompt is shown."""
_SEARCHED = 20
"""Commits searched back for the last review's (a few per iteration)."""


def open_findings_text(findings: list[Finding], changes: str = "") -> str:
    """The tracker's open findings as the reviewer is shown them, oldest first, with their ids,
    and `changes`, what the fixes changed since the last review."""
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
            **({"no_fix_shown": f.not_shown[-1]} if f.not_shown and f.status == "open" else {}),
        }
        for f in findings
    ]
    listed = json.dumps(shown, indent=2)
    if not changes:
        return listed
    if len(changes) > CHANGES_SHOWN:
        changes = changes[:CHANGES_SHOWN] + "\n… (the rest of the changes is not shown)"
    return f"{listed}\n\nWhat the fix changed since the last review:\n\n{changes}"


def changes_since_review(project_dir: Path, n: int, relpath: str, now: str) -> str:
    """What changed in `relpath` (now `now`) since review #n read it, in words; empty when
    nothing did, or when that review was not committed (it found nothing, so no fix followed)."""
    subject = f"review #{n}: "
    records = git_repo.log_records(project_dir, "%H%x00%s", last=_SEARCHED)
    commit = next((c for c, said in reversed(records) if said.startswith(subject)), None)
    before = None if commit is None else git_repo.file_at(project_dir, commit, relpath)
    if before is None:
        return ""
    change = text_change(relpath, before, now)
    return as_text([change]) if change.passages else ""
