"""The board page and its read-only server: escaping, routes, a port in use, and the page in a
real browser following a project that moves (headless Debian Chromium, driven by Playwright;
screenshot in `test-artifacts/board/`)."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.board.test_text import CARDS
from tests.cli.test_board import real_projects
from thoughtforge.board.cards import COLUMNS, Card, board_cards, sparkline
from thoughtforge.board.web import BoardServer, render_page
from thoughtforge.config import load_config
from thoughtforge.core import transition
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import Phase

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "test-artifacts" / "board"
Serve = Callable[..., str]
"""`serve(load_cards, refresh_seconds=5)`: a board server running in a thread; its URL."""


class _Cards(HTMLParser):
    """Where each card sits in a page: project id → (column, badge)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.columns: list[str] = []
        self.cards: dict[str, tuple[str, str | None]] = {}
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if "data-column" in found:
            self.columns.append(found["data-column"] or "")
        if "data-project-id" in found:
            self.cards[found["data-project-id"] or ""] = (self.columns[-1], found.get("data-badge"))


@pytest.fixture
def serving() -> Iterator[Serve]:
    """Board servers on free ports, each stopped after the test."""
    servers: list[BoardServer] = []

    def start(load_cards: Callable[[], list[Card]], refresh_seconds: int = 5) -> str:
        server = BoardServer("127.0.0.1", 0, load_cards, refresh_seconds)
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _request(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method)) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_every_card_is_in_its_column_with_its_badge() -> None:
    parsed = _Cards(render_page(CARDS))
    assert parsed.columns == [str(phase) for phase in COLUMNS]
    assert parsed.cards == {
        card.project_id: (str(card.column), card.badge and str(card.badge)) for card in CARDS
    }


def test_a_hostile_name_and_problem_are_escaped() -> None:
    hostile = CARDS[0].model_copy(
        update={
            "name": "<script>alert('name')</script>",
            "project_id": 'x" onmouseover="alert(1)',
            "problem": "<img src=x onerror=alert(2)>",
        }
    )
    page = render_page([hostile])
    assert page.count("<script>") == 1  # the page's own refresh script, nothing else
    assert "&lt;script&gt;alert(&#x27;name&#x27;)&lt;/script&gt;" in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(2)&gt;" in page
    assert 'onmouseover="' not in page


def test_an_empty_board_says_how_to_start_a_project() -> None:
    page = render_page([])
    assert "No projects yet" in page and "thoughtforge new --brain-dump FILE" in page
    assert _Cards(page).columns == [str(phase) for phase in COLUMNS]


def test_the_server_reads_the_cards_at_each_request(serving: Serve) -> None:
    shown = list(CARDS[:1])
    url = serving(lambda: shown)
    status, headers, body = _request(url)
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert set(_Cards(body.decode()).cards) == {CARDS[0].project_id}
    shown.append(CARDS[1])
    assert set(_Cards(_request(url)[2].decode()).cards) == {c.project_id for c in CARDS[:2]}


def test_cards_json_lists_the_cards(serving: Serve) -> None:
    url = serving(lambda: CARDS)
    status, headers, body = _request(url + "cards.json?fresh=1")
    assert status == 200 and headers["Content-Type"] == "application/json; charset=utf-8"
    assert json.loads(body) == [card.model_dump(mode="json") for card in CARDS]


def test_head_answers_like_get_without_a_body(serving: Serve) -> None:
    url = serving(lambda: CARDS)
    status, headers, body = _request(url, "HEAD")
    assert (status, body) == (200, b"")
    assert int(headers["Content-Length"]) == len(_request(url)[2])


def test_an_unknown_path_is_404(serving: Serve) -> None:
    status, _, body = _request(serving(lambda: CARDS) + "status.json")
    assert status == 404 and b"/cards.json" in body


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "BREW"])
def test_any_method_but_get_and_head_is_405(serving: Serve, method: str) -> None:
    status, headers, _ = _request(serving(lambda: CARDS), method)
    assert status == 405 and headers["Allow"] == "GET, HEAD"


def test_a_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(ThoughtForgeError, match=f"port {port} on 127.0.0.1 is already in use"):
            BoardServer("127.0.0.1", port, lambda: [])


def test_the_page_shows_the_projects_and_follows_a_phase_change(
    browser,  # type: ignore[no-untyped-def]
    serving: Serve,
    write_config: Callable[..., Path],
) -> None:
    config = load_config(write_config(concurrency={"max_parallel_runs": 10}))
    projects = real_projects(config)
    url = serving(lambda: board_cards(config), refresh_seconds=1)
    page = browser.new_page(viewport={"width": 1600, "height": 600})
    page.goto(url)

    expected = {
        "Wedding": ("polishing", None),
        "Garden": ("distilling", "HALTED"),
        "Novel": ("human_review", "TERMINATED"),
        "Broken": ("brain_dump", "UNREADABLE"),
    }
    for name, (column, badge) in expected.items():
        card = page.locator(f'[data-column="{column}"] [data-project-id="{projects[name].id}"]')
        assert card.count() == 1, name
        assert card.locator(".badge").all_inner_texts() == ([badge] if badge else [])
    wedding = page.locator(f'[data-project-id="{projects["Wedding"].id}"]')
    assert sparkline([9, 5, 3]) in wedding.inner_text() and "iteration 3" in wedding.inner_text()
    name = page.locator(f'[data-project-id="{projects["Novel"].id}"] h3')
    assert name.evaluate("e => getComputedStyle(e).textDecorationLine") == "line-through"
    assert page.locator('[data-column="done"] .empty').inner_text() == "no projects"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "board.png"), full_page=True)

    transition(projects["Wedding"], Phase.DONE)
    moved = f'[data-column="done"] [data-project-id="{projects["Wedding"].id}"]'
    page.wait_for_selector(moved, timeout=15_000)  # the page's own refresh, polled in the DOM
    assert page.locator('[data-column="polishing"] .empty').inner_text() == "no projects"
