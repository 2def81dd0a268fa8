"""Every person-action the page offers on a project is reached through `thoughtforge.actions`, the
package the CLI and the MCP server call for the same thing: each POST route of the routes table
calls a function of it, so no door keeps an implementation of its own.

Read from the code (the routes table, each endpoint's body and its module's imports), so a new
route that does the work itself fails here.
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Callable
from typing import Any

from starlette.routing import Route

from thoughtforge.web.app import ROUTES

NOT_AN_ACTION: dict[str, str] = {}
"""POST routes that reach no action, each with the reason: none since a dropped file is
`actions.uploading`'s (issue 57)."""


def _imported_from(module: Any) -> dict[str, str]:
    """Each name the module imports, and the module it comes from."""
    tree = ast.parse(inspect.getsource(module))
    return {
        alias.asname or alias.name: node.module or ""
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def _called_names(endpoint: Callable[..., Any]) -> set[str]:
    tree = ast.parse(inspect.getsource(endpoint))
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for argument in [node.func, *node.args]:
                if isinstance(argument, ast.Name):
                    called.add(argument.id)
    return called


def _project_posts() -> list[Route]:
    return [
        route
        for route in ROUTES
        if isinstance(route, Route)
        and "POST" in (route.methods or set())
        and route.path.startswith("/projects")
    ]


def test_every_action_route_of_the_page_calls_the_actions_package() -> None:
    routes = _project_posts()
    assert len(routes) >= 6, [route.path for route in routes]
    missing = []
    for route in routes:
        if route.path in NOT_AN_ACTION:
            continue
        endpoint = route.endpoint
        sources = _imported_from(sys.modules[endpoint.__module__])
        reached = {
            name
            for name in _called_names(endpoint)
            if sources.get(name, "").startswith("thoughtforge.actions")
        }
        if not reached:
            missing.append(f"{route.path} ({endpoint.__name__})")
    assert missing == []


def test_the_routes_left_out_are_still_routes() -> None:
    assert set(NOT_AN_ACTION) <= {route.path for route in _project_posts()}
