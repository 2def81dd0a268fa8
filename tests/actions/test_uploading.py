"""A dropped file lands in resources/ under a safe name, or is refused with nothing written."""

from __future__ import annotations

import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.vibe_kanban import free_port
from thoughtforge.actions.uploading import PartialUpload, UploadRefused, save_upload
from thoughtforge.config import Config, load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat
from thoughtforge.phases.resources import resource_files


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


_SERVE = """
import sys
from pathlib import Path

import uvicorn

from thoughtforge.config import load_config
from thoughtforge.web.app import create_app

config_file = Path(sys.argv[1])
app = create_app(config_file, load_config(config_file), token=sys.argv[3])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""
TOKEN = "upload-test-token-0123456789"


def test_a_workbench_killed_mid_upload_leaves_nothing_the_distillation_reads(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    """Before, kill -9 of `thoughtforge web` during a 300 MB upload left resources/notes.md at
    4 MB, which the next distillation would have read as the whole file."""
    port = free_port()
    config_file = write_config(resources={"max_file_bytes": 512 * 1024 * 1024}, web={"port": port})
    config = load_config(config_file)
    project = create_project(config, brain_dump="x")
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(config_file), str(port), TOKEN], cwd=tmp_path
    )
    try:
        _wait_until(lambda: _healthy(port), "the workbench to start")
        piece = b"x" * (1 << 20)

        def body() -> Iterator[bytes]:
            for _ in range(4):
                yield piece
            _wait_until(lambda: _received(project) >= 4 << 20, "the first 4 MB on disk")
            server.kill()
            server.wait(30)
            for _ in range(296):
                yield piece

        with pytest.raises(httpx.TransportError):
            httpx.post(
                f"http://127.0.0.1:{port}/projects/{project.id}/files",
                content=body(),
                headers={"X-ThoughtForge-Token": TOKEN, "X-File-Name": "notes.md"},
                timeout=60,
            )
    finally:
        server.kill()
        server.wait(30)
    assert server.returncode == -signal.SIGKILL
    assert resource_files(project.resources_dir) == []
    assert len(_parts(project)) == 1  # the only trace: hidden, never a resource

    saved = save_upload(config, project, "agenda.sh", b"echo not a program\n")
    assert _parts(project) == [], "the next upload removes the part no one writes"
    assert [p.name for p in resource_files(project.resources_dir)] == [saved] == ["agenda.sh"]
    assert stat.S_IMODE((project.resources_dir / saved).stat().st_mode) == 0o644


def test_a_part_being_written_is_never_taken_for_a_stale_one(
    project: Project, config: Config
) -> None:
    upload = PartialUpload(config, project)
    upload.write(b"half of it")
    assert save_upload(config, project, "other.md", b"whole") == "other.md"
    assert upload.part.exists(), "a living upload's part is left alone"
    assert upload.finish("first.md") == "first.md"
    assert (project.resources_dir / "first.md").read_bytes() == b"half of it"
    assert _parts(project) == []


def _parts(project: Project) -> list[Path]:
    return sorted(project.resources_dir.glob(".upload-*.part"))


def _received(project: Project) -> int:
    return sum(p.stat().st_size for p in _parts(project))


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _wait_until(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_thousand_uploads_eight_at_a_time_are_all_saved(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    """Before, 9 of 1,000 answered 500: one upload's clean-up removed another's part in the
    instant between its creation and its lock, and the owner's rename then found nothing."""
    port = free_port()
    config_file = write_config(web={"port": port})
    project = create_project(load_config(config_file), brain_dump="x")
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(config_file), str(port), TOKEN], cwd=tmp_path
    )
    try:
        _wait_until(lambda: _healthy(port), "the workbench to start")
        with httpx.Client(timeout=60) as client:

            def upload(number: int) -> int:
                return client.post(
                    f"http://127.0.0.1:{port}/projects/{project.id}/files",
                    content=f"notes {number}\n".encode(),
                    headers={"X-ThoughtForge-Token": TOKEN, "X-File-Name": f"n{number}.md"},
                ).status_code

            with ThreadPoolExecutor(8) as pool:
                codes = list(pool.map(upload, range(1000)))
    finally:
        server.kill()
        server.wait(30)
    assert {code: codes.count(code) for code in set(codes)} == {200: 1000}
    assert len(resource_files(project.resources_dir)) == 1000 and _parts(project) == []
