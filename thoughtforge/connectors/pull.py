"""Pull a list of links into a project's `resources/`: each by the connector that takes it.

A failed source never stops the others, nor the phase: each failure becomes one line for the
human (naming the connector and the resource, as the spec asks) and a warning in the project log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from pydantic import BaseModel

from thoughtforge.connectors.document import Connector, Fetched
from thoughtforge.connectors.sources import unique
from thoughtforge.connectors.writing import write_documents
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import utc_now
from thoughtforge.errors import ConnectorError

Fetch = Callable[[Connector, str], Fetched]
"""How one link is fetched: directly, or (in a flow) as a Prefect task that retries."""

CONNECTOR_HOSTS = {
    "notion": ("notion.so", "notion.site", "notion.com"),
    "google_drive": ("docs.google.com", "drive.google.com"),
}
LABELS = {"notion": "Notion", "google_drive": "Google Drive"}


class PullReport(BaseModel):
    written: list[str] = []
    skipped: list[str] = []
    failures: list[str] = []

    def messages(self) -> list[str]:
        """What the human is told in the chat."""
        pulled = [f"Pulled into resources/: {', '.join(self.written)}."] if self.written else []
        return pulled + self.notes()

    def notes(self) -> list[str]:
        """What was left out or failed."""
        return [f"Left out: {reason}." for reason in self.skipped] + self.failures


def fetch_directly(connector: Connector, url: str) -> Fetched:
    return connector.fetch(url)


def pull_sources(
    project: Project,
    connectors: list[Connector],
    urls: Iterable[str],
    fetch: Fetch = fetch_directly,
    *,
    explicit: bool = False,
) -> PullReport:
    """Pull every link a connector takes; links for a connector that is off are told, not tried,
    and so (when the links were given `explicit`ly, not found in a chat) is any other link."""
    report = PullReport()
    for url in unique(urls):
        connector = next((c for c in connectors if c.matches(url)), None)
        if connector is None:
            if not _not_enabled(project, url, connectors, report) and explicit:
                report.failures.append(
                    f"No connector takes '{url}': it is not a Notion or Google Drive link."
                )
            continue
        try:
            fetched = fetch(connector, url)
            paths = write_documents(
                project.resources_dir, connector.name, fetched.documents, utc_now()
            )
        except ConnectorError as exc:
            _failed(project, exc, report)
            continue
        except (OSError, ValueError) as exc:
            _failed(project, ConnectorError(connector.name, url, "write", str(exc)), report)
            continue
        report.written += [path.name for path in paths]
        report.skipped += fetched.skipped
        log_event(
            project.dir,
            "connector_pulled",
            connector=connector.name,
            source=url,
            files=[path.name for path in paths],
            skipped=fetched.skipped,
        )
    return report


def _failed(project: Project, exc: ConnectorError, report: PullReport) -> None:
    log_event(
        project.dir,
        "connector_failed",
        level="warning",
        connector=exc.connector,
        source=exc.resource,
        kind=exc.kind,
        error=str(exc),
    )
    if exc.kind == "malformed_url":
        report.failures.append(
            f"Could not parse URL: '{exc.resource}'. Please provide a valid Notion page URL or "
            "Google Drive document link."
        )
        return
    label = LABELS.get(exc.connector, exc.connector)
    report.failures.append(
        f"{label} could not pull {exc.resource}: {exc.detail}. Going on with the other inputs."
    )


def _not_enabled(
    project: Project, url: str, connectors: list[Connector], report: PullReport
) -> bool:
    """Whether `url` is a Notion or Drive link whose connector is off (and then it is told)."""
    host = (urlsplit(url).hostname or "").lower()
    for name, hosts in CONNECTOR_HOSTS.items():
        if not any(host == h or host.endswith(f".{h}") for h in hosts):
            continue
        if any(c.name == name for c in connectors):
            return False  # its connector is on and refused it as not a page
        log_event(project.dir, "connector_disabled", level="warning", connector=name, source=url)
        report.failures.append(
            f"{LABELS[name]} link not pulled ({url}): connectors.{name}.enabled is false in "
            "config.yaml."
        )
        return True
    return False
