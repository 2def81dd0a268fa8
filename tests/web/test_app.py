"""The workbench's routes against a real server (uvicorn in a thread) and real projects, with no
Prefect server: the inbox, New Project, the thread, answers, file drop, the board, the prompts."""

from __future__ import annotations

import base64
import json
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.cli.test_board import real_projects
from tests.conftest import REPO_ROOT
from tests.phases.test_spec import proposal, say_ai, spec_building_project
from tests.web.conftest import Bench
from tests.web.test_browser_after_done import CHANGE, _done_project
from thoughtforge.actions.starting import NO_SERVER
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project, open_project
from thoughtforge.core.spend.ledger import Budget, read_usage
from thoughtforge.core.state import read_chat, read_status, utc_now, write_status
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import DeliverableType, HaltReason, Phase
from thoughtforge.phases import plugin_loader
from thoughtforge.prompting.library import DEFAULT_DIRECTORY, PromptLibrary

DEFAULT_PROMPT = DEFAULT_DIRECTORY / "plan-review.md"
BRAIN_DUMP = "We want a small wedding in June for sixty people, budget fifteen thousand."


def _project(bench: Bench, **fields: object) -> Project:
    return create_project(bench.config, brain_dump=BRAIN_DUMP, **fields)  # type: ignore[arg-type]


def _wait(project: Project, kind: str) -> Waiting:
    status = read_status(project.dir)
    waiting = Waiting(
        key=f"{kind.lower()}-{len(read_chat(project.dir))}",
        kind=kind,
        phase=status.phase,
        chat_length=len(read_chat(project.dir)),
        since=utc_now(),
    )
    return record_wait(project.dir, waiting)


def _order(html: str) -> list[str]:
    sidebar = html.split('id="sidebar-list"', 1)[1].split("</aside>", 1)[0]
    return [part.split('"', 1)[0] for part in sidebar.split('data-project-id="')[1:]]


def test_the_inbox_puts_what_waits_for_the_person_first(bench: Bench) -> None:
    idle, waiting = _project(bench), _project(bench)
    transition(waiting, Phase.DISTILLING)
    transition(waiting, Phase.HUMAN_REVIEW, project_name="Wedding <b>June</b></title>")
    _wait(waiting, "ReviewTurn")
    page = bench.get("/").text
    assert _order(page) == [waiting.id, idle.id]
    assert "Waits for corrections or Confirm since" in page
    assert "Wedding &lt;b&gt;June&lt;/b&gt;&lt;/title&gt;" in page and "<b>June" not in page
    thread = bench.get(f"/projects/{waiting.id}").text
    assert thread.count("</title>") == 1 and "<h1>Wedding &lt;b&gt;June" in thread
    assert "2/10 active" in page and "1 project waits for you" in page


def test_a_full_house_shows_the_spec_message_and_new_project_is_refused(
    write_config: Callable[..., Path], serve_bench: Callable[[Path], Bench]
) -> None:
    bench = serve_bench(write_config(concurrency={"max_parallel_runs": 1}))
    _project(bench)
    message = (
        "Maximum parallel projects reached (1/1). To start a new one, finish a project or open a "
        "halted one and press Terminate or Archive (a halted project holds its slot until then)."
    )
    page = bench.get("/").text
    assert f"1/1 active — {message}" in page
    assert "thoughtforge terminate" not in page  # the page's own action, not a CLI command
    refused = bench.post("/projects", {"brain_dump": BRAIN_DUMP})
    assert refused.status_code == 409 and refused.json()["error"] == message


def test_new_project_keeps_the_dropped_files_and_says_how_to_start_without_a_server(
    bench: Bench,
) -> None:
    files = [
        {"name": "venue notes.md", "data": base64.b64encode(b"Barn, 80 seats").decode()},
        {"name": "../../escape.txt", "data": base64.b64encode(b"no escape").decode()},
    ]
    answer = bench.post(
        "/projects",
        {"brain_dump": BRAIN_DUMP, "agent": "demo", "deliverable_type": "plan", "files": files},
    )
    assert answer.status_code == 200, answer.text
    created = answer.json()
    project = open_project(bench.config, created["project_id"])
    assert created["url"] == f"/projects/{project.id}"
    assert created["note"] == NO_SERVER.format(id=project.id)
    assert sorted(p.name for p in project.resources_dir.iterdir()) == [
        ".gitkeep",
        "escape.txt",
        "venue notes.md",
    ]
    assert not (bench.config.projects.directory.parent / "escape.txt").exists()
    assert read_chat(project.dir)[0].content.endswith("Deliverable type: plan\n")
    header = bench.get(created["url"]).text.split('id="project-header"', 1)[1]
    assert "plan (asked for; Distill settles it)" in header  # not "type not decided yet"


