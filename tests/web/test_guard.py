"""Another site open in the person's browser, or a name rebound to 127.0.0.1, cannot act through
the workbench or read it; and a workbench bound beyond loopback says it has no login."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.vibe_kanban import free_port
from tests.web.conftest import TOKEN, Bench
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.serving.guard import NON_LOOPBACK_WARNING
from thoughtforge.web.app import ROUTES

TF = [sys.executable, "-m", "thoughtforge"]


@pytest.fixture
def project_url(bench: Bench) -> str:
    project = create_project(bench.config, brain_dump="A brain dump long enough to keep.")
    return f"/projects/{project.id}"


def _said(bench: Bench, project_url: str) -> list[str]:
    project_dir = bench.config.projects.directory / project_url.rsplit("/", 1)[1]
    return [m.content for m in read_chat(project_dir)]


def test_a_post_with_the_token_from_this_server_is_taken(bench: Bench, project_url: str) -> None:
    origin = bench.url
    answer = bench.post(f"{project_url}/answer", {"action": "send", "message": "hi"}, Origin=origin)
    assert answer.status_code == 200, answer.text
    assert _said(bench, project_url)[-1] == "hi"


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({"Origin": "http://evil.example"}, "another site"),
        ({"Origin": "null"}, "another site"),
        ({"Sec-Fetch-Site": "cross-site"}, "another site"),
        ({"X-ThoughtForge-Token": ""}, "token"),
        ({"X-ThoughtForge-Token": "a-token-of-an-earlier-server"}, "token"),
    ],
)
def test_a_cross_site_or_tokenless_post_is_refused_and_changes_nothing(
    bench: Bench, project_url: str, headers: dict[str, str], why: str
) -> None:
    before = _said(bench, project_url)
    answer = bench.post(f"{project_url}/answer", {"action": "send", "message": "evil"}, **headers)
    assert answer.status_code == 403 and why in answer.text
    assert _said(bench, project_url) == before


def test_every_write_the_page_offers_refuses_another_site_and_changes_nothing(
    bench: Bench, project_url: str
) -> None:
    """Every POST route, this round's archive, draft, rollback and budget included."""
    project_id = project_url.rsplit("/", 1)[1]
    project_dir = bench.config.projects.directory / project_id
    before = (_said(bench, project_url), read_status(project_dir))
    posts = [route.path for route in ROUTES if "POST" in (getattr(route, "methods", None) or ())]
    assert {"/projects/{project_id}/archive", "/projects/{project_id}/rollback"} <= set(posts)
    for path in posts:
        url = path.replace("{project_id}", project_id).replace("{name}", "x")
        answer = bench.post(
            url, {"action": "send", "message": "evil"}, Origin="http://evil.example"
        )
        assert answer.status_code == 403, (path, answer.status_code)
    assert (_said(bench, project_url), read_status(project_dir)) == before


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:{port}", "127.0.0.1:1"])
def test_a_forged_host_is_refused_for_reads_and_writes(
    bench: Bench, project_url: str, host: str
) -> None:
    forged = host.format(port=bench.config.web.port)
    assert bench.get(project_url, Host=forged).status_code == 421
    posted = bench.post(f"{project_url}/answer", {"action": "send", "message": "x"}, Host=forged)
    assert posted.status_code == 421 and "x" not in _said(bench, project_url)


def test_loopback_names_and_ip_addresses_are_this_server(bench: Bench, project_url: str) -> None:
    port = bench.config.web.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"10.1.2.3:{port}"):
        assert bench.get(project_url, Host=host).status_code == 200, host


def test_every_answer_forbids_inline_script_and_framing(bench: Bench, project_url: str) -> None:
    headers = bench.get(project_url).headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert TOKEN in bench.get(project_url).text  # the page carries the token for its own posts


def test_bound_beyond_loopback_it_warns_that_anyone_on_the_network_can_use_it(
    write_config: Callable[..., Path],
) -> None:
    config_file = write_config()
    server = subprocess.Popen(
        [*TF, "--config", str(config_file), "web", "--host", "0.0.0.0", "--port", str(free_port())],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        first, second = server.stdout.readline(), server.stdout.readline()
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    finally:
        server.kill()
    assert first.strip() == f"WARNING: {NON_LOOPBACK_WARNING}"
    assert second.startswith("Workbench at http://127.0.0.1:")
