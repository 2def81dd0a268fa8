"""Pulling a list of links into a project with the real connectors over their local APIs: files
written, a failure told (naming the connector and the page) without stopping the others, links
of a connector that is off, the CLI's `pull` and `doctor`'s connector rows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP
from tests.fake_google import GOOGLE_DOC, FakeGoogle
from tests.fake_notion import FakeNotion
from tests.flows.conftest import run_cli
from thoughtforge.config import Config, load_config
from thoughtforge.connectors import enabled_connectors, pull_sources
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events

HEX = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def notion() -> Iterator[FakeNotion]:
    with FakeNotion() as fake:
        yield fake


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    with FakeGoogle() as fake:
        yield fake


@pytest.fixture
def connected(
    tmp_path: Path, write_config: Callable[..., Path], notion: FakeNotion, google: FakeGoogle
) -> Path:
    """A config with both connectors on, pointed at the local APIs."""
    notion_settings = {"enabled": True, "token": notion.token, "base_url": notion.url}
    drive = {
        "enabled": True,
        "credentials_path": str(google.service_account_file(tmp_path)),
        "base_url": google.url,
    }
    return write_config(connectors={"notion": notion_settings, "google_drive": drive})


def _project(config: Config) -> Project:
    return create_project(config, brain_dump=BRAIN_DUMP)


def test_pages_and_documents_are_written_and_a_failure_does_not_stop_the_others(
    connected: Path, notion: FakeNotion, google: FakeGoogle
) -> None:
    config = load_config(connected)
    project = _project(config)
    page = notion.add_page("../../etc/passwd", markdown="# Guests\n\n- Ana")
    google.add_file("doc_id_0123456789abcdef", "Venue notes", GOOGLE_DOC, "# Venue\n\nBarn")
    links = [
        f"https://www.notion.so/acme/Guests-{page.replace('-', '')}",
        "https://docs.google.com/document/d/doc_id_0123456789abcdef/edit",
        f"https://www.notion.so/acme/Gone-{HEX}",
        "https://www.notion.so/acme/no-page-here",
        "https://example.com/not-a-connector",
    ]

    report = pull_sources(project, enabled_connectors(config), links)

    assert report.written == ["etc passwd.md", "Venue notes.md"]
    assert (project.resources_dir / "etc passwd.md").read_text().endswith("# Guests\n\n- Ana\n")
    assert not (project.dir.parent / "etc").exists()
    assert "Barn" in (project.resources_dir / "Venue notes.md").read_text()
    [missing, malformed] = report.failures
    assert missing.startswith(f"Notion could not pull https://www.notion.so/acme/Gone-{HEX}")
    assert malformed == (
        "Could not parse URL: 'https://www.notion.so/acme/no-page-here'. Please provide a valid "
        "Notion page URL or Google Drive document link."
    )
    kinds = [e["kind"] for e in read_events(project.dir) if e["event"] == "connector_failed"]
    assert kinds == ["not_found", "malformed_url"]


def test_a_second_pull_of_the_same_page_refreshes_its_file(
    connected: Path, notion: FakeNotion
) -> None:
    config = load_config(connected)
    project = _project(config)
    page = notion.add_page("Guests", markdown="old")
    pull_sources(project, enabled_connectors(config), [page])
    notion.set_markdown(page, "new")

    report = pull_sources(
        project, enabled_connectors(config), [f"https://x.notion.site/G-{page.replace('-', '')}"]
    )

    assert report.written == ["Guests.md"]
    assert sorted(p.name for p in project.resources_dir.glob("*.md")) == ["Guests.md"]
    assert (project.resources_dir / "Guests.md").read_text().endswith("\n\nnew\n")


def test_links_of_a_connector_that_is_off_are_told_and_never_fetched(
    write_config: Callable[..., Path], notion: FakeNotion
) -> None:
    config = load_config(write_config())
    project = _project(config)

    report = pull_sources(project, enabled_connectors(config), [f"https://notion.so/P-{HEX}"])

    assert report.written == []
    assert report.failures == [
        f"Notion link not pulled (https://notion.so/P-{HEX}): connectors.notion.enabled is "
        "false in config.yaml."
    ]
    assert notion.served == []


def test_cli_pull_shows_what_it_wrote_and_never_the_token(
    connected: Path, notion: FakeNotion, tmp_path: Path
) -> None:
    config = load_config(connected)
    project = _project(config)
    page = notion.add_page("Guest list", markdown="- Ana\n- Bo")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "COLUMNS": "200"}

    done = run_cli(env, connected, "pull", project.id, page, "https://example.com/x")

    assert done.returncode == 0, done.stderr
    assert "wrote resources/Guest list.md" in done.stdout
    assert "No connector takes 'https://example.com/x'" in done.stderr
    assert notion.token not in done.stdout + done.stderr
    assert notion.token not in (project.dir / "thoughtforge.log").read_text()

    notion.fail("pages.retrieve", 401)
    refused = run_cli(env, connected, "pull", project.id, page)
    assert refused.returncode == 1 and "nothing was pulled" in refused.stderr
    assert "Notion could not pull" in refused.stderr
    assert notion.token not in refused.stdout + refused.stderr


def test_doctor_tries_each_enabled_connector(
    connected: Path, notion: FakeNotion, tmp_path: Path
) -> None:
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "COLUMNS": "200"}
    notion.fail("users.me", 401)

    checked = run_cli(env, connected, "doctor")

    lines = checked.stdout.splitlines()
    assert any("connector notion" in line and "pulls will fail" in line for line in lines)
    assert any("connector google_drive" in line and "credentials work" in line for line in lines)
    assert notion.token not in checked.stdout + checked.stderr
