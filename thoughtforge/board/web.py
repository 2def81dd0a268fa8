"""The board as a web page, and the tiny read-only server that shows it on localhost.

Each request reads the projects' files again (they are the truth). The page fetches itself every
few seconds and swaps its board in place, so it follows the runs without a reload flashing. Names
come from an agent, so every piece of text is escaped. The server only answers GET and HEAD.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from datetime import UTC
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from thoughtforge.board.cards import COLUMNS, Badge, Card, by_column, sparkline
from thoughtforge.board.text import START_HINT, work_line
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import Phase

REFRESH_SECONDS = 5

_STYLE = """
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #f4f5f7; color: #1d2330; }
header { display: flex; align-items: baseline; gap: 1rem; padding: .75rem 1rem; }
h1 { font-size: 1.1rem; margin: 0; }
#state { color: #6b7280; font-size: .85rem; }
#state.offline { color: #b91c1c; font-weight: 600; }
.hint { margin: 0 1rem .75rem; }
.columns { display: grid; grid-template-columns: repeat(7, minmax(11rem, 1fr)); gap: .75rem;
  padding: 0 1rem 1rem; overflow-x: auto; }
.column { background: #e6e8ec; border-radius: 8px; padding: .5rem; min-height: 10rem; }
.column h2 { display: flex; justify-content: space-between; margin: .25rem .25rem .5rem;
  font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: #4b5563; }
.column ol { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column;
  gap: .5rem; }
.empty { color: #9ca3af; font-style: italic; margin: .25rem; }
.card { background: #fff; border-radius: 6px; padding: .5rem .6rem; overflow-wrap: anywhere;
  border-left: 4px solid #60a5fa; box-shadow: 0 1px 2px rgb(0 0 0 / 12%); }
.column[data-column="done"] .card { border-left-color: #16a34a; }
.card h3 { font-size: .95rem; margin: 0 0 .15rem; }
.card p { margin: .15rem 0; }
.id, .updated { color: #6b7280; font: .75rem ui-monospace, monospace; }
.badge { font-size: .7rem; font-weight: 700; letter-spacing: .03em; padding: .05rem .35rem;
  border-radius: 4px; }
.card.halted { border-left-color: #f59e0b; background: #fffbeb; }
.badge.halted { background: #f59e0b; color: #1f1300; }
.card.terminated { border-left-color: #9ca3af; background: #f3f4f6; color: #6b7280; }
.card.terminated h3 { text-decoration: line-through; }
.badge.terminated { background: #4b5563; color: #fff; }
.card.unreadable { border-left-color: #dc2626; background: #fef2f2; }
.badge.unreadable { background: #dc2626; color: #fff; }
.reason { color: #92400e; font-size: .8rem; }
.spark { font: 1.1rem ui-monospace, monospace; color: #2563eb; letter-spacing: 1px; }
.critical { color: #b91c1c; font-weight: 600; }
.problem { color: #b91c1c; font-size: .8rem; }
"""

_SCRIPT = """
const state = document.getElementById("state");
async function refresh() {
  try {
    const response = await fetch(location.pathname, {cache: "no-store"});
    if (!response.ok) throw new Error("HTTP " + response.status);
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    document.getElementById("board").replaceWith(fresh.getElementById("board"));
    state.textContent = "updated " + new Date().toLocaleTimeString();
    state.className = "";
  } catch (error) {
    state.textContent = "cannot reach the board server (" + error.message + "), retrying";
    state.className = "offline";
  }
}
setInterval(refresh, 1000 * Number(document.body.dataset.refresh));
"""


def render_page(cards: list[Card], refresh_seconds: int = REFRESH_SECONDS) -> str:
    """The whole page: the seven columns of cards, and the script that keeps them current."""
    columns = by_column(cards)
    hint = "" if cards else f'<p class="hint">No projects yet. {escape(START_HINT)}</p>'
    sections = "".join(_column(phase, columns[phase]) for phase in COLUMNS)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<title>ThoughtForge board</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n"
        f'<body data-refresh="{refresh_seconds}">\n'
        "<header><h1>ThoughtForge board</h1>"
        f'<span id="state">refreshes every {refresh_seconds} s</span></header>\n'
        f'<main id="board">{hint}<div class="columns">\n{sections}</div></main>\n'
        f"<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )


def cards_json(cards: list[Card]) -> str:
    """The cards as a JSON array, for scripts that want the board without its HTML."""
    return json.dumps([card.model_dump(mode="json") for card in cards], ensure_ascii=False)


class BoardServer(ThreadingHTTPServer):
    """Serves the board of `load_cards()` at `/` and `/cards.json`, calling it at each request.

    Binding happens here, so a port in use is a `ThoughtForgeError` before anything is printed.
    """

    def __init__(
        self,
        host: str,
        port: int,
        load_cards: Callable[[], list[Card]],
        refresh_seconds: int = REFRESH_SECONDS,
    ) -> None:
        self.load_cards = load_cards
        self.refresh_seconds = refresh_seconds
        try:
            super().__init__((host, port), _Handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ThoughtForgeError(
                    f"port {port} on {host} is already in use: stop what holds it or choose "
                    "another with --port"
                ) from None
            reason = exc.strerror or str(exc)
            raise ThoughtForgeError(f"cannot serve the board on {host}:{port}: {reason}") from None

    @property
    def url(self) -> str:
        """Where the page is, with the port the system chose when asked for port 0."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"


class _Handler(BaseHTTPRequestHandler):
    server: BoardServer
    server_version = "ThoughtForgeBoard"

    def do_GET(self) -> None:
        self._answer(with_body=True)

    def do_HEAD(self) -> None:
        self._answer(with_body=False)

    def __getattr__(self, name: str) -> Callable[[], None]:
        """Every other method (`do_POST`, `do_DELETE`, …) is refused: the board is read-only."""
        if name.startswith("do_"):
            return self._refuse
        raise AttributeError(name)

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the page asks every few seconds, and each request would print a line."""

    def _answer(self, *, with_body: bool) -> None:
        path = urlsplit(self.path).path
        if path == "/":
            page = render_page(self.server.load_cards(), self.server.refresh_seconds)
            self._send(HTTPStatus.OK, "text/html", page, with_body)
        elif path == "/cards.json":
            listing = cards_json(self.server.load_cards())
            self._send(HTTPStatus.OK, "application/json", listing, with_body)
        else:
            message = f"Nothing at {path}: the board is at / and its cards at /cards.json.\n"
            self._send(HTTPStatus.NOT_FOUND, "text/plain", message, with_body)

    def _refuse(self) -> None:
        message = f"{self.command} is not allowed: the board is read-only (GET, HEAD).\n"
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "text/plain", message, with_body=True)

    def _send(self, status: HTTPStatus, content_type: str, text: str, with_body: bool) -> None:
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if status is HTTPStatus.METHOD_NOT_ALLOWED:
            self.send_header("Allow", "GET, HEAD")
        self.end_headers()
        if with_body:
            self.wfile.write(data)


def _column(phase: Phase, cards: list[Card]) -> str:
    items = "".join(_card(card) for card in cards) or '<li class="empty">no projects</li>'
    return (
        f'<section class="column" data-column="{phase}">'
        f"<h2><span>{escape(COLUMNS[phase])}</span><span>{len(cards)}</span></h2>"
        f"<ol>{items}</ol></section>\n"
    )


def _card(card: Card) -> str:
    badge = card.badge.lower() if card.badge else ""
    lines = [f"<h3>{escape(card.name)}</h3>"]
    if card.name != card.project_id:
        lines.append(f'<p class="id">{escape(card.project_id)}</p>')
    if card.badge is not None:
        reason = card.halt_reason if card.badge is Badge.HALTED else None
        shown = f' <span class="reason">{escape(reason)}</span>' if reason else ""
        lines.append(f'<p><span class="badge {badge}">{card.badge}</span>{shown}</p>')
    if work_line(card):
        lines.append(f'<p class="work">{escape(work_line(card))}</p>')
    if card.trajectory:
        totals = " → ".join(str(total) for total in card.trajectory)
        lines.append(
            f'<p class="polish"><span class="spark" title="total issues: {totals}">'
            f"{sparkline(card.trajectory)}</span> iteration {card.iteration}</p>"
        )
    if card.counts is not None:
        c = card.counts
        critical = f"{c.critical} critical"
        if c.critical:
            critical = f'<span class="critical">{critical}</span>'
        lines.append(f'<p class="counts">{critical} · {c.medium} medium · {c.minor} minor</p>')
    if card.problem:
        lines.append(f'<p class="problem">{escape(card.problem)}</p>')
    if card.updated_at is not None:
        updated = card.updated_at.astimezone(UTC)
        lines.append(f'<p class="updated">updated {updated:%Y-%m-%d %H:%M} UTC</p>')
    badge_data = f' data-badge="{card.badge}"' if card.badge else ""
    return (
        f'<li class="card {badge}" data-project-id="{escape(card.project_id)}"{badge_data}>'
        f"{''.join(lines)}</li>"
    )