def test_a_bad_new_project_is_a_clear_400_and_makes_nothing(bench: Bench) -> None:
    answer = bench.post("/projects", {"brain_dump": "", "deliverable_type": "poem"})
    assert answer.status_code == 400 and "brain_dump" in answer.json()["error"]
    assert list(bench.config.projects.directory.glob("2*")) == []
    unknown = bench.post("/projects", {"brain_dump": BRAIN_DUMP, "agent": "nobody"})
    assert unknown.status_code == 409 and "agent 'nobody'" in unknown.json()["error"]
    poem = bench.post("/projects", {"brain_dump": BRAIN_DUMP, "deliverable_type": "poem"})
    assert poem.status_code == 409 and "no deliverable type 'poem'" in poem.json()["error"]
    assert list(bench.config.projects.directory.glob("2*")) == []


def test_the_new_project_form_offers_every_deliverable_type_a_plugin_gives(
    write_config: Callable[..., Path], serve_bench: Callable[[Path], Bench]
) -> None:
    plugins = REPO_ROOT / "examples" / "plugins"
    bench = serve_bench(write_config(plugins={"directory": str(plugins)}))
    form = bench.get("/projects/new").text
    assert [o for o in ("Plan", "Code", "Checklist") if f">{o}</option>" in form] == [
        "Plan",
        "Code",
        "Checklist",
    ]


