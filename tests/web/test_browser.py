"""The workbench in a real browser under a real `thoughtforge up`: a plan project created from New
Project and answered entirely in the page to done (with a file dropped mid-conversation, a prompt
edited in Settings, and the page reconnecting across `down`/`up`); a polish halt resolved with
Override; a stuck code build answered with Provide input; the safety probes.

Headless Debian Chromium driven by Playwright; a screenshot of each step in
`test-artifacts/web/`.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.code_setup import BUGGY_BUILD, CALC_FIXED, code_project, code_sections, wrote
from tests.polish_setup import ECHO_FIX, polishing_project, review
from tests.stack.conftest import BIN, REPO, Stack, running, wait_for
from thoughtforge.actions.composer import WAITS_FOR
from thoughtforge.config import load_config
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_status, read_thread, write_status
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import Phase

pytestmark = pytest.mark.slow
SHOTS = REPO / "test-artifacts" / "web"
MARKER = "EDITED-IN-SETTINGS: check the rain plan twice."
DROPPED = "Barn seats 80; the ceremony starts at 3 pm."
HOSTILE = (
    '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> '
    "[x](javascript:window.pwned=3)"
)


def _scripted(path: Path, steps: dict[str, Any]) -> dict[str, Any]:
    path.write_text(yaml.safe_dump({"steps": steps}))
    return {"command": str(BIN / "thoughtforge-scripted-agent"), "flags": ["--script", str(path)]}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp_path = tmp_path_factory.mktemp("web-stack")
    unchanged = wrote({}, "tried")
    agents = {
        "halter": _scripted(
            tmp_path / "halter.yaml",
            {
                "plan-review": {
                    "by_iteration": {
                        n: {"text": text}
                        for n, text in enumerate(
                            (
                                review(10, 20, 10),
                                review(5, 15, 10),
                                review(2, 10, 8),
                                review(5, 10, 10),
                            ),
                            start=1,
                        )
                    }
                },
                "plan-fix": ECHO_FIX,
            },
        ),
        "coder": _scripted(
            tmp_path / "coder.yaml",
            {
                "code-build": wrote(BUGGY_BUILD),
                "code-test-fix": [unchanged, unchanged, wrote({"calc.py": CALC_FIXED})],
                "code-review": {
                    "text": '{"issues": [], "tests": {"total": 2, "passed": 2, "failed": 0}}'
                },
            },
        ),
    }
    sections = code_sections(tmp_path, concurrency={"max_parallel_runs": 10})
    stack = Stack(tmp_path, human={"hold_seconds": 120}, **sections)
    data = yaml.safe_load(stack.config.read_text())
    data["agents"]["available"].update(agents)
    data["agents"]["default"] = "demo"
    stack.config.write_text(yaml.safe_dump(data))
    with running(stack):
        yield stack


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1300, "height": 950})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: dialog.accept())
    yield page
    page.close()
    assert errors == [], errors


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _button(page: Any, action: str, seconds: float = 180) -> Any:
    """The composer's button for `action`, once the run's wait offers it."""
    button = page.locator(f'#actions [data-action="{action}"]')
    button.wait_for(timeout=seconds * 1000)
    return button


def _asked(page: Any, project: Path, kind: str, seconds: float = 180) -> None:
    """The run waits with form `kind`, and the page's composer says so."""

    def waits() -> bool:
        waiting = current_wait(project)
        return waiting is not None and waiting.kind == kind

    wait_for(waits, f"the {kind} wait", seconds)
    note = f"Waiting for {WAITS_FOR[kind]}"  # a halt's note goes on with what to do about it
    page.locator("#actions .composer-note", has_text=note).wait_for(timeout=30_000)


def _sent(page: Any) -> None:
    """The server took the text: the composer is empty again and says what happened."""
    page.wait_for_function("() => document.getElementById('message').value === ''")
    assert "error" not in (page.get_attribute("#feedback", "class") or "")


def _project_of(page: Any, stack: Stack) -> Path:
    return stack.projects / page.url.rstrip("/").rsplit("/", 1)[1]


