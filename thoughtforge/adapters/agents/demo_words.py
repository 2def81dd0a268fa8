"""The demo agent's words: what it quotes back from the person's own brain dump.

The demo agent is not an AI, but its replies must show what the product does with *this* brain
dump: a plan about a wedding names the wedding, its date and its budget. So it sorts the brain
dump's sentences (the first one is what the project is about, one saying "I want…" is the ask,
one with a question or a doubt is an unknown, one with a figure or a limit a constraint) and
fills its templates with them, word for word. A paragraph ends a sentence without a full stop,
the hints the page adds ("Deliverable type: plan", "Sources:") are no sentences of the person's,
and a later turn that gives a new figure for something ("it's 30 people now") corrects the
sentence that gave the old one ("for 25 people"). After Phase 1 it reads the same words back from
`docs/intent.md`, so the spec and the plan quote what the person confirmed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.core.own_files import read_own_text

INTENT_FILE = Path("docs") / "intent.md"
MAX_ITEMS = 8

_TURN = re.compile(r"^(Human|AI):\n", re.MULTILINE)
_HINT = re.compile(r"^(?:Deliverable type: \S+|Sources:(?:\n- \S+)*)$")
_PARAGRAPH_END = re.compile(r"\n\s*\n")
_FIGURE = re.compile(r"(\d[\d,.]*)(\s+[A-Za-z]+)")
_CONVERSATION_END = "\n\nResources the person provided:"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_FILLER = re.compile(r"^(?:(?:ok|okay|so|well|hi|hey|um|right|alright)\b[,.!]*\s*)+", re.I)
_ASK = re.compile(r"\b(?:I|we)(?:'d|\s+would)?\s+(?:like|want|need)\s+(?:a|an)\b", re.I)
_LIMIT = re.compile(
    r"\d|\b(?:budget|limit|must|only|without|never|hard|offline|deadline|hours?|weeks?|"
    r"months?|no|not|don't|hate)\b",
    re.I,
)
_DOUBT = re.compile(r"\?|\b(?:not sure|no idea|don't know|unsure|wondering)\b", re.I)
_MAYBE = re.compile(r"\b(?:maybe|perhaps|probably)\b", re.I)
_PLACEHOLDER_WORD = re.compile(r"\b(todo|tbd|placeholder)(s?)\b", re.I)
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)
_ITEM = re.compile(r"^\s*[-*+]\s+(.+)$", re.MULTILINE)


class Words(BaseModel):
    """The brain dump's sentences, sorted by what they say."""

    about: str
    ask: str = ""
    constraints: list[str] = []
    assumptions: list[str] = []
    unknowns: list[str] = []

    @property
    def objective(self) -> str:
        return f"{self.about} {self.ask}".strip()

    def placeholders(self, *, for_json: bool) -> dict[str, str]:
        """The values its templates name (`$objective`, `$constraints`…), escaped for JSON
        inside a JSON template."""
        values = {
            "objective": self.objective,
            "about": self.about,
            "ask": self.ask or self.about,
            "assumptions": _bullets(self.assumptions, "Nothing beyond the brain dump's words."),
            "constraints": _bullets(self.constraints, "None stated in the brain dump."),
            "unknowns": _bullets(self.unknowns, "None"),
            "constraints_inline": _inline(self.constraints, "the limits the brain dump sets"),
            "unknowns_inline": _inline(self.unknowns, "nothing the brain dump leaves open"),
            "decisions": _bullets([f"Keep to the person's words: “{c}”" for c in self.constraints])
            or "- Do what the brain dump asks and nothing more.",
            "resolved": _bullets(
                [f"{u} — settled first, in the plan's opening step." for u in self.unknowns],
                "None",
            ),
            "criteria": _bullets([f"The plan keeps to: “{c}”" for c in self.constraints]),
        }
        values = {name: _PLACEHOLDER_WORD.sub(r"to-do\2", value) for name, value in values.items()}
        if for_json:
            return {name: json.dumps(value)[1:-1] for name, value in values.items()}
        return values


