"""What an attempt's processes printed: the stdout and stderr in Vibe Kanban's raw-log stream,
and the agent's last word in them."""

from __future__ import annotations

from thoughtforge.adapters.kanban.client import VibeKanbanClient
from thoughtforge.bounded_input import parse_json
from thoughtforge.errors import ServiceError


def process_output(api: VibeKanbanClient, process_id: str) -> tuple[str, str]:
    """A process's stdout and stderr, best effort: empty when Vibe Kanban has none to give."""
    try:
        stream = api.logs(process_id)
    except ServiceError:
        return "", ""
    out: list[str] = []
    err: list[str] = []
    for line in stream.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            patches = parse_json(line[5:], "a log patch")
        except ValueError:
            continue
        for patch in patches if isinstance(patches, list) else []:
            value = patch.get("value") if isinstance(patch, dict) else None
            if isinstance(value, dict) and isinstance(value.get("content"), str):
                target = {"STDOUT": out, "STDERR": err}.get(str(value.get("type")))
                if target is not None:
                    target.append(value["content"])
    return "".join(out), "".join(err)


def agent_answer(stdout: str) -> str:
    """A Claude Code stream-json `result` (what VK's Claude executor prints), else the stdout."""
    for line in reversed(stdout.splitlines()):
        try:
            event = parse_json(line, "an event")
        except ValueError:
            continue
        result = event.get("result") if isinstance(event, dict) else None
        if isinstance(result, str) and event.get("type") == "result":
            return result.strip()
    return stdout.strip()
