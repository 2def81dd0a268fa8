"""The page's restore takes "keep my edits" as the CLI's `--keep-edits` and MCP's `keep_edits`
do: without it a hand edit refuses the restore, naming the file; with it the edit is committed
as the person's first. And a restore another door is making refuses the page's in words."""

from __future__ import annotations

import git

from tests.cli.test_after_done_hostile import BUILT, HAND_EDIT, done_project
from tests.core.test_course_claim import held_elsewhere
from tests.web.conftest import Bench
from thoughtforge.core.state import read_status
from thoughtforge.models import Phase


def test_the_history_page_restores_over_a_hand_edit_only_when_told_to_keep_it(
    bench: Bench,
) -> None:
    project = done_project(bench.config)
    for path in (f"/projects/{project.id}/history", f"/projects/{project.id}/history/phase3"):
        assert 'id="keep-edits"' in bench.get(path).text
    plan = project.dir / "docs" / "plan.md"
    plan.write_text(HAND_EDIT)

    refused = bench.post(f"/projects/{project.id}/rollback", {"to": "phase3"})
    said = refused.json()["error"]
    assert refused.status_code == 409 and "docs/plan.md" in said and "Keep my uncommitted" in said
    assert plan.read_text() == HAND_EDIT and read_status(project.dir).phase is Phase.DONE

    with held_elsewhere(project, "revise") as holder:
        held = bench.post(f"/projects/{project.id}/rollback", {"to": "phase3", "keep_edits": True})
    assert held.status_code == 409
    assert f"a revision started by pid {holder.pid} on this machine" in held.json()["error"]
    assert plan.read_text() == HAND_EDIT

    kept = bench.post(f"/projects/{project.id}/rollback", {"to": "phase3", "keep_edits": True})
    assert kept.status_code == 200, kept.text
    assert plan.read_text() == BUILT and read_status(project.dir).phase is Phase.POLISHING
    repo = git.Repo(project.dir)
    [mine] = [c for c in repo.iter_commits() if c.summary.startswith("Your uncommitted edits")]
    assert repo.git.show(f"{mine.hexsha}:docs/plan.md") + "\n" == HAND_EDIT
