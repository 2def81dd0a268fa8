"""The text of a Drive file's bytes or export: UTF-8 text, CSV in a fence, a Docs export
without its embedded images, a PDF's extracted text."""

from __future__ import annotations

import io
import re

from pypdf import PdfReader

from thoughtforge.connectors.google_drive.failures import Skip

_DATA_URI_DEFINITION = re.compile(r"^\[([^\]\n]+)\]:[ \t]*<?data:[^\s>]*>?[ \t]*\n?", re.M)
_INLINE_DATA_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(<?data:[^)\s>]*>?\)")
_REFERENCE_IMAGE = re.compile(r"!\[([^\]\n]*)\]\[([^\]\n]+)\]")


def decode(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8-sig", errors="replace")


def without_embedded_images(markdown: str) -> str:
    """A Docs Markdown export with its images, which it embeds as base64 `data:` URIs (often
    megabytes of them), reduced to `[image]` markers: only the text is of use downstream."""
    defined = {label.lower() for label in _DATA_URI_DEFINITION.findall(markdown)}
    text = _DATA_URI_DEFINITION.sub("", markdown)
    text = _INLINE_DATA_IMAGE.sub(lambda m: f"[image: {m[1]}]" if m[1] else "[image]", text)

    def reference(match: re.Match[str]) -> str:
        if match[2].lower() not in defined:
            return match[0]
        return f"[image: {match[1]}]" if match[1] else "[image]"

    return _REFERENCE_IMAGE.sub(reference, text)


def fenced(text: str, language: str) -> str:
    """`text` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}\n"


def pdf_text(data: bytes, name: str) -> str:
    """The text of every page; `Skip` for a PDF with none, a locked or a damaged one."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise Skip(f'"{name}" (a password-protected PDF)')
        pages = [page.extract_text() or "" for page in reader.pages]
    except Skip:
        raise
    except Exception:  # noqa: BLE001 - pypdf raises many kinds of error on a damaged file
        raise Skip(f'"{name}" (a PDF that cannot be read)') from None
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise Skip(f'"{name}" (a PDF without a text layer, such as a scan)')
    return text + "\n"