def test_a_plugin_whose_import_never_ends_is_refused_and_holds_up_no_other_page(
    write_config: Callable[..., Path],
    serve_bench: Callable[[Path], Bench],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, the first visit to New project imported the plugins on the server's event loop:
    one whose import loops froze the whole workbench (`/health`, the inbox, every thread)."""
    monkeypatch.setattr(plugin_loader, "IMPORT_SECONDS", 4.0)
    folder = tmp_path / "plugins" / "checklist"
    shutil.copytree(REPO_ROOT / "examples" / "plugins" / "checklist", folder)
    with (folder / "builder.py").open("a") as builder:
        builder.write("\nwhile True:\n    pass\n")
    bench = serve_bench(write_config(plugins={"directory": str(folder.parent)}))
    answers: list[httpx.Response] = []
    visit = threading.Thread(target=lambda: answers.append(bench.get("/projects/new")))
    visit.start()
    time.sleep(0.5)  # the visit is importing the plugins now
    assert bench.get("/health").text == "ok"
    assert bench.get("/").status_code == 200
    assert visit.is_alive(), "the other pages answered while the plugins were still importing"
    visit.join(30)
    [page] = answers
    assert page.status_code == 400
    assert f"plugin folder {folder} is refused: it did not finish importing in 4 s" in " ".join(
        page.text.split()
    )


def test_the_thread_page_shows_every_message_and_only_the_actions_of_the_wait(
    bench: Bench,
) -> None:
    project = _project(bench)
    _wait(project, "IntakeTurn")
    page = bench.get(f"/projects/{project.id}").text
    assert BRAIN_DUMP in page and "Phase 1 · brain dump" in page
    actions = page.split('id="actions"', 1)[1].split("</div>", 2)
    assert 'data-action="send"' in actions[0] and 'data-action="distill"' in actions[0]
    assert 'data-action="confirm"' not in page
    assert 'class="action danger" data-action="terminate"' in page  # apart, in red
    assert "Waiting for more detail, or Distill." in page


def test_confirm_with_open_items_unresolved_is_offered_only_when_the_spec_has_some(
    bench: Bench,
) -> None:
    project = spec_building_project(bench.config)
    say_ai(project, proposal())  # every Unknown and Open Question resolved
    _wait(project, "SpecTurn")
    page = bench.get(f"/projects/{project.id}").text
    assert 'data-action="confirm"' in page
    assert 'data-action="accept_unresolved"' not in page and 'class="open-items"' not in page

    say_ai(project, proposal(resolved="- Exact date in June: UNRESOLVED: the barn has not said"))
    _wait(project, "SpecTurn")
    page = bench.get(f"/projects/{project.id}").text
    assert 'data-action="accept_unresolved"' in page
    pane = page.split('id="deliverable"', 1)[1]
    assert "2 open items" in pane and "Is the budget per person or in total?" in pane


def test_a_message_with_no_run_is_kept_and_queued(bench: Bench) -> None:
    project = _project(bench)
    answer = bench.post(
        f"/projects/{project.id}/answer", {"action": "send", "message": "Rain plan!"}
    )
    assert answer.json() == {
        "delivery": "queued",
        "note": "Kept: the AI reads it at its next call.",
    }
    assert read_chat(project.dir)[-1].content == "Rain plan!"


def test_a_message_while_polishing_is_kept_for_the_next_iteration(bench: Bench) -> None:
    project = _project(bench)
    polishing = read_status(project.dir).model_copy(update={"phase": Phase.POLISHING})
    write_status(project.dir, polishing)
    answer = bench.post(
        f"/projects/{project.id}/answer", {"action": "send", "message": "Euros only."}
    )
    assert answer.json() == {
        "delivery": "queued",
        "note": "Kept: it will be read at the next polish iteration.",
    }


def test_an_action_the_wait_does_not_take_or_an_empty_message_is_refused(bench: Bench) -> None:
    project = _project(bench)
    confirm = bench.post(f"/projects/{project.id}/answer", {"action": "confirm"})
    assert confirm.status_code == 409 and "Confirm is not possible now." in confirm.json()["error"]
    empty = bench.post(f"/projects/{project.id}/answer", {"action": "send", "message": "  "})
    assert empty.status_code == 409 and "Write a message first" in empty.json()["error"]
    assert len(read_chat(project.dir)) == 1


def test_distill_with_no_server_keeps_the_words_and_says_how_to_start(bench: Bench) -> None:
    project = _project(bench)
    _wait(project, "IntakeTurn")
    answer = bench.post(
        f"/projects/{project.id}/answer", {"action": "distill", "message": "Also: a cellist."}
    )
    assert answer.json() == {"delivery": "no_run", "note": NO_SERVER.format(id=project.id)}
    assert read_chat(project.dir)[-1].content == "Also: a cellist."


def test_a_halt_decided_with_no_run_waiting_acts_on_the_files(bench: Bench) -> None:
    project = _project(bench)
    for phase in (Phase.DISTILLING, Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING, Phase.BUILDING):
        transition(project, phase, deliverable_type=DeliverableType.PLAN)
    transition(project, Phase.POLISHING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.GUARD_HALLUCINATION)
    answer = bench.post(f"/projects/{project.id}/answer", {"action": "override"})
    assert answer.json() == {"delivery": "applied", "note": "Done: the project is done."}
    assert read_status(project.dir).phase is Phase.DONE


def test_a_dropped_file_is_saved_and_told_in_the_thread(bench: Bench) -> None:
    project = _project(bench)
    answer = bench.post(
        f"/projects/{project.id}/files", content=b"Barn seats 80", **{"X-File-Name": "..%2Fbarn.md"}
    )
    assert answer.json() == {"saved": "barn.md", "note": "Added resources/barn.md."}
    assert (project.resources_dir / "barn.md").read_bytes() == b"Barn seats 80"


def test_an_oversize_drop_is_refused_before_it_is_read(
    write_config: Callable[..., Path], serve_bench: Callable[[Path], Bench]
) -> None:
    bench = serve_bench(write_config(resources={"max_file_bytes": 100}))
    project = _project(bench)
    answer = bench.post(
        f"/projects/{project.id}/files", content=b"x" * 1000, **{"X-File-Name": "big.pdf"}
    )
    assert answer.status_code == 409
    assert "resources.max_file_bytes (100 bytes" in answer.json()["error"]
    assert not (project.resources_dir / "big.pdf").exists()


def test_an_unknown_or_malformed_project_is_404(bench: Bench) -> None:
    assert bench.get("/projects/20990101-nothing-0000").status_code == 404
    assert bench.get("/projects/..%2F..%2Fetc").status_code == 404


def test_the_board_shows_each_card_in_its_column_linked_to_its_thread(bench: Bench) -> None:
    projects = real_projects(bench.config)
    page = bench.get("/board").text
    wedding = projects["Wedding"].id
    polishing = page.split('data-column="polishing"', 1)[1].split("</section>", 1)[0]
    assert f'data-project-id="{wedding}"' in polishing
    assert f'href="/projects/{wedding}"' in polishing and "(iteration 3)" in polishing
    assert '<span class="trend">9 → 5 → 3</span>' in polishing and "▁" not in page
    assert 'class="column is-empty" data-column="building"' in page
    assert 'data-badge="TERMINATED"' in page and 'data-badge="UNREADABLE"' in page
    cards = json.loads(bench.get("/cards.json").text)
    assert {card["project_id"] for card in cards} == {p.id for p in projects.values()}


def test_an_empty_board_says_how_to_start(bench: Bench) -> None:
    assert "No projects yet. Start one with" in bench.get("/board").text


def test_a_prompt_saved_in_settings_is_what_the_next_call_renders_and_reset_undoes_it(
    bench: Bench,
) -> None:
    assert 'href="/settings/prompts/plan-review"' in bench.get("/settings/prompts").text
    built_in = bench.get("/settings/prompts/plan-review").text
    assert "Built-in" in built_in
    saved = bench.post("/settings/prompts/plan-review", {"text": "Review {{plan}} harshly."})
    assert saved.status_code == 200 and "the next agent call uses it" in saved.json()["note"]
    library = PromptLibrary(bench.config.prompts.directory)
    assert library.render("plan-review", plan="THE PLAN") == "Review THE PLAN harshly."
    assert "Your override" in bench.get("/settings/prompts/plan-review").text
    reset = bench.post("/settings/prompts/plan-review/reset", {})
    assert reset.json()["note"] == "plan-review is the built-in prompt again."
    assert PromptLibrary(bench.config.prompts.directory).path("plan-review") == DEFAULT_PROMPT
    assert "Built-in" in bench.get("/settings/prompts/plan-review").text


def test_a_prompt_that_cannot_be_saved_says_where_and_why_and_changes_nothing(
    bench: Bench,
) -> None:
    folder = bench.config.prompts.directory
    assert folder is not None
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("a file where the folder should be")
    answer = bench.post("/settings/prompts/plan-review", {"text": "new"})
    assert answer.status_code == 409
    assert answer.json()["error"].startswith(f"cannot save {folder / 'plan-review.md'}:")
    assert folder.read_text() == "a file where the folder should be"
    unknown = bench.post("/settings/prompts/..%2F..%2Fconfig", {"text": "x"})
    assert unknown.status_code in (404, 409)


def test_terminate_at_a_chat_step_ends_the_project(bench: Bench) -> None:
    project = _project(bench)
    _wait(project, "IntakeTurn")
    answer = bench.post(f"/projects/{project.id}/answer", {"action": "terminate"})
    assert answer.json() == {"delivery": "applied", "note": "Done: the project is halted."}
    status = read_status(project.dir)
    assert status.halt_reason is HaltReason.HUMAN_TERMINATED
    page = bench.get(f"/projects/{project.id}").text
    assert "Terminated: this project will not go on." in page and "data-action" not in page


def test_new_project_keeps_a_budget_and_refuses_one_of_zero_or_less(bench: Bench) -> None:
    for bad in (0, -3, "lots"):
        refused = bench.post("/projects", {"brain_dump": BRAIN_DUMP, "budget_usd": bad})
        assert refused.status_code == 400 and "budget_usd" in refused.json()["error"]
    assert list(bench.config.projects.directory.glob("2*")) == []
    answer = bench.post("/projects", {"brain_dump": BRAIN_DUMP, "budget_usd": 2.5})
    assert answer.status_code == 200, answer.text
    project = open_project(bench.config, answer.json()["project_id"])
    assert read_usage(project.dir).budget == Budget(max_usd=2.5)
    page = bench.get(f"/projects/{project.id}").text
    assert 'class="spend"' in page and "spent $0.00 / $2.50" in page


def test_a_budget_halts_decision_carries_the_new_budget_and_only_that_halts(bench: Bench) -> None:
    project = _project(bench)
    for phase in (Phase.DISTILLING, Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING, Phase.BUILDING):
        transition(project, phase, deliverable_type=DeliverableType.PLAN)
    transition(project, Phase.POLISHING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.GUARD_HALLUCINATION)
    other = bench.post(f"/projects/{project.id}/answer", {"action": "resume", "budget_usd": 9})
    assert other.status_code == 409 and "budget_exhausted halt only" in other.json()["error"]
    transition(project, Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED)
    project = _project(bench)
    for phase in (Phase.DISTILLING, Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING, Phase.BUILDING):
        transition(project, phase, deliverable_type=DeliverableType.PLAN)
    transition(project, Phase.POLISHING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.BUDGET_EXHAUSTED)
    page = bench.get(f"/projects/{project.id}").text
    assert 'id="raise-budget"' in page
    zero = bench.post(f"/projects/{project.id}/answer", {"action": "override", "budget_usd": 0})
    assert zero.status_code == 400 and read_status(project.dir).phase is Phase.HALTED
    answer = bench.post(f"/projects/{project.id}/answer", {"action": "override", "budget_usd": 9})
    assert answer.status_code == 200, answer.text
    assert read_usage(project.dir).budget == Budget(max_usd=9.0)


def test_a_revision_answered_from_the_page_says_which_step_its_note_is_about(bench: Bench) -> None:
    """The page keeps "Revision 2 started" when the stream then shows Phase 2: before, the note
    went with the phase change it announced, if the stream's event came after the answer."""
    project = _done_project(bench)
    answer = bench.post(f"/projects/{project.id}/answer", {"action": "revise", "message": CHANGE})
    said = answer.json()
    assert said["note"].startswith("Revision 2 started")
    assert said["phase"] == Phase.SPEC_BUILDING == read_status(project.dir).phase
