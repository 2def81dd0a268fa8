"""Pick the plan template for the deliverable type that Phase 1 wrote into `intent.md`.

The rule, so an operator can predict it: the type text and each template's names are reduced to
lower-case words (anything but letters and digits separates words). A template's names are its file
stem (`go-to-market.hbs` → "go to market") plus the words listed in an optional
`{{!-- matches: wedding, conference --}}` comment in the file. A template matches when one of its
names occurs as consecutive words of the type text. Of several matches, the one appearing earliest
in the type text wins, then the one with more words, then the file name in alphabetical order. No
match falls back to `generic.hbs` with a warning for the human.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.errors import ThoughtForgeError

TEMPLATES_DIR = Path(__file__).parent / "templates"
GENERIC_STEM = "generic"
_WORD = re.compile(r"[^\W_]+")
_MATCHES_COMMENT = re.compile(r"\{\{!(?:--)?\s*matches:(.*?)(?:--)?\}\}", re.DOTALL)


class TemplateChoice(BaseModel):
    path: Path
    warning: str | None = None

    @property
    def name(self) -> str:
        return self.path.stem


class NoPlanTemplatesError(ThoughtForgeError):
    pass


def select_template(templates_dir: Path, plan_type: str | None) -> TemplateChoice:
    """The template for the intent's deliverable type, by the rule above."""
    templates = sorted(templates_dir.glob("*.hbs")) if templates_dir.is_dir() else []
    generic = templates_dir / f"{GENERIC_STEM}.hbs"
    if generic not in templates:
        raise NoPlanTemplatesError(
            "No plan templates found. Ensure at least `generic.hbs` exists in "
            f"`/plugins/plan/templates/`. (looked in {templates_dir})"
        )
    best = _best_match(templates, _words(plan_type or ""))
    if best is not None:
        return TemplateChoice(path=best)
    if not (plan_type or "").strip():
        return TemplateChoice(path=generic, warning="No plan type given. Using generic template.")
    return TemplateChoice(
        path=generic,
        warning=f"No template found for plan type '{plan_type}'. Using generic template.",
    )


def _best_match(templates: list[Path], type_words: list[str]) -> Path | None:
    ranked: list[tuple[int, int, str, Path]] = []
    for path in templates:
        for name in _names(path):
            position = _position(name, type_words)
            if position is not None:
                ranked.append((position, -len(name), path.name, path))
    return min(ranked)[3] if ranked else None


def _names(path: Path) -> list[list[str]]:
    names = [_words(path.stem)]
    declared = _MATCHES_COMMENT.search(path.read_text(encoding="utf-8", errors="replace"))
    if declared:
        names.extend(_words(alias) for alias in declared.group(1).split(","))
    return [name for name in names if name]


def _position(name: list[str], words: list[str]) -> int | None:
    for start in range(len(words) - len(name) + 1):
        if words[start : start + len(name)] == name:
            return start
    return None


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())
