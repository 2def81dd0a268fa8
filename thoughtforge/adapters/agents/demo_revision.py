"""The demo agent's replies in a revision: it applies the person's change request visibly.

The demo agent is not an AI, but a change request must show what Revise does: "The budget is 12k
now, not 15k" puts 12k where the spec and the plan said 15k, and the spec's Key Decisions and the
plan's first section quote the request. A figure is replaced when the request names the old one
("X, not Y", "X instead of Y", "from Y to X") or when the document has a figure beside the same
word ("80 guests" for "60 guests", "budget is 12k" for "budget is 15k"). The replies are read
from the built-in prompts' wording; another wording gets the section back as it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.core.own_files import read_own_text

PLAN_FILE = Path("docs") / "plan.md"
CONSTRAINTS_FILE = Path("docs") / "constraints.md"
DECISIONS = "## Key Decisions"
NOTE = "Changed at the person's request: “{change}”"

_FIGURE = r"[$€£]?\d+(?:[.,]\d+)*(?:\s?%|[kKmMh]\b)?"
_STARTING_POINT = re.compile(
    r"^AI:\nCurrent spec \(revision \d+\), the starting point for revision \d+:\n\n", re.MULTILINE
)
_NAMED_PAIRS = (
    re.compile(
        rf"(?P<new>{_FIGURE})(?:\s+now)?,?\s+(?:not|instead of|rather than)\s+(?P<old>{_FIGURE})"
    ),
    re.compile(rf"\bfrom\s+(?P<old>{_FIGURE})\s+to\s+(?P<new>{_FIGURE})"),
    re.compile(rf"(?P<old>{_FIGURE})\s*(?:->|→)\s*(?P<new>{_FIGURE})"),
)
_WORD_FIGURE = re.compile(
    rf"(?P<before>[A-Za-z]+)?\s*(?:is|are|of|at|to|:)?\s*(?P<figure>{_FIGURE})\s*(?P<after>[A-Za-z]+)?"
)
_SECTIONS_CHANGE = re.compile(
    r"The person asked for this change:\n\n(?P<change>.*?)\n\nWhat the change did", re.S
)
_SECTION_PROMPT = re.compile(
    r"The person asked for this change:\n\n(?P<change>.*?)\n\nRevised specification:.*"
    r"Rewrite the plan's section \*\*(?P<heading>.+?)\*\*.*"
    r"The section as it is now:\n\n(?P<section>.*?)(?:\n\nYour previous answer.*)?\Z",
    re.S,
)
_TURN = re.compile(r"^(Human|AI):\n", re.MULTILINE)
_SECTION_MARKER = "The section as it is now:\n\n"
_ASKED_END = "\n---\n"
_LISTED_SECTION = re.compile(r"^- (.+)$", re.MULTILINE)
_HEADING = re.compile(r"^## (.+?)\s*$", re.MULTILINE)


class Replacement(BaseModel):
    """One figure the change puts in place of another."""

    old: str
    new: str


def revised_proposal(prompt: str, project_dir: Path) -> str | None:
    """In a revision's spec prompt, the current spec (the sections the starting point lacks from
    `docs/constraints.md`) with the person's requests applied and quoted under Key Decisions;
    None when the prompt is not a revision's."""
    parts = _STARTING_POINT.split(prompt, maxsplit=1)
    if len(parts) != 2:
        return None
    spec, *turns = _TURN.split(parts[1])
    requests = [
        text.strip() for role, text in zip(turns[::2], turns[1::2], strict=True) if role == "Human"
    ]
    asked = _HEADING.findall(prompt.split(_ASKED_END, 1)[0])
    have = _section_bodies(spec)
    constraints = _section_bodies(_read(project_dir / CONSTRAINTS_FILE))
    spec = spec.strip() + "".join(
        f"\n\n## {heading}\n{constraints[heading].strip()}"
        for heading in asked
        if heading not in have and heading in constraints
    )
    for change in requests:
        spec = _applied(spec, change)
        spec = _with_decision(spec, NOTE.format(change=_one_line(change)))
    return spec.strip() + "\n"


