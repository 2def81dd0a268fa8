"""`## Heading` sections of an agent's Markdown reply: the contract of the Phase 1 and 2 prompts.

Only level-2 headings outside code fences start a section, so `###` sub-headings and `## ` lines
inside a fenced code sample stay part of the section body. Headings match case-insensitively and
ignore emphasis and a trailing colon (`## **Objective:**` is the Objective section).

Models do not all keep to `##`: a small one writes the six sections as `###`, or `# OBJECTIVE`.
`with_known_headings` lifts a heading of any level that names an expected section to `##` before
an reply is read, and leaves every other heading (a real sub-heading) where it is.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from pydantic import BaseModel

_HEADING = re.compile(r"^##[ \t]+(.+?)[ \t#]*$")
_ANY_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(.*)$")
_NOTHING = frozenset({"none", "n/a", "nothing"})


class Section(BaseModel):
    heading: str
    body: str


class SectionedText(BaseModel):
    """A Markdown text split into what comes before the first section and the sections."""

    preamble: str
    sections: list[Section]

    @classmethod
    def parse(cls, text: str) -> SectionedText:
        preamble: list[str] = []
        sections: list[tuple[str, list[str]]] = []
        in_fence = False
        for line in text.splitlines():
            if _FENCE.match(line):
                in_fence = not in_fence
            heading = None if in_fence else _HEADING.match(line)
            if heading:
                sections.append((heading.group(1).strip(), []))
            elif sections:
                sections[-1][1].append(line)
            else:
                preamble.append(line)
        return cls(
            preamble="\n".join(preamble).strip(),
            sections=[Section(heading=h, body="\n".join(b).strip()) for h, b in sections],
        )

    def get(self, name: str) -> str | None:
        """The body of the first section called `name`, or None when there is no such heading."""
        key = heading_key(name)
        return next((s.body for s in self.sections if heading_key(s.heading) == key), None)

    def missing(self, names: tuple[str, ...]) -> list[str]:
        return [name for name in names if self.get(name) is None]

    def with_body(self, name: str, body: str) -> SectionedText:
        key = heading_key(name)
        sections = [
            s.model_copy(update={"body": body}) if heading_key(s.heading) == key else s
            for s in self.sections
        ]
        return self.model_copy(update={"sections": sections})

    def render(self) -> str:
        parts = [self.preamble] if self.preamble else []
        parts += [f"## {s.heading}\n\n{s.body}".rstrip() for s in self.sections]
        return "\n\n".join(parts) + "\n"


def with_known_headings(text: str, names: Collection[str]) -> str:
    """`text` with each heading (outside code fences) that names one of `names` at level 2."""
    keys = {heading_key(name) for name in names}
    lines: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _ANY_HEADING.match(line)
        if heading and heading_key(heading.group(1)) in keys:
            line = f"## {heading.group(1).strip()}"
        lines.append(line)
    return "\n".join(lines)


def heading_key(name: str) -> str:
    """A heading reduced to what identifies it: case, emphasis and a trailing colon ignored."""
    return " ".join(name.strip().strip("*_`:").strip().lower().split())


def list_items(body: str) -> list[str]:
    """The bullet or numbered items of a section body; its non-empty lines when it has none.

    A line right below an item, or indented after a blank line, continues that item; other prose
    around a list is not an item. "None" and the like are not items either, so an empty section
    and a section saying "None" both give an empty list.
    """
    lines = body.splitlines()
    if not any(_ITEM.match(line) for line in lines):
        return _meaningful(lines)
    items: list[str] = []
    after_blank = False
    for line in lines:
        item = _ITEM.match(line)
        if item:
            items.append(item.group(1))
        elif line.strip() and items and (not after_blank or line[:1].isspace()):
            items[-1] = f"{items[-1]} {line.strip()}"
        after_blank = not line.strip()
    return _meaningful(items)


def _meaningful(items: list[str]) -> list[str]:
    cleaned = (" ".join(item.split()) for item in items)
    return [item for item in cleaned if item and item.strip(".").lower() not in _NOTHING]
