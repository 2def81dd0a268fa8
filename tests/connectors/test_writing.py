"""Pulled documents as files: names safe on every OS, a header naming the source, refreshes in
place, and no title that can write outside resources/."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from thoughtforge.connectors.document import Document
from thoughtforge.connectors.writing import pulled_sources, write_documents
from thoughtforge.core.safe_names import MAX_NAME
from thoughtforge.core.safe_names import safe_stem as file_name

NOW = datetime(2026, 11, 23, 17, 40, tzinfo=UTC)


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Wedding plan", "Wedding plan"),
        ("../../etc/passwd", "etc passwd"),
        ("..", "untitled"),
        ('a/b\\c:d*e?f"g<h>i|j', "a b c d e f g h i j"),
        ("tab\there\nnewline\x00nul", "tab here newline nul"),
        ("CON", "_CON"),
        ("lpt1.txt", "_lpt1.txt"),
        ("   .hidden.  ", "hidden"),
        ("", "untitled"),
        ("Café ☕ notes", "Café ☕ notes"),
    ],
)
def test_a_title_becomes_a_safe_file_name(title: str, name: str) -> None:
    assert file_name(title) == name


def test_a_long_title_is_cut() -> None:
    assert len(file_name("x" * 500)) == MAX_NAME


def _doc(title: str, url: str, text: str = "Body") -> Document:
    return Document(title=title, source_url=url, text=text)


def test_a_hostile_title_lands_inside_resources(tmp_path: Path) -> None:
    resources = tmp_path / "project" / "resources"
    [path] = write_documents(resources, "notion", [_doc("../../etc/passwd", "u1")], NOW)
    assert path.parent == resources.resolve()
    assert path.name == "etc passwd.md"
    assert not (tmp_path / "etc").exists()


def test_each_file_names_its_source_and_a_second_pull_refreshes_it(tmp_path: Path) -> None:
    resources = tmp_path / "resources"
    [first] = write_documents(resources, "notion", [_doc("Plan", "https://n/1", "old")], NOW)
    assert first.read_text() == (
        "> Pulled from https://n/1 by ThoughtForge (notion) on 2026-11-23 17:40 UTC.\n\nold\n"
    )
    [again] = write_documents(
        resources, "notion", [_doc("Plan renamed", "https://n/1", "new")], NOW
    )
    assert again == first and first.read_text().endswith("\n\nnew\n")
    assert pulled_sources(resources) == {"https://n/1": first}


def test_same_titles_from_other_sources_and_the_humans_own_file_are_kept(tmp_path: Path) -> None:
    resources = tmp_path / "resources"
    resources.mkdir()
    (resources / "Plan.md").write_text("the human's own notes\n")
    paths = write_documents(
        resources, "google_drive", [_doc("Plan", "https://d/1"), _doc("Plan", "https://d/2")], NOW
    )
    assert [p.name for p in paths] == ["Plan (2).md", "Plan (3).md"]
    assert (resources / "Plan.md").read_text() == "the human's own notes\n"
