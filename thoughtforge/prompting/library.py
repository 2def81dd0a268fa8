"""Prompts are Markdown files loaded at run time, so the operator can edit them without coding.

Lookup order: `prompts.directory` from config (the operator's overrides), then the package defaults,
then the `prompts/` folder of the project's deliverable-type plugin (an added type's own prompts).
Placeholders are `{{name}}`. Filling is a single pass, so text inserted for one placeholder (a brain
dump that itself contains `{{x}}`, say) is never expanded again.
"""

from __future__ import annotations

import re
from pathlib import Path

from thoughtforge.bounded_input import MAX_PROMPT_BYTES, InputRefused, read_capped_text
from thoughtforge.errors import PromptError

DEFAULT_DIRECTORY = Path(__file__).parent.parent / "prompts"
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class PromptLibrary:
    def __init__(
        self, override_directory: Path | None = None, plugin_directory: Path | None = None
    ) -> None:
        self._directories = [
            d for d in (override_directory, DEFAULT_DIRECTORY, plugin_directory) if d is not None
        ]

    def names(self) -> list[str]:
        """The prompts of every folder (a folder that cannot be listed has none)."""
        found: set[str] = set()
        for directory in self._directories:
            try:
                found.update(p.stem for p in directory.glob("*.md"))
            except OSError:
                continue
        return sorted(found)

    def path(self, name: str) -> Path:
        for directory in self._directories:
            candidate = directory / f"{name}.md"
            if candidate.is_file():
                return candidate
        searched = ", ".join(str(d) for d in self._directories)
        raise PromptError(f"prompt '{name}.md' not found (looked in {searched})")

    def render(self, name: str, **values: str) -> str:
        path = self.path(name)
        try:
            template = read_capped_text(path, MAX_PROMPT_BYTES, "prompt")
        except InputRefused as exc:
            raise PromptError(str(exc)) from None
        return fill(template, values, source=str(path))


def fill(template: str, values: dict[str, str], *, source: str = "prompt") -> str:
    """Fill every `{{name}}` in one pass; a placeholder without a value is a `PromptError`."""
    missing = sorted({m.group(1) for m in _PLACEHOLDER.finditer(template)} - values.keys())
    if missing:
        raise PromptError(f"{source} needs values for: {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
