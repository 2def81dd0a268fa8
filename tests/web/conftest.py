"""A real workbench per test: the Starlette app under uvicorn on a free port, in a thread, with no
Prefect server (the config's server answers nowhere), and an HTTP client that speaks to it as a
page of its own would (its Host, its token)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from tests.vibe_kanban import free_port
from thoughtforge.config import Config, load_config
from thoughtforge.web.app import create_app

TOKEN = "test-token-0123456789"
SIZES = {"wide": {"width": 1300, "height": 900}, "phone": {"width": 390, "height": 844}}
"""The browser tests' desktop and phone sizes."""
WAIT_MS = 15_000


@dataclass
class Bench:
    url: str
    config: Config
    config_file: Path

    def get(self, path: str, **headers: str) -> httpx.Response:
        return httpx.get(f"{self.url}{path}", headers=headers, timeout=10)

    def post(
        self, path: str, body: Any = None, *, content: bytes | None = None, **headers: str
    ) -> httpx.Response:
        sent = {"X-ThoughtForge-Token": TOKEN, **headers}
        if content is not None:
            return httpx.post(f"{self.url}{path}", content=content, headers=sent, timeout=30)
        return httpx.post(f"{self.url}{path}", json=body, headers=sent, timeout=30)


@pytest.fixture
def serve_bench() -> Iterator[Callable[[Path], Bench]]:
    """Start a workbench for a config file; every one started is stopped after the test."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(config_file: Path) -> Bench:
        config = load_config(config_file)
        config.web.port = free_port()
        app = create_app(config_file, config, token=TOKEN)
        server = uvicorn.Server(
            uvicorn.Config(
                app,
                host="127.0.0.1",
                port=config.web.port,
                log_level="warning",
                timeout_graceful_shutdown=1,
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append((server, thread))
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "the workbench did not start"
            time.sleep(0.02)
        return Bench(f"http://127.0.0.1:{config.web.port}", config, config_file)

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def bench(write_config: Callable[..., Path], serve_bench: Callable[[Path], Bench]) -> Bench:
    return serve_bench(write_config(concurrency={"max_parallel_runs": 10}))


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """`open_page(size)`: a page at that size (the phone one a touch screen); a script error on
    any page fails the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(size: str) -> Any:
        phone = size == "phone"
        context = browser.new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == [], errors
