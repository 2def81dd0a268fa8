"""A dropped file lands in resources/ under a safe name, or is refused with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.config import Config
from thoughtforge.core import Project, create_project, read_chat
from thoughtforge.web.uploads import UploadRefused, save_upload


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config, brain_dump="x")


def _resources(project: Project) -> set[str]:
    return {p.name for p in project.resources_dir.iterdir()} - {".gitkeep"}


@pytest.mark.parametrize(
    ("name", "saved"),
    [
        ("notes.md", "notes.md"),
        ("../../etc/passwd", "passwd"),
        ("/etc/shadow", "shadow"),
        ("..\\..\\boot.ini", "boot.ini"),
        ("a\x00b.txt", "ab.txt"),
        ("..", "untitled"),
        ("con.txt", "_con.txt"),
        ("<script>x</script>.md", "script.md"),
        ("report.tar.gz", "report.tar.gz"),
        ("weird.s uffix", "weird.s uffix"),
    ],
)
def test_names_are_made_safe_and_stay_in_resources(
    project: Project, config: Config, name: str, saved: str
) -> None:
    written = save_upload(config, project, name, b"content")
    assert written == saved
    assert (project.resources_dir / written).read_bytes() == b"content"
    assert (project.resources_dir / written).resolve().parent == project.resources_dir.resolve()
    assert "/" not in written and "\x00" not in written and "<" not in written


def test_a_name_taken_gets_a_number_and_never_overwrites(project: Project, config: Config) -> None:
    assert save_upload(config, project, "notes.md", b"one") == "notes.md"
    assert save_upload(config, project, "notes.md", b"two") == "notes (2).md"
    assert (project.resources_dir / "notes.md").read_bytes() == b"one"


def test_an_oversize_file_is_refused_with_the_limit_and_nothing_written(
    project: Project, config: Config
) -> None:
    config.resources.max_file_bytes = 10
    with pytest.raises(UploadRefused, match=r"resources.max_file_bytes is 10\. Nothing was saved"):
        save_upload(config, project, "big.md", b"x" * 11)
    assert _resources(project) == set()


def test_a_resources_folder_replaced_by_a_symlink_is_refused(
    project: Project, config: Config, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project.resources_dir / ".gitkeep").unlink()
    project.resources_dir.rmdir()
    project.resources_dir.symlink_to(outside)
    with pytest.raises(UploadRefused, match="not a plain folder"):
        save_upload(config, project, "notes.md", b"x")
    assert list(outside.iterdir()) == []


def test_a_symlink_planted_under_the_name_is_never_followed(
    project: Project, config: Config, tmp_path: Path
) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("keep me")
    (project.resources_dir / "notes.md").symlink_to(target)
    assert save_upload(config, project, "notes.md", b"new") == "notes (2).md"
    assert target.read_text() == "keep me"


def test_the_chat_says_the_file_was_added(project: Project, config: Config) -> None:
    save_upload(config, project, "venue.pdf", b"%PDF")
    assert read_chat(project.dir)[-1].content == (
        "File 'venue.pdf' added to resources/; the next distillation reads it."
    )
