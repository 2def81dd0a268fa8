"""Edit the draft and Archive through the workbench's routes (a real server, no Prefect server):
what the page's Edit box and Archive button send, and what they are answered."""

from __future__ import annotations

from tests.phases.conftest import distillation, under_review
from tests.web.conftest import Bench
from thoughtforge.core.creation import create_project
from thoughtforge.core.spend.ledger import Budget, read_usage
from thoughtforge.core.state import read_chat, read_status, write_status
from thoughtforge.models import Phase

BRAIN_DUMP = "We want a small wedding in June for sixty people, budget fifteen thousand."


def test_the_page_edits_the_draft_refusing_a_bad_edit_with_its_reason(bench: Bench) -> None:
    project = under_review(bench.config, BRAIN_DUMP)
    draft = bench.get(f"/projects/{project.id}/draft").json()
    assert draft["kind"] == "distillation" and draft["index"] == 1
    assert bench.get(f"/projects/{project.id}").text.count('class="edit-draft"') == 1

    broken = distillation().replace("## Objective", "## Goal")
    refused = bench.post(
        f"/projects/{project.id}/draft", {"text": broken, "version": draft["version"]}
    )
    assert refused.status_code == 409 and "## Objective" in refused.json()["error"]
    assert len(read_chat(project.dir)) == 2

    edited = distillation(objective="A wedding for 80 guests in May.")
    saved = bench.post(
        f"/projects/{project.id}/draft", {"text": edited, "version": draft["version"]}
    )
    assert saved.json()["delivery"] == "saved"
    assert read_chat(project.dir)[-1].edited
    assert "draft edited by you" in bench.get(f"/projects/{project.id}").text
    stale = bench.post(
        f"/projects/{project.id}/draft", {"text": edited, "version": draft["version"]}
    )
    assert stale.status_code == 409 and "changed since you opened it" in stale.json()["error"]


def test_the_page_archives_a_finished_project_into_its_filter(bench: Bench) -> None:
    done, working = (create_project(bench.config, brain_dump=BRAIN_DUMP) for _ in range(2))
    write_status(done.dir, read_status(done.dir).model_copy(update={"phase": Phase.DONE}))
    assert 'data-archive="archive"' in bench.get(f"/projects/{done.id}").text
    assert "data-archive" not in bench.get(f"/projects/{working.id}").text

    assert bench.post(f"/projects/{done.id}/archive", {}).status_code == 200
    sidebar = bench.get("/").text.split('id="sidebar-list"', 1)[1]
    current, archived = sidebar.split("Archived (1)")
    assert working.id in current and done.id not in current and done.id in archived
    assert "ARCHIVED" in bench.get(f"/projects/{done.id}").text

    refused = bench.post(f"/projects/{working.id}/archive", {})
    assert refused.status_code == 409 and "in progress" in refused.json()["error"]
    assert bench.post(f"/projects/{done.id}/unarchive", {}).status_code == 200
    assert "Archived (" not in bench.get("/").text


def test_the_page_sets_a_projects_budget_at_any_phase_and_refuses_a_bad_one(
    bench: Bench,
) -> None:
    project = create_project(bench.config, brain_dump=BRAIN_DUMP)  # Phase 1, nothing halted
    assert 'id="budget-form"' in bench.get(f"/projects/{project.id}").text
    set_ = bench.post(f"/projects/{project.id}/budget", {"usd": 2.5})
    assert set_.status_code == 200 and "of $2.50" in set_.json()["note"]
    assert read_usage(project.dir).budget == Budget(max_usd=2.5)
    for bad in ({"usd": "5"}, {"usd": True}, {"usd": -1}, {"tokens": 1.5}, {"dollars": 5}):
        refused = bench.post(f"/projects/{project.id}/budget", bad)
        assert refused.status_code == 400, bad
    assert read_usage(project.dir).budget == Budget(max_usd=2.5)  # nothing half-set
    tokens = bench.post(f"/projects/{project.id}/budget", {"tokens": 20000})
    assert tokens.status_code == 200 and "of 20,000" in tokens.json()["note"]
