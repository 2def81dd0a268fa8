"""The one Vibe Kanban client, for the board (`vibekanban`) and the attempts (`attempts.coder`):
every reply is `{"success", "data", "message"}`, and a refusal (sent as HTTP 200 or as an error
status) is a `ServiceError` carrying Vibe Kanban's own message."""

from __future__ import annotations

import json
import re
from typing import Any

from thoughtforge.adapters import http
from thoughtforge.errors import ServiceError

SLOW_CALL_SECONDS = 60.0
"""Starting an attempt (it creates a worktree) and merging run git inside the request; stopping
waits 2 s after each of SIGINT, SIGTERM and SIGKILL until the executor is gone."""
_VK_MESSAGE = re.compile(r'"message":("(?:[^"\\]|\\.)*")')


class VibeKanbanClient:
    """The Vibe Kanban server at `url`; a call waits `timeout` seconds, a slow one longer."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self._timeout = timeout

    def call(self, method: str, path: str, body: Any = None, *, slow: bool = False) -> Any:
        """The reply's `data`; `ServiceError` (with Vibe Kanban's own message) for a refusal,
        which 0.0.71 sends as HTTP 200 or as an error status."""
        timeout = max(self._timeout, SLOW_CALL_SECONDS) if slow else self._timeout
        try:
            reply = http.request(method, self.url + path, json_body=body, timeout=timeout)
        except ServiceError as exc:
            message = _message_in(str(exc))
            if message is None:
                raise
            raise ServiceError(
                f"Vibe Kanban refused {method} {path}: {message}", status=exc.status
            ) from None
        answer = reply.parsed()
        if not isinstance(answer, dict) or not answer.get("success"):
            message = answer.get("message") if isinstance(answer, dict) else None
            raise ServiceError(
                f"Vibe Kanban refused {method} {path}: {message or 'no reason given'}",
                status=reply.status,
            )
        return answer.get("data")

    def logs(self, process_id: str) -> str:
        """The SSE stream of an ended process's raw logs (it ends with a `finished` event)."""
        path = f"/api/execution-processes/{process_id}/raw-logs"
        return http.request("GET", self.url + path, timeout=self._timeout).body.decode(
            "utf-8", "replace"
        )


def _message_in(error: str) -> str | None:
    """Vibe Kanban's `message` in the JSON of an error reply, as `http` quotes it."""
    match = _VK_MESSAGE.search(error)
    if match is None:
        return None
    try:
        return str(json.loads(match.group(1)))
    except ValueError:
        return None
