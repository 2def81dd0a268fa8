"""Whether a fixer's answer may replace a document deliverable: only a whole document of its kind.

The spec's fix agent returns the complete document, never a diff or a part, so the skeleton of
the template can never be broken by a fix. Models answer otherwise in a few recurring ways, each
refused here as a broken fix is (the deliverable is kept, and two in a row halt the loop):

* a unified diff or patch (`--- a/docs/plan.md` / `+++ b/…` / `@@ … @@`);
* a fragment: much shorter than the document, or with the rest elided (`[... unchanged ...]`).

A document that lost part of its structure (a heading, a section's table) breaks `edit_rule`;
what lies around the document (a fence, a preamble, a changelog) is `outside_text`'s. The same
markers of a diff or an elision are what `refused_source` finds in a file a coding agent wrote.
"""

from __future__ import annotations

import re

MIN_FIX_LENGTH_RATIO = 0.5
_DIFF_LINES = (
    re.compile(r"^diff --git .*", re.MULTILINE),
    re.compile(r"^--- (?:a/)?\S.*\n\+\+\+ (?:b/)?\S", re.MULTILINE),
    re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.MULTILINE),
    re.compile(r"^\*\*\* (?:Begin Patch|Update File:|End Patch)", re.MULTILINE),
)
_CONFLICT = re.compile(r"^(?:<{7}|>{7}) ", re.MULTILINE)
_ELLIPSIS_ONLY = re.compile(r"[\[(<{]?\s*(?:\.{3,}|…)\s*[\])>}]?")
_ELIDED = re.compile(
    r"\b(?:unchanged|remains? the same|stays? the same|as before|omitted|truncated|for brevity|"
    r"rest of (?:the )?(?:\w+ )?(?:plan|document|file|code|sections?|table)|remaining sections|"
    r"existing code|previous content|same as above)\b",
    re.IGNORECASE,
)
_ELISION_FRAME = re.compile(
    r"(?:\[.*\]|\(.*\)|<!--.*-->|\{.*\}|(?:#|//|/\*|--)\s*(?:\.{3}|…).*|.*(?:\.{3}|…)\s*(?:\*/)?)"
)


def refusal(old: str, new: str) -> str | None:
    """Why `new` cannot replace the document `old`, or None when it is a whole document."""
    if not new.strip():
        return "the fixer returned nothing"
    diff = _diff_marker(old, new)
    if diff:
        return f"the fixer returned a diff ({diff!r}), not the whole document"
    if len(new) < MIN_FIX_LENGTH_RATIO * len(old):
        share = round(100 * len(new) / max(len(old), 1))
        return f"the fixer returned {len(new)} chars, {share}% of the previous {len(old)}"
    elided = _new_elisions(old, new)
    if elided:
        return f"the fixer left part of the document out ({elided!r}), not the whole document"
    return None


def refused_source(old: str, new: str) -> str | None:
    """Why a source file a coding agent wrote is not a whole file: a diff, conflict markers or
    an elided part that its previous text did not have."""
    diff = _diff_marker(old, new)
    if diff:
        return f"it holds a diff ({diff!r}) instead of the code"
    conflict = _CONFLICT.search(new)
    if conflict and not _CONFLICT.search(old):
        return "it holds merge conflict markers"
    elided = _new_elisions(old, new)
    if elided:
        return f"part of it was left out ({elided!r})"
    return None


def _diff_marker(old: str, new: str) -> str | None:
    for pattern in _DIFF_LINES:
        found = pattern.search(new)
        if found and not pattern.search(old):
            return found.group(0).splitlines()[0][:60]
    return None


def _new_elisions(old: str, new: str) -> str | None:
    """A line standing for left-out text that the previous document did not have."""
    before = {line.strip() for line in old.splitlines()}
    for line in new.splitlines():
        stripped = line.strip()
        if stripped in before or len(stripped) > 160:
            continue
        if _ELLIPSIS_ONLY.fullmatch(stripped):
            return stripped
        if _ELIDED.search(stripped) and _ELISION_FRAME.fullmatch(stripped):
            return stripped
    return None
