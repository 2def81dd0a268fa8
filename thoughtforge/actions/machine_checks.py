"""Is this machine ready to run a project? `thoughtforge doctor`'s checks, each a typed row the
command prints. Read-only, except a probe file (and one real notification per channel with
`send_test`, one tiny call to each agent with `probe`).

The board and the channels are reported as warnings at worst: a run goes on without them."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from thoughtforge.adapters import notify
from thoughtforge.adapters.agents import (
    describe_agent,
    missing_agent_warning,
    warn_if_missing,
    why_not_logged_in,
    why_unavailable,
)
from thoughtforge.config import Config, NotificationChannel, load_config
from thoughtforge.errors import ServiceError, ThoughtForgeError
from thoughtforge.plurals import plural
from thoughtforge.prompting import PromptLibrary

REQUIRED_PROMPTS = (
    *("brain-dump-intake", "spec-building", "spec-building-plan", "spec-building-code"),
    *("plan-build", "plan-review", "plan-fix", "plan-completeness", "code-discovery"),
    *("code-steps", "code-build", "code-test-fix", "code-review", "code-fix"),
)


class Check(BaseModel):
    name: str
    outcome: Literal["ok", "warn", "fail"]
    detail: str


def machine_checks(
    path: Path,
    prefect_internals: Callable[[], list[Check]],
    *,
    send_test: bool = False,
    probe: bool = False,
) -> list[Check]:
    """Every check, in order; a missing or invalid config stops at the first. The rows of the
    Prefect internals come from the caller, which runs on that Prefect (`flows` checks them, a
    layer above this one)."""
    if not path.exists():
        return [
            Check(name="config", outcome="fail", detail=f"{path} missing: run thoughtforge init")
        ]
    try:
        config = load_config(path)
    except ThoughtForgeError as exc:
        return [Check(name="config", outcome="fail", detail=str(exc))]
    checks = [Check(name="config", outcome="ok", detail=str(path.resolve()))]
    for name, check in _PROBES:
        checks.append(Check(name=name, **check(config)))
    checks.extend(prefect_internals())
    checks.append(_board(path, config))
    checks.extend(_channels(config, send_test))
    checks.extend(_connectors(config))
    checks.append(_agents(config))
    if probe:
        checks.extend(_call_agent(config, name) for name in config.agents.available)
    return checks


def start_up_warnings(config: Config) -> list[str]:
    """The spec's start-up checks for `up` and `server`, which warn and go on: the default agent
    may be installed before the first project needs it, and a server open to the network may be
    meant."""
    from thoughtforge.serving.guard import NON_LOOPBACK_WARNING, is_loopback

    warnings: list[str] = []
    warn_if_missing(config, None, warnings.append)
    if not is_loopback(config.server.host):
        warnings.append(f"warning: {NON_LOOPBACK_WARNING}")
    return warnings


def _call_agent(config: Config, agent: str) -> Check:
    """One real call to `agent`; an agent that cannot run here is named, not called."""
    from thoughtforge.adapters.agents.probe import probe_agent

    name = f"probe {agent}"
    default = agent == config.agents.default
    why = why_unavailable(config, agent) or why_not_logged_in(config, agent)
    if why is not None:
        return Check(name=name, outcome="warn" if default else "ok", detail=f"not called: {why}")
    result = probe_agent(config, agent)
    if not result.replied:
        return Check(name=name, outcome="warn", detail=result.detail)
    outcome: Literal["ok", "warn"] = "warn" if result.structured is False else "ok"
    return Check(name=name, outcome=outcome, detail=result.detail)


def _agents(config: Config) -> Check:
    """Every configured agent's state, as New Project and the halt forms offer them."""
    from thoughtforge.adapters.agents import agent_state

    states = [agent_state(config, name) for name in sorted(config.agents.available)]
    detail = "; ".join(
        f"{s.name} {s.state}" + (f" ({s.detail})" if s.state == "not found" else "") for s in states
    )
    return Check(name="agents", outcome="ok", detail=detail)


def _agent(config: Config) -> dict[str, str]:
    warning = missing_agent_warning(config)
    if warning:
        return {"outcome": "warn", "detail": warning}
    login = why_not_logged_in(config, config.agents.default)
    if login:
        return {"outcome": "warn", "detail": login}
    return {"outcome": "ok", "detail": describe_agent(config, config.agents.default)}


def _write_boundary(config: Config) -> dict[str, str]:
    """What holds an agent's writes to its project: Landlock, or nothing (said, not fatal)."""
    from thoughtforge.adapters.agents.write_boundary import boundary_in_force, landlock_abi

    return {"outcome": "ok" if landlock_abi() else "warn", "detail": boundary_in_force()}


def _projects_directory(config: Config) -> dict[str, str]:
    root = config.projects.directory
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=root, prefix=".doctor-"):
            pass
    except OSError as exc:
        return {"outcome": "fail", "detail": f"{root} is not writable: {exc.strerror or exc}"}
    return {"outcome": "ok", "detail": f"{root} is writable"}


