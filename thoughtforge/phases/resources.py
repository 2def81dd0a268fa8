"""The files the human dropped into `resources/`, read by kind for the Phase 1 distillation.

A file that cannot be used never stops the distillation: it is skipped, logged, and a notice naming
it is returned for the chat. Kinds: PDFs are read with pypdf, images are passed on only to an agent
with `vision: true`, and everything else is read as UTF-8 text (text, Markdown, code); a file that
is not valid UTF-8 is treated as unreadable (a binary or corrupted format). Hidden files such as
`.gitkeep` are not resources.
"""

from __future__ import annotations

import io
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.adapters.agents.image_parts import ImageRefused, image_type, load_image
from thoughtforge.bounded_input import InputRefused, read_capped
from thoughtforge.config import AgentSpec, Config, OpenAIAgentSpec
from thoughtforge.core.links import refuse_links
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


class ResourceDocument(BaseModel):
    name: str
    text: str


class ResourceBundle(BaseModel):
    documents: list[ResourceDocument] = []
    images: list[Path] = []
    notices: list[str] = []

    def as_prompt_text(self, attached: bool = False) -> str:
        """Each document under its own heading; images by path, for agents that can open them,
        or by name when they go with the prompt (an HTTP agent that can see)."""
        parts = [f"### {doc.name}\n\n{doc.text.strip()}" for doc in self.documents]
        if self.images and attached:
            listing = "\n".join(f"- {path.name}" for path in self.images)
            parts.append(f"### Images (attached to this message, in this order)\n\n{listing}")
        elif self.images:
            listing = "\n".join(f"- {path}" for path in self.images)
            parts.append(f"### Images (open these files to see them)\n\n{listing}")
        return "\n\n".join(parts) or "None"


class _Skipped(Exception):
    """Why one resource file cannot be used, worded for the human."""


def read_resources(project: Project, config: Config, agent: str) -> ResourceBundle:
    """Every usable file in `resources/`, and a notice for each one that is not."""
    spec = config.agent(agent)
    bundle = ResourceBundle()
    for path in resource_files(project.resources_dir):
        name = path.relative_to(project.resources_dir).as_posix()
        try:
            read = _read_one(path, name, spec, config.resources.max_file_bytes)
        except _Skipped as skipped:
            log_event(project.dir, "resource_skipped", level="warning", file=name, why=str(skipped))
            bundle.notices.append(str(skipped))
            continue
        if isinstance(read, Path):
            bundle.images.append(read)
        else:
            bundle.documents.append(read)
    return bundle


def resource_files(folder: Path) -> list[Path]:
    """The files of `folder`, sorted: hidden ones skipped, a symlink only when it resolves
    inside the folder (a link to `/etc/passwd` is never read), and each file once, by its own
    name rather than a link's. The folder itself being a link is refused (`ProjectFileError`):
    everything behind it would count as inside."""
    refuse_links(folder)
    if not folder.is_dir():
        return []
    root = folder.resolve()
    found: dict[Path, Path] = {}
    for path in sorted(folder.rglob("*"), key=lambda p: (p.is_symlink(), p)):
        if (
            not any(part.startswith(".") for part in path.relative_to(folder).parts)
            and path.is_file()
            and path.resolve().is_relative_to(root)
        ):
            found.setdefault(path.resolve(), path)
    return sorted(found.values())


def _read_one(path: Path, name: str, spec: AgentSpec, max_bytes: int) -> ResourceDocument | Path:
    """A document with its text, or the path of an image for a vision agent (an image by its
    bytes, and one an HTTP agent can be sent)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _unreadable(name, str(exc.strerror or exc)) from None
    if size > max_bytes:
        raise _Skipped(f"File '{name}' exceeds size limit and was skipped.")
    suffix = path.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        if not spec.vision:
            raise _Skipped(
                f"File '{name}' is an image and the agent cannot read images (no vision), "
                "so it was skipped."
            )
        try:
            if isinstance(spec, OpenAIAgentSpec):
                load_image(path, name, spec)
            elif image_type(read_capped(path, max_bytes, "resource")[:16]) is None:
                raise ImageRefused(f"File '{name}' is not a PNG, JPEG, GIF or WebP image")
        except ImageRefused as refused:
            raise _Skipped(f"{refused} and was skipped.") from None
        except InputRefused as exc:
            raise _unreadable(name, exc.reason) from None
        except OSError as exc:
            raise _unreadable(name, str(exc.strerror or exc)) from None
        return path
    try:
        data = read_capped(path, max_bytes, "resource")
    except InputRefused as exc:
        raise _unreadable(name, exc.reason) from None
    text = _pdf_text(data, name) if suffix == ".pdf" else _utf8_text(data, name)
    return ResourceDocument(name=name, text=text)


def _pdf_text(data: bytes, name: str) -> str:
    from pypdf import PdfReader  # slow to import (bench/bench_import_costs.py): only for a PDF

    try:
        pages = [page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages]
    except Exception as exc:  # noqa: BLE001 - pypdf raises many exception types on corrupt input
        raise _unreadable(name, f"corrupt PDF: {exc}") from None
    text = "\n\n".join(page.strip() for page in pages).strip()
    if not text:
        raise _Skipped(f"File '{name}' has no extractable text (a scanned PDF?) and was skipped.")
    return text


def _utf8_text(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _unreadable(name, "not UTF-8 text: an unsupported or corrupted format") from None
    if "\x00" in text:
        raise _unreadable(name, "binary content: an unsupported format")
    return text


def _unreadable(name: str, why: str) -> _Skipped:
    return _Skipped(f"File '{name}' could not be read ({why}) and was skipped.")