def _answered(project: Path, count: int) -> Callable[[], bool]:
    """The chat has grown to `count` messages and the run asks again."""

    def check() -> bool:
        return len(read_thread(project)) >= count and current_wait(project) is not None

    return check


def _prompts(project: Path, step: str) -> list[str]:
    return [
        p.read_text() for p in sorted((project / ".scripted-agent" / "prompts").glob(f"*{step}.md"))
    ]


def test_a_plan_project_from_new_project_to_done_answered_only_in_the_page(
    stack: Stack, page: Any
) -> None:
    assert f"Open the workbench: {stack.web}/" in stack.up_output
    page.goto(f"{stack.web}/")
    assert page.locator("h1").inner_text() == "Inbox"
    page.click("text=New project")
    page.wait_for_url("**/projects/new")
    page.fill("#brain-dump", (REPO / "examples" / "wedding-plan.md").read_text())
    _shot(page, "01-new-project")
    page.click("button[type=submit]")
    page.wait_for_url("**/projects/2*")
    project = _project_of(page, stack)

    _asked(page, project, "IntakeTurn")
    assert page.locator('#actions [data-action="confirm"]').count() == 0
    _shot(page, "02-intake-wait")
    page.fill("#message", "The venue is booked for June 14th.")
    page.keyboard.press("Enter")
    page.locator(".message.human", has_text="The venue is booked for June 14th.").wait_for()
    _sent(page)
    wait_for(_answered(project, 2), "the message to be taken")

    data = page.evaluate_handle(
        "text => { const d = new DataTransfer(); "
        "d.items.add(new File([text], 'venue-notes.md', {type: 'text/markdown'})); return d; }",
        DROPPED,
    )
    page.dispatch_event("#thread", "drop", {"dataTransfer": data})
    page.locator(".message.system", has_text="File 'venue-notes.md' added").wait_for()
    assert (project / "resources" / "venue-notes.md").read_text() == DROPPED
    _shot(page, "03-file-dropped")

    _button(page, "distill").click()
    _asked(page, project, "ReviewTurn")
    assert DROPPED in _prompts(project, "brain-dump-intake")[-1]
    _shot(page, "04-distilled")

    before = len(read_thread(project))
    page.fill("#message", "Correction: the budget is 14k, not 15k.")
    _button(page, "send").click()
    wait_for(_answered(project, before + 2), "the corrected distillation")
    _button(page, "realign").click()
    page.locator(".message.realign").first.wait_for(timeout=180_000)
    wait_for(_answered(project, before + 4), "the realigned distillation")
    _shot(page, "05-realigned")

    _reconnects_across_down_and_up(stack, page, project)

    page.goto(f"{stack.web}/settings/prompts/plan-review")
    text = page.input_value("#prompt-text")
    page.fill("#prompt-text", f"{MARKER}\n\n{text}")
    page.click("#prompt-editor button[type=submit]")
    page.locator("#feedback", has_text="the next agent call uses it").wait_for()
    _shot(page, "06-prompt-edited")
    page.goto(f"{stack.web}/projects/{project.name}")

    _button(page, "confirm").click()
    _asked(page, project, "SpecTurn", seconds=240)
    page.locator(".message.ai", has_text="Severity Definitions").last.wait_for()
    _shot(page, "07-spec-proposal")
    _button(page, "confirm").click()

    page.locator("#project-header .phase", has_text="done").wait_for(timeout=300_000)
    page.locator("#panel svg.chart").wait_for(timeout=30_000)
    _shot(page, "08-done")
    assert read_status(project).phase is Phase.DONE
    assert all(MARKER in prompt for prompt in _prompts(project, "plan-review"))
    human = [m.content for m in read_thread(project) if m.role == "human"]
    assert human.count("The venue is booked for June 14th.") == 1


