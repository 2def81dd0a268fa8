"""The text work of a revision, as pure functions: a document's `##` sections (cut so that
joining them gives the document back byte for byte), the "Superseded" section that keeps what a
change replaced visible, the diff the person reads, and which plan sections a change touches."""

from __future__ import annotations

import difflib
import re

from pydantic import BaseModel

from thoughtforge.core.word_diff import WORD_DIFF_FENCE, as_text, text_change
from thoughtforge.errors import UnusableReply
from thoughtforge.prompting import json_objects

SUPERSEDED = "Superseded"
_SUPERSEDED_INTRO = "What each change request replaced, kept visible; none of it applies any more."
_HEADING = re.compile(r"^##[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^(```|~~~)")
_BACKTICKS = re.compile(r"`+")


class Part(BaseModel):
    """A stretch of a document: the text before the first `##` heading (heading ""), or one
    `##` section from its heading line up to the next."""

    heading: str
    text: str


def split_sections(document: str) -> list[Part]:
    """The document's parts in order; `"".join(p.text for p in parts) == document`. A `##`
    inside a fenced block is text, not a heading."""
    parts = [Part(heading="", text="")]
    fenced = False
    for line in document.splitlines(keepends=True):
        if _FENCE.match(line.strip()):
            fenced = not fenced
        found = None if fenced else _HEADING.match(line.rstrip("\r\n"))
        if found:
            parts.append(Part(heading=found.group(1).strip(), text=line))
        else:
            parts[-1].text += line
    return parts if parts[0].text else parts[1:]


def section_body(part: Part) -> str:
    """A section's text without its heading line."""
    return part.text.split("\n", 1)[1] if "\n" in part.text else ""


def replace_sections(document: str, bodies: dict[str, str]) -> str:
    """The document with the named sections' bodies replaced, every other byte kept."""
    out = []
    for part in split_sections(document):
        if part.heading in bodies:
            heading_line = part.text.split("\n", 1)[0]
            out.append(f"{heading_line}\n\n{bodies[part.heading].strip()}\n\n")
        else:
            out.append(part.text)
    text = "".join(out)
    return text if not document.endswith("\n") or text.endswith("\n") else text + "\n"


def with_superseded(before: str, after: str, revision: int) -> str:
    """`after` with a `## Superseded` section at its end: what earlier revisions recorded there,
    then, under "Revision N", every line of `before` that `after` no longer holds, with the
    section it stood in. Nothing of `before` is silently dropped."""
    kept_lines = {_norm(line) for line in after.splitlines() if _norm(line)}
    earlier = ""
    dropped: list[str] = []
    for part in split_sections(before):
        if part.heading == SUPERSEDED:
            earlier = section_body(part).strip()
            continue
        if not part.heading:
            continue
        for line in section_body(part).splitlines():
            if _norm(line) and _norm(line) not in kept_lines and _norm(line) != "None stated.":
                dropped.append(f"- {part.heading}: {_norm(line).lstrip('-* ').strip()}")
    base = "".join(p.text for p in split_sections(after) if p.heading != SUPERSEDED).rstrip()
    if earlier.startswith(_SUPERSEDED_INTRO):
        earlier = earlier[len(_SUPERSEDED_INTRO) :].strip()
    blocks = [earlier] if earlier else []
    if dropped:
        blocks.append(f"### Revision {revision}\n\n" + "\n".join(dropped))
    if not blocks:
        return base + "\n"
    return f"{base}\n\n## {SUPERSEDED}\n\n{_SUPERSEDED_INTRO}\n\n" + "\n\n".join(blocks) + "\n"


def changes_for_the_chat(versions: list[tuple[str, str, str]]) -> str:
    """What changed in each `(name, before, after)`, word by word (`core.word_diff`): each
    changed line under its heading, removed words as `[-…-]` and added ones as `{+…+}`, long
    unchanged stretches cut; in a `word-diff` fenced block no line of the text can close (the
    page strikes and underlines it as History does, a terminal shows the marks); "" when nothing
    changed."""
    changes = [text_change(name, before, after) for name, before, after in versions]
    text = as_text([change for change in changes if change.passages])
    if not text:
        return ""
    fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(text)), default=0))
    return f"{fence}{WORD_DIFF_FENCE}\n{text}\n{fence}"


def readable_diff(before: str, after: str, name: str) -> str:
    """A unified diff of `name` in a fenced block, for the agent; "" when nothing changed."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile=f"{name} (before)",
            tofile=f"{name} (proposed)",
            lineterm="",
            n=1,
        )
    )
    if not lines:
        return ""
    return "```diff\n" + "\n".join(lines) + "\n```"


class SectionChoice(BaseModel):
    sections: list[str]


def chosen_sections(answer: str, headings: list[str]) -> list[str]:
    """The plan sections an agent named as touched by the change, in document order; a name is
    matched case- and space-blind; none known → `UnusableReply` (asked again)."""
    by_key = {_key(h): h for h in headings}
    for candidate in json_objects(answer):
        if isinstance(candidate.get("sections"), list):
            named = {_key(str(name)) for name in candidate["sections"]}
            chosen = [h for h in headings if _key(h) in named]
            if chosen:
                return chosen
            unknown = ", ".join(str(name) for name in candidate["sections"]) or "none"
            raise UnusableReply(
                f"it named no section of the plan ({unknown}); the sections are: "
                + ", ".join(by_key.values()),
                answer,
            )
    raise UnusableReply("it held no JSON object with a 'sections' list", answer)


def _key(heading: str) -> str:
    return " ".join(heading.lower().replace("&", "and").split())


def _norm(line: str) -> str:
    return " ".join(line.split())
