"""Resource files by kind, in a real project directory; PDFs made with pypdf."""

from __future__ import annotations

import io
import struct
import time
import zlib
from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config, OpenAIAgentSpec
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.errors import ProjectFileError
from thoughtforge.phases.resources import read_resources


def pdf_with_text(text: str) -> bytes:
    """A one-page PDF whose content stream writes `text` in Helvetica."""
    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
    )
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())
    page.replace_contents(stream)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config, brain_dump=BRAIN_DUMP)


def test_text_markdown_code_and_pdf_are_read_and_hidden_files_are_not(
    project: Project, config: Config
) -> None:
    folder = project.resources_dir
    (folder / "notes.md").write_text("# Venue\nThe barn has a terrace. Ünïcode ok.\n")
    (folder / "seating.py").write_text("TABLES = 6\n")
    (folder / "notion").mkdir()
    (folder / "notion" / "page.txt").write_text("Caterer: Green Fork\n")
    (folder / "quote.pdf").write_bytes(pdf_with_text("Venue seats 80 people"))
    (folder / ".DS_Store").write_bytes(b"\x00\x01")

    bundle = read_resources(project, config, "demo")

    assert [(d.name, d.text) for d in bundle.documents] == [
        ("notes.md", "# Venue\nThe barn has a terrace. Ünïcode ok.\n"),
        ("notion/page.txt", "Caterer: Green Fork\n"),
        ("quote.pdf", "Venue seats 80 people"),
        ("seating.py", "TABLES = 6\n"),
    ]
    assert bundle.notices == [] and bundle.images == []
    text = bundle.as_prompt_text()
    assert "### quote.pdf\n\nVenue seats 80 people" in text
    assert "### seating.py\n\nTABLES = 6" in text
    assert ".gitkeep" not in text and ".DS_Store" not in text


def test_no_resources_is_none(project: Project, config: Config) -> None:
    bundle = read_resources(project, config, "demo")
    assert bundle.documents == [] and bundle.notices == []
    assert bundle.as_prompt_text() == "None"


def test_a_file_over_the_size_limit_is_skipped_with_the_exact_notice(
    project: Project, config: Config
) -> None:
    config.resources.max_file_bytes = 10
    (project.resources_dir / "big.txt").write_text("x" * 11)
    (project.resources_dir / "fits.txt").write_text("y" * 10)

    bundle = read_resources(project, config, "demo")

    assert bundle.notices == ["File 'big.txt' exceeds size limit and was skipped."]
    assert [d.name for d in bundle.documents] == ["fits.txt"]
    skipped = [e for e in read_events(project.dir) if e["event"] == "resource_skipped"]
    assert [(e["level"], e["file"]) for e in skipped] == [("warning", "big.txt")]


def test_corrupt_pdf_and_non_utf8_file_are_named_and_skipped(
    project: Project, config: Config
) -> None:
    (project.resources_dir / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf at all")
    (project.resources_dir / "latin1.txt").write_bytes("café au lait".encode("latin-1"))
    (project.resources_dir / "good.md").write_text("still used")

    bundle = read_resources(project, config, "demo")

    assert [d.name for d in bundle.documents] == ["good.md"]
    assert len(bundle.notices) == 2
    broken, latin1 = bundle.notices
    assert broken.startswith("File 'broken.pdf' could not be read (corrupt PDF")
    assert latin1.startswith("File 'latin1.txt' could not be read (not UTF-8 text")
    assert all(n.endswith("and was skipped.") for n in bundle.notices)


def test_images_go_to_a_vision_agent_and_are_skipped_otherwise(
    project: Project, config: Config
) -> None:
    image = project.resources_dir / "moodboard.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16)

    without = read_resources(project, config, "demo")
    assert without.images == [] and without.documents == []
    assert len(without.notices) == 1 and "'moodboard.png'" in without.notices[0]
    assert "no vision" in without.notices[0]

    config.agent("demo").vision = True
    with_vision = read_resources(project, config, "demo")
    assert with_vision.images == [image] and with_vision.notices == []
    assert str(image) in with_vision.as_prompt_text()


def test_a_link_out_of_resources_is_never_read(
    project: Project, config: Config, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("ssh key material")
    (project.resources_dir / "notes.md").write_text("Venue: the barn\n")
    (project.resources_dir / "innocent.txt").symlink_to(secret)
    (project.resources_dir / "again.md").symlink_to(project.resources_dir / "notes.md")

    bundle = read_resources(project, config, "demo")

    assert [d.name for d in bundle.documents] == ["notes.md"]
    assert "ssh key material" not in bundle.as_prompt_text()


def test_a_resources_folder_that_is_a_link_out_of_the_project_is_never_read(
    project: Project, config: Config, tmp_path: Path
) -> None:
    """An agent's `resources → /elsewhere` would have made every file there look inside."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "id_rsa").write_text("PRIVATE KEY\n")
    for leftover in project.resources_dir.iterdir():
        leftover.unlink()
    project.resources_dir.rmdir()
    project.resources_dir.symlink_to(elsewhere)
    with pytest.raises(ProjectFileError, match="is a symbolic link"):
        read_resources(project, config, "demo")


def _bomb_png(side: int) -> bytes:
    """A 1-bit PNG of `side` × `side` pixels, all black: tens of kB that decode to gigabytes."""
    row = b"\x00" + b"\x00" * (side // 8)
    pixels = zlib.compress(row * side, 9)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_an_image_bomb_is_skipped_with_a_note_before_it_is_decoded(
    project: Project, config: Config
) -> None:
    import PIL  # noqa: F401 - the bomb hurt only where Pillow could decode it

    bomb = _bomb_png(20_000)
    assert len(bomb) < 100_000
    (project.resources_dir / "poster.png").write_bytes(bomb)
    (project.resources_dir / "notes.md").write_text("the real notes\n")
    config.agents.available["eye"] = OpenAIAgentSpec.model_validate(
        {
            "type": "openai",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "tiny",
            "vision": True,
            "max_image_side": 2048,
        }
    )

    started = time.monotonic()
    bundle = read_resources(project, config, "eye")

    assert time.monotonic() - started < 5
    assert bundle.images == [] and [d.name for d in bundle.documents] == ["notes.md"]
    [note] = bundle.notices
    assert "'poster.png'" in note and "20,000 × 20,000 pixels" in note and "skipped" in note
