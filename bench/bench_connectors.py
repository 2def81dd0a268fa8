"""What a pull costs around the network, with the real clients against the local fake APIs.

- `notion_markdown`: one page through the Markdown endpoint (2 requests).
- `notion_blocks_1000`: a 1,000-block page through the block fallback (10 pages of children at
  100 per page, plus the refused Markdown call).
- `drive_folder_50`: a folder of 50 Google Docs, listed over pages and exported one by one.
- `write_50`: writing 50 pulled documents into `resources/` (names, headers, refresh lookup).

Run: pytest bench/bench_connectors.py --benchmark-only -p no:cacheprovider -o addopts=''
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tests.fake_google import GOOGLE_DOC, FakeGoogle
from tests.fake_notion import FakeNotion, paragraph
from thoughtforge.config import GoogleDriveConfig, NotionConfig
from thoughtforge.connectors.document import Document
from thoughtforge.connectors.google_drive import GoogleDriveConnector
from thoughtforge.connectors.notion import NotionConnector
from thoughtforge.connectors.writing import write_documents


@pytest.fixture(scope="module")
def notion() -> Iterator[FakeNotion]:
    with FakeNotion() as fake:
        yield fake


def _notion(fake: FakeNotion) -> NotionConnector:
    return NotionConnector(NotionConfig(enabled=True, token=fake.token, base_url=fake.url))


def test_notion_markdown(benchmark: BenchmarkFixture, notion: FakeNotion) -> None:
    page = notion.add_page("Plan", markdown="# Plan\n\n" + "- item\n" * 200)
    fetched = benchmark(lambda: _notion(notion).fetch(page))
    assert fetched.documents[0].title == "Plan"


def test_notion_blocks_1000(benchmark: BenchmarkFixture, notion: FakeNotion) -> None:
    page = notion.add_page("Long", blocks=[paragraph(f"line {n}") for n in range(1000)])
    notion.fail("pages.markdown", 403, target=page)
    fetched = benchmark.pedantic(lambda: _notion(notion).fetch(page), rounds=5, iterations=1)
    assert fetched.documents[0].text.count("line ") == 1000


def test_drive_folder_50(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    with FakeGoogle() as google:
        google.add_folder("folder_0123456789abcdefghij", "Notes")
        for n in range(50):
            google.add_file(
                f"doc_{n:03d}_0123456789abcdef",
                f"Doc {n}",
                GOOGLE_DOC,
                f"# Doc {n}",
                parent="folder_0123456789abcdefghij",
            )
        config = GoogleDriveConfig(
            enabled=True,
            credentials_path=google.service_account_file(tmp_path),
            base_url=google.url,
        )
        connector = GoogleDriveConnector(config)
        fetched = benchmark.pedantic(
            lambda: connector.fetch(
                "https://drive.google.com/drive/folders/folder_0123456789abcdefghij"
            ),
            rounds=3,
            iterations=1,
        )
    assert len(fetched.documents) == 50


def test_write_50(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    documents = [
        Document(title=f"Doc {n}", source_url=f"https://d/{n}", text="x" * 5000) for n in range(50)
    ]
    now = datetime.now(UTC)
    written = benchmark(
        lambda: write_documents(tmp_path / "resources", "google_drive", documents, now)
    )
    assert len(written) == 50
