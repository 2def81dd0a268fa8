"""The demo agent's evidence in a review: for each acceptance criterion the prompt numbers, the
passage of the document that shares the most words with it, quoted as it stands with its section.

The demo agent is not an AI and judges nothing; what it can do honestly is quote words that are
really there, so a demo project ends `done` on evidence ThoughtForge checks like any other. A
criterion no passage shares a word with gets no evidence (and the project halts on it).
"""

from __future__ import annotations

import json
import re
from typing import Any

CRITERIA_MARKER = "Acceptance criteria, numbered:"
_CRITERION = re.compile(r"^(\d+)\. (.+)$")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_WORD = re.compile(r"[^\W_]{3,}")
MIN_WORDS = 3


def with_evidence(reply: str, prompt: str, document_marker: str) -> str:
    """The review `reply` (a JSON object) with an `evidence` list for the prompt's criteria,
    quoted from the document that follows the last `document_marker` of the prompt."""
    review: dict[str, Any] = json.loads(reply)
    if not isinstance(review, dict):
        raise ValueError("the reply is no JSON object")
    document = prompt.rpartition(document_marker)[2]
    passages = _passages(document)
    evidence = []
    for number, text in _criteria(prompt):
        wanted = _words(text)
        scored = [(len(wanted & _words(quote)), section, quote) for section, quote in passages]
        best = max(scored, default=(0, "", ""), key=lambda found: found[0])
        if best[0]:
            evidence.append({"criterion": number, "section": best[1], "quote": best[2]})
    review["evidence"] = evidence
    return json.dumps(review)


def _criteria(prompt: str) -> list[tuple[int, str]]:
    """The numbered criteria of the prompt's list, up to the blank line that ends it."""
    _, found, rest = prompt.partition(CRITERIA_MARKER)
    if not found:
        return []
    listed = []
    for line in rest.strip("\n").splitlines():
        item = _CRITERION.match(line.strip())
        if item is None:
            break
        listed.append((int(item.group(1)), item.group(2)))
    return listed


def _passages(document: str) -> list[tuple[str, str]]:
    """(section, passage) for each sentence of the document's text and table cells, long
    enough to quote."""
    section = ""
    found = []
    for line in document.splitlines():
        heading = _HEADING.match(line.strip())
        if heading:
            section = heading.group(1)
            continue
        if not section:
            continue
        parts = line.strip().strip("|").split("|") if line.strip().startswith("|") else [line]
        for part in parts:
            text = part.strip().lstrip("-*+ ").strip()
            found += [(section, s) for s in _SENTENCE.split(text) if len(s.split()) >= MIN_WORDS]
    return found


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}