def _reconnects_across_down_and_up(stack: Stack, page: Any, project: Path) -> None:
    """`down`: the page says so and keeps what is typed; `up`: it reconnects and catches up.

    `down` made the run that held its process for the person suspend, so the message sent after
    `up` reaches that same run (before, it was stopped, and the page offered to start it again)."""
    assert stack.tf("down").returncode == 0
    page.locator("#connection", has_text="Server stopped").wait_for(timeout=30_000)
    page.fill("#message", "Typed while the server was down.")
    _button(page, "send").click()
    page.locator("#feedback.error", has_text="Not sent").wait_for(timeout=30_000)
    assert page.input_value("#message") == "Typed while the server was down."
    _shot(page, "05b-server-stopped")
    assert stack.tf("up").returncode == 0
    page.locator("#connection").wait_for(state="hidden", timeout=60_000)
    _button(page, "send").click()
    page.locator(".message.human", has_text="Typed while the server was down.").wait_for(
        timeout=30_000
    )
    _sent(page)
    assert "Kept" not in page.inner_text("#feedback")

    def distilled_again() -> bool:
        roles = [m.role for m in read_thread(project)]
        contents = [m.content for m in read_thread(project)]
        typed = contents.index("Typed while the server was down.")
        return "ai" in roles[typed + 1 :]

    wait_for(distilled_again, "the suspended run to take the message and distil it")
    _asked(page, project, "ReviewTurn")


def test_a_polish_halt_is_resolved_with_override(stack: Stack, page: Any) -> None:
    project = _prepared(stack, polishing_project, "halter")
    page.goto(f"{stack.web}/projects/{project.id}")
    _button(page, "start").click()
    _asked(page, project.dir, "PolishHaltDecision")
    override = _button(page, "override")
    assert page.locator('#actions [data-action="terminate"].danger').count() == 1
    assert "guard hallucination" in page.inner_text("#project-header")
    _shot(page, "10-polish-halt")
    override.click()
    page.locator("#project-header .phase", has_text="done").wait_for(timeout=120_000)
    _shot(page, "11-overridden")
    assert read_status(project.dir).phase is Phase.DONE


def test_a_stuck_code_build_is_answered_with_provide_input(stack: Stack, page: Any) -> None:
    project = _prepared(stack, code_project, "coder")
    page.goto(f"{stack.web}/projects/{project.id}")
    _button(page, "start").click()
    _asked(page, project.dir, "StuckDecision", seconds=240)
    provide = _button(page, "provide_input")
    assert provide.is_disabled()  # it sends a message: none yet
    _shot(page, "20-stuck")
    page.fill("#message", "mul must multiply.")
    provide.click()
    page.locator("#project-header .phase", has_text="done").wait_for(timeout=300_000)
    _shot(page, "21-built")
    fixes = _prompts(project.dir, "code-test-fix")
    assert "mul must multiply." in fixes[-1]


def test_untrusted_text_is_inert_and_another_site_cannot_post(stack: Stack, page: Any) -> None:
    project = _prepared(stack, polishing_project, "halter")
    page.goto(f"{stack.web}/projects/{project.id}")
    page.fill("#message", HOSTILE)
    _button(page, "send").click()
    page.locator(".message.human", has_text="window.pwned = 1").wait_for()
    assert page.evaluate("window.pwned") is None
    assert page.locator(".message.human img, .message.human script").count() == 0
    _shot(page, "30-hostile-text")

    said = len(read_thread(project.dir))
    with _attacker_site() as attacker:
        page.goto(attacker)
        page.evaluate(
            "url => fetch(url, {method: 'POST', mode: 'no-cors', body: "
            "JSON.stringify({action: 'send', message: 'from another site'})})"
            ".catch(() => null)",
            f"{stack.web}/projects/{project.id}/answer",
        )
        page.wait_for_timeout(1000)
    assert len(read_thread(project.dir)) == said


def _prepared(stack: Stack, make: Callable[..., Project], agent: str) -> Project:
    project = make(load_config(stack.config))
    write_status(project.dir, read_status(project.dir).model_copy(update={"agent": agent}))
    return project


class _Attacker(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>another site</title><p>nothing to see</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


class _attacker_site:
    def __enter__(self) -> str:
        self.server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), _Attacker)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.2:{self.server.server_address[1]}/"

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
