"""When text counts as filling a slot: the spec allows no empty or placeholder content in a plan.

A placeholder is "TBD", "TODO" or "placeholder" as a whole word in any case, plural included
("TODOs", "[Placeholder]", "tbd."), but not inside a longer word ("Todoist"). A plan about a to-do
app must therefore write "to-do": the retry prompt quotes the offending word, so the agent can.

Small models fill slots with what the prompt showed them instead: the template's own slot names
(`<plan_description>`, a bare `{{budget}}` or `plan_overview.md`, "[Insert the budget]"), page
markup (`<script src=…>`, `<iframe>`; inline emphasis such as `<i>` is content), or a string of
characters that is no word at all. Each is refused like TBD, with what was found.
"""

from __future__ import annotations

import re

from thoughtforge.phases.deliverable.document_check import placeholder_in

_TEMPLATE_TEXT = re.compile(
    r"<[a-z][a-z0-9]*_[a-z0-9_]*>|\[(?:insert|your|add|describe)\b[^\]]*\]|^\{\{[^}]*\}\}$"
    r"|^[a-z0-9]+(?:_[a-z0-9]+)+(?:\.[a-z]+)?$",
    re.IGNORECASE,
)
_MARKUP = re.compile(
    r"</?\s*(?:script|style|iframe|object|embed|link|meta|form|input|html|head|body)\b[^>]*>?",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{2,}")
_NUMBER = re.compile(r"(?<!\w)\d[\d.,]*(?!\w)")
_VOWELS = frozenset("aeiouyàáâäãåèéêëìíîïòóôöõùúûüýæøœ")


def unfilled_reason(text: str) -> str | None:
    """Why `text` cannot fill a slot, or None when it can."""
    if not any(char.isalnum() for char in text):
        return "empty"
    placeholder = placeholder_in(text)
    if placeholder:
        return placeholder
    template = _TEMPLATE_TEXT.search(text.strip())
    if template:
        return f"template text '{template.group(0)}' instead of content"
    markup = _MARKUP.search(text)
    if markup:
        return f"markup '{markup.group(0).strip()}' instead of plain text"
    if not _has_words(text):
        return "no words, only characters"
    return None


def _has_words(text: str) -> bool:
    """At least one word a person would read (two letters or more, with a vowel unless the
    script writes none) or a number: a code like `Xk9qZ2pL` has letters but no word."""
    if _NUMBER.search(text):
        return True
    return any(not word.isascii() or _VOWELS & set(word.lower()) for word in _WORD.findall(text))
