"""History's before/after page: the deliverable's change in words (`<ins>`/`<del>`), the person's
documents next, bookkeeping last in a folded `<details>`, and untrusted text escaped; the changed
part is a golden file (UPDATE_GOLDEN=1 rewrites it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.core.test_word_diff import AFTER, BEFORE
from tests.web.conftest import Bench
from thoughtforge.core.archive import archive
from thoughtforge.core.creation import create_project
from thoughtforge.core.git_repo import commit
from thoughtforge.core.history import project_history
from thoughtforge.core.state import read_status, write_status
from thoughtforge.models import Phase

GOLDEN = Path(__file__).parent / "golden" / "history_diff.html"
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)>"


def test_the_before_after_page_shows_words_deliverable_first_bookkeeping_folded(
    bench: Bench,
) -> None:
    project = create_project(bench.config, brain_dump="A plan for a wedding. " * 10)
    plan = project.dir / "docs" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text(BEFORE)
    (project.dir / "build_progress.json").write_text('{"step": 1}\n')
    commit(project.dir, "Phase 3 complete: plan built")
    plan.write_text(AFTER.replace("Everything agreed", f"{HOSTILE} Everything agreed"))
    (project.dir / "build_progress.json").write_text('{"step": 2}\n')
    commit(project.dir, "fix #1: docs/plan.md updated")
    item = project_history(project.dir)[-1]

    response = bench.get(f"/projects/{project.id}/history/{item.short}")
    assert response.status_code == 200, response.text
    match = re.search(
        r'<div class="diff-files" id="changed">.*?</div></section>', response.text, re.S
    )
    assert match is not None, response.text
    changed = match.group()
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(changed)
    assert changed == GOLDEN.read_text()
    assert "<del>15k</del><ins>12k</ins>" in changed
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in changed and "<script>" not in changed
    assert "<img" not in changed
    assert changed.index('data-file="docs/plan.md"') < changed.index(
        '<details class="bookkeeping">'
    )
    assert '<details class="bookkeeping"><summary>' in changed and "<details open" not in changed
    assert "@@" not in changed and "diff --git" not in changed


def test_the_history_page_names_its_project_and_says_when_it_is_archived(bench: Bench) -> None:
    """It read "History" over a row of versions, the project an id and its archive unsaid."""
    project = create_project(bench.config, brain_dump="A plan for a wedding. " * 10)
    named = read_status(project.dir).model_copy(
        update={"project_name": "Barn <wedding>", "phase": Phase.DONE}
    )
    write_status(project.dir, named)
    shown = bench.get(f"/projects/{project.id}/history").text
    assert '<strong class="project-name">Barn &lt;wedding&gt;</strong>' in shown
    assert "ARCHIVED" not in shown
    archive(project)
    assert (
        '<span class="badge archived">ARCHIVED</span>'
        in bench.get(f"/projects/{project.id}/history").text
    )
