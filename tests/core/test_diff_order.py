"""History's before/after in reading order, on a real project's git diff: the deliverable first,
the person's documents next, ThoughtForge's bookkeeping last and marked as such."""

from __future__ import annotations

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.diff_order import by_reading_order
from thoughtforge.core.git_repo import commit
from thoughtforge.core.history import item_diff, project_history


def test_the_plan_comes_first_and_bookkeeping_last(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    for name, text in {
        "build_progress.json": '{"step": 3}\n',
        "built_from.json": '{"spec": "abc"}\n',
        ".board-card.json": "{}\n",
        "polish_log.md": "# Log\n",
        "docs/plan.md": "# Plan\n\nBudget 12k.\n",
        "docs/spec.md": "# Spec\n",
        "src/odd name.py": "print('x')\n",
    }.items():
        path = project.dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    commit(project.dir, "Phase 3 complete: plan built")
    items = project_history(project.dir)
    diff = item_diff(project.dir, items, items[-1])
    files = by_reading_order(diff)
    order = [file.path for file in files]
    assert order[0] == "docs/plan.md"
    assert order.index("docs/spec.md") > order.index("src/odd name.py")
    kept = [file.path for file in files if file.bookkeeping]
    assert order[-len(kept) :] == kept
    assert set(kept) >= {"build_progress.json", "built_from.json", "polish_log.md"}
    assert "docs/plan.md" not in kept and "src/odd name.py" not in kept
    joined = "\n".join(file.text for file in files)
    assert sorted(joined.splitlines()) == sorted(diff.splitlines()), "nothing lost"


def test_text_before_the_first_file_and_an_empty_diff_are_kept() -> None:
    assert by_reading_order("") == []
    odd = "note\ndiff --git a/docs/plan.md b/docs/plan.md\n+x"
    assert "\n".join(file.text for file in by_reading_order(odd)) == odd