def _prompts(config: Config) -> dict[str, str]:
    library = PromptLibrary(config.prompts.directory)
    try:
        paths = [library.path(name) for name in REQUIRED_PROMPTS]
    except ThoughtForgeError as exc:
        return {"outcome": "fail", "detail": str(exc)}
    overridden = sum(
        1 for p in paths if config.prompts.directory and p.is_relative_to(config.prompts.directory)
    )
    return {"outcome": "ok", "detail": f"{len(paths)} prompts found, {overridden} overridden"}


def _plugins(config: Config) -> dict[str, str]:
    """Every deliverable type's folder, imported as a run would at its start."""
    from thoughtforge.phases.plugin_loader import load_plugins

    try:
        names = list(load_plugins(config))
    except ThoughtForgeError as exc:
        return {"outcome": "fail", "detail": str(exc)}
    return {"outcome": "ok", "detail": ", ".join(names)}


def _prefect_api(config: Config) -> dict[str, str]:
    from thoughtforge.stack.api import configured_url, find_api, is_healthy

    explicit = os.environ.get("PREFECT_API_URL")
    if explicit:
        healthy = is_healthy(explicit)
        detail = f"{explicit} is healthy" if healthy else f"PREFECT_API_URL={explicit} unreachable"
        return {"outcome": "ok" if healthy else "fail", "detail": detail}
    if find_api(config) is None:
        return {
            "outcome": "ok",
            "detail": f"no server at {configured_url(config)}: each run starts a temporary one "
            "(`thoughtforge up` starts a lasting one)",
        }
    return {"outcome": "ok", "detail": f"{configured_url(config)} (from `up`) is healthy"}


def _database(config: Config) -> dict[str, str]:
    """The database a server `up` starts uses; PostgreSQL is asked one question."""
    from thoughtforge.stack.database import check_reachable, describe

    if config.server.database_url is None:
        return {"outcome": "ok", "detail": describe(config)}
    try:
        check_reachable(config)
    except ServiceError as exc:
        return {"outcome": "fail", "detail": str(exc)}
    return {"outcome": "ok", "detail": f"{describe(config)} is reachable"}


def _board(path: Path, config: Config) -> Check:
    from thoughtforge.adapters.announce import board_for

    settings = config.vibekanban
    if not settings.enabled:
        return Check(name="board", outcome="ok", detail="Vibe Kanban off (vibekanban.enabled)")
    try:
        summary = board_for(path, config).summary()
    except ServiceError as exc:
        return Check(name="board", outcome="warn", detail=f"{exc}; runs go on without cards")
    name = settings.project_name
    found = (
        f"board '{name}' holds {plural(summary.cards, 'card')}"
        if summary.board_id
        else f"board '{name}' is created with the first card"
    )
    return Check(name="board", outcome="ok", detail=f"Vibe Kanban at {summary.url}: {found}")


def _channels(config: Config, send_test: bool) -> list[Check]:
    settings = config.notifications
    if not settings.enabled:
        return [Check(name="notifications", outcome="ok", detail="off (notifications.enabled)")]
    if not settings.channels:
        return [Check(name="notifications", outcome="warn", detail="enabled, but no channels")]
    return [_channel(c, settings.timeout_seconds, send_test) for c in settings.channels]


def _channel(channel: NotificationChannel, timeout: float, send_test: bool) -> Check:
    name = f"notify {notify.describe(channel)}"
    if send_test:
        try:
            notify.send_test(channel, timeout)
        except ServiceError as exc:
            return Check(name=name, outcome="warn", detail=f"test notification failed: {exc}")
        return Check(name=name, outcome="ok", detail="test notification sent")
    problem = notify.check(channel, timeout)
    if problem:
        return Check(name=name, outcome="warn", detail=problem)
    return Check(name=name, outcome="ok", detail="reachable (--send-test sends a notification)")


def _connectors(config: Config) -> list[Check]:
    """Each enabled connector's credentials, tried with one read-only call."""
    from thoughtforge.connectors import enabled_connectors

    try:
        connectors = enabled_connectors(config)
    except ThoughtForgeError as exc:
        return [Check(name="connectors", outcome="fail", detail=str(exc))]
    if not connectors:
        return [Check(name="connectors", outcome="ok", detail="none enabled (connectors.*)")]
    checks = []
    for connector in connectors:
        name = f"connector {connector.name}"
        try:
            checks.append(Check(name=name, outcome="ok", detail=connector.check()))
        except ServiceError as exc:
            checks.append(Check(name=name, outcome="warn", detail=f"{exc}; pulls will fail"))
    return checks


_PROBES: list[tuple[str, Callable[[Config], dict[str, str]]]] = [
    ("agent", _agent),
    ("write boundary", _write_boundary),
    ("projects directory", _projects_directory),
    ("prompts", _prompts),
    ("deliverable types", _plugins),
    ("Prefect API", _prefect_api),
    ("database", _database),
]