def chosen_sections(prompt: str, project_dir: Path) -> str:
    """The sections a change touches: each that holds a figure it replaces, and the first (where
    the change is noted); as the JSON the built-in prompt asks for."""
    match = _SECTIONS_CHANGE.search(prompt)
    listed = _LISTED_SECTION.findall(prompt.rsplit("The plan's sections are:", 1)[-1])
    if match is None or not listed:
        return json.dumps({"sections": listed[:1]})
    olds = [r.old for r in replacements(match["change"], _read(project_dir / PLAN_FILE))]
    bodies = _section_bodies(_read(project_dir / PLAN_FILE))
    touched = [h for h in listed if any(_figure_in(old, bodies.get(h, "")) for old in olds)]
    return json.dumps({"sections": [h for h in listed if h == listed[0] or h in touched]})


def revised_section(prompt: str, project_dir: Path) -> str:
    """A plan section with the change's figures replaced; the plan's first section also quotes
    the change, on its last line (a plan template's section keeps its lines). Another prompt's
    wording gets the section back as it is."""
    match = _SECTION_PROMPT.search(prompt)
    if match is None:
        return prompt.rpartition(_SECTION_MARKER)[2]
    section = _applied(match["section"].strip(), match["change"])
    first = next(iter(_section_bodies(_read(project_dir / PLAN_FILE))), None)
    if match["heading"] == first:
        section += " " + NOTE.format(change=_one_line(match["change"]))
    return section + "\n"


def replacements(change: str, document: str) -> list[Replacement]:
    """The figures `change` replaces in `document`: those it names, else those beside a word the
    change puts a new figure beside."""
    named = [
        Replacement(old=m["old"], new=m["new"])
        for pattern in _NAMED_PAIRS
        for m in pattern.finditer(change)
        if m["old"] != m["new"]
    ]
    if named:
        return named
    found: list[Replacement] = []
    for wanted in _WORD_FIGURE.finditer(change):
        for word in (wanted["after"], wanted["before"]):
            if not word or len(word) < 3:
                continue
            old = _figure_beside(document, word, after=word == wanted["after"])
            if old and old != wanted["figure"]:
                found.append(Replacement(old=old, new=wanted["figure"]))
                break
    return found


def _applied(text: str, change: str) -> str:
    for replacement in replacements(change, text):
        text = re.sub(_bounded(replacement.old), replacement.new.replace("\\", r"\\"), text)
    return text


def _figure_beside(document: str, word: str, *, after: bool) -> str | None:
    pattern = (
        rf"(?P<figure>{_FIGURE})\s+{re.escape(word)}\b"
        if after
        else rf"\b{re.escape(word)}\b\W+(?:\w+\W+){{0,2}}?(?P<figure>{_FIGURE})"
    )
    match = re.search(pattern, document, re.IGNORECASE)
    return match["figure"] if match else None


def _figure_in(figure: str, text: str) -> bool:
    return re.search(_bounded(figure), text) is not None


def _bounded(figure: str) -> str:
    return rf"(?<![\w.,$€£]){re.escape(figure)}(?![\w])"


def _with_decision(spec: str, decision: str) -> str:
    """`decision` as the last bullet of Key Decisions (or at the end, with no such section)."""
    start = spec.find(DECISIONS)
    if start < 0:
        return f"{spec.rstrip()}\n\n- {decision}\n"
    following = _HEADING.search(spec, start + len(DECISIONS))
    end = following.start() if following else len(spec)
    body = spec[:end].rstrip()
    return f"{body}\n- {decision}\n\n{spec[end:]}"


def _section_bodies(plan: str) -> dict[str, str]:
    parts = _HEADING.split(plan)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _read(path: Path) -> str:
    try:
        return read_own_text(path)
    except (OSError, UnicodeDecodeError):
        return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())