def words_for(prompt: str, project_dir: Path) -> Words:
    """From the confirmed intent once there is one, else from the person's turns in the prompt."""
    try:
        return from_intent(read_own_text(project_dir / INTENT_FILE))
    except (OSError, UnicodeDecodeError):
        return from_prompt(prompt)


def human_turns(prompt: str) -> str:
    """The person's turns of a Phase 1 prompt's conversation (the brain dump, then corrections),
    a blank line between turns."""
    return "\n\n".join(_turns(prompt))


def _turns(prompt: str) -> list[str]:
    conversation = prompt.split(_CONVERSATION_END, 1)[0]
    parts = _TURN.split(conversation)
    return [text for role, text in zip(parts[1::2], parts[2::2], strict=True) if role == "Human"]


def from_prompt(prompt: str) -> Words:
    """The brain dump's words with the later turns' corrections applied."""
    turns = _turns(prompt)
    return from_brain_dump(turns[0] if turns else "", corrections=turns[1:])


def from_brain_dump(text: str, corrections: list[str] | None = None) -> Words:
    sentences = _sentences(text)
    for correction in corrections or []:
        sentences += [s for s in _sentences(correction) if not _corrects(s, sentences)]
    if not sentences:
        return Words(about="The brain dump was empty.")
    first, rest = _capitalised(_FILLER.sub("", sentences[0])), sentences[1:]
    ask = next((s for s in rest if _ASK.search(s) and not _DOUBT.search(s)), "")
    rest = [s for s in rest if s != ask]
    constraints = [s for s in rest if not _DOUBT.search(s) and _LIMIT.search(s)]
    unknowns = [s for s in rest if s not in constraints and (_DOUBT.search(s) or _MAYBE.search(s))]
    assumptions = [s for s in rest if s not in unknowns and s not in constraints]
    return Words(
        about=first,
        ask=ask,
        constraints=constraints[:MAX_ITEMS],
        assumptions=assumptions[:MAX_ITEMS],
        unknowns=unknowns[:MAX_ITEMS],
    )


def _sentences(text: str) -> list[str]:
    """The person's sentences: a paragraph ends one even without a full stop, and the hints a
    door adds are left out."""
    paragraphs = [part.strip() for part in _PARAGRAPH_END.split(text)]
    kept = [" ".join(part.split()) for part in paragraphs if part and not _HINT.match(part)]
    return [s for part in kept for s in _SENTENCE_END.split(part) if s]


def _corrects(correction: str, sentences: list[str]) -> bool:
    """Put `correction`'s figures into the sentences that gave the same thing another figure
    ("30 people" for "25 people"); whether it corrected one (then it says nothing more)."""
    corrected = False
    for figure, unit in _FIGURE.findall(correction):
        then = re.compile(rf"\d[\d,.]*(?={re.escape(unit)}\b)", re.IGNORECASE)
        for index, sentence in enumerate(sentences):
            if then.search(sentence):
                sentences[index] = then.sub(figure, sentence)
                corrected = True
    return corrected


def from_intent(text: str) -> Words:
    sections = dict(zip(_HEADING.findall(text), _HEADING.split(text)[2::2], strict=True))
    items = {name: _ITEM.findall(body) for name, body in sections.items()}
    about, *ask = _SENTENCE_END.split(" ".join(sections.get("Objective", "").split()))
    return Words(
        about=about or "The confirmed intent.",
        ask=" ".join(ask),
        constraints=items.get("Constraints", []),
        assumptions=items.get("Assumptions", []),
        unknowns=items.get("Unknowns", []) + items.get("Open Questions", []),
    )


def _capitalised(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _bullets(items: list[str], none: str = "") -> str:
    return "\n".join(f"- {item}" for item in items) or none


def _inline(items: list[str], none: str) -> str:
    return "; ".join(f"“{item}”" for item in items) or none
