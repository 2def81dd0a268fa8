from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from thoughtforge.errors import PromptError
from thoughtforge.prompting import PromptLibrary, fill

GOLDEN = Path(__file__).parent / "golden" / "prompts"


def test_fill_is_single_pass_so_inserted_text_is_never_expanded() -> None:
    assert fill("A {{ x }} B {{y}}", {"x": "{{y}}", "y": "$(rm -rf ~)"}) == "A {{y}} B $(rm -rf ~)"


def test_missing_values_are_named() -> None:
    with pytest.raises(PromptError, match="needs values for: intent"):
        PromptLibrary().render("spec-building", conversation="")


def test_override_directory_wins_and_defaults_remain(tmp_path: Path) -> None:
    (tmp_path / "plan-review.md").write_text("Custom review of {{plan}} under {{constraints}}")
    library = PromptLibrary(tmp_path)
    assert library.render("plan-review", plan="P", constraints="C") == "Custom review of P under C"
    assert library.path("plan-fix").parent.name == "prompts"
    assert {"plan-review", "plan-fix", "brain-dump-intake"} <= set(library.names())


def test_unknown_prompt_is_a_clear_error() -> None:
    with pytest.raises(PromptError, match=r"prompt 'nope\.md' not found"):
        PromptLibrary().render("nope")


@pytest.mark.parametrize("name", PromptLibrary().names())
def test_rendered_prompt_matches_golden_file(name: str) -> None:
    """Golden files show reviewers exactly what an agent receives; UPDATE_GOLDEN=1 rewrites them."""
    library = PromptLibrary()
    placeholders = {p: f"<{p} goes here>" for p in _placeholders(library.path(name).read_text())}
    rendered = library.render(name, **placeholders)
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(rendered)
    assert rendered == golden.read_text()


def _placeholders(template: str) -> set[str]:
    return set(re.findall(r"\{\{\s*(\w+)\s*\}\}", template))
