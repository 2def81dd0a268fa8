"""Only this person's browser, on this server, acts through the workbench.

* **DNS rebinding**: a site that points its own name at 127.0.0.1 reaches the server with its
  name in `Host`. Every request's `Host` must be a loopback name, an IP address, or one of
  `web.allowed_hosts`, with the server's port; anything else is refused (421).
* **Cross-site requests**: a page on another site can make the person's browser POST here. Every
  state-changing request must carry the server's secret token in `X-ThoughtForge-Token` (the page
  gets it from the server; another site cannot read it) and, when the browser says where it came
  from (`Origin`, `Sec-Fetch-Site`), come from this server's own pages (403 otherwise).
* Every answer forbids framing and inline scripts (`Content-Security-Policy`), so even text that
  slipped through escaping could not run.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_HEADER = "x-thoughtforge-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}
CROSS_SITE = (403, "Refused: the request came from another site.\n")
NON_LOOPBACK_WARNING = (
    "Server bound to network interface. No authentication is configured — any network client "
    "can access ThoughtForge."
)


def new_token() -> str:
    """The per-server secret; a new one at every start."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class RequestGuard:
    """ASGI middleware: the Host, Origin and token checks above, and the security headers."""

    def __init__(
        self, app: ASGIApp, *, token: str, port: int, allowed_hosts: Iterable[str] = ()
    ) -> None:
        self.app = app
        self.token = token
        self.port = port
        self.allowed_hosts = frozenset(h.lower() for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(scope["method"], headers)
        if refusal is not None:
            status, text = refusal
            await PlainTextResponse(text, status_code=status)(scope, receive, _secured(send))
            return
        await self.app(scope, receive, _secured(send))

    def _refusal(self, method: str, headers: Headers) -> tuple[int, str] | None:
        if (misdirected := self._misdirected(headers)) is not None:
            return misdirected
        if method in SAFE_METHODS:
            return None
        if (foreign := self._cross_site(headers)) is not None:
            return foreign
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return CROSS_SITE
        if not secrets.compare_digest(headers.get(TOKEN_HEADER, ""), self.token):
            return 403, "Refused: the page's token is missing or stale; reload the page.\n"
        return None

    def _misdirected(self, headers: Headers) -> tuple[int, str] | None:
        """A request for a host name this server does not answer for (DNS rebinding)."""
        host = headers.get("host", "")
        if self._host_allowed(host):
            return None
        return 421, f"Refused: this server does not answer for the host {host[:100]!r}.\n"

    def _cross_site(self, headers: Headers) -> tuple[int, str] | None:
        """A request a page of another site made (its browser says so in `Origin`)."""
        origin = headers.get("origin")
        if origin is not None and origin != f"http://{headers.get('host', '')}":
            return CROSS_SITE
        return None

    def _host_allowed(self, host: str) -> bool:
        name, _, port = host.lower().rpartition(":")
        if not name or port != str(self.port):
            return False
        if name in self.allowed_hosts or name in LOOPBACK_NAMES:
            return True
        try:
            ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            return False
        return True


def _secured(send: Send) -> Send:
    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {name.lower() for name, _ in message.get("headers", [])}
            extra = [
                (name.encode(), value.encode())
                for name, value in SECURITY_HEADERS.items()
                if name.encode() not in present
            ]
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return send_with_headers
