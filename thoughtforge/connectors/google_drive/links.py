"""Drive and Docs links: which are Drive's, the file or folder id in one, and the link a person
opens a file at."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from thoughtforge.connectors.google_drive.mime_types import (
    FOLDER,
    GOOGLE_DOC,
    GOOGLE_SHEET,
    GOOGLE_SLIDES,
)

HOSTS = ("docs.google.com", "drive.google.com")
_ID_CHARS = r"[A-Za-z0-9_-]"
_PATH_ID = re.compile(
    rf"^/(?:u/\d+/)?"
    rf"(?:(?:document|spreadsheets|presentation|drawings|forms|file)/(?:u/\d+/)?d/(?P<file>{_ID_CHARS}+)"
    rf"|drive/(?:u/\d+/)?(?:mobile/)?folders/(?P<folder>{_ID_CHARS}+))"
    r"(?:[/?#]|$)"
)
_BARE_ID = re.compile(rf"{_ID_CHARS}{{19,128}}")
_MIN_ID_LENGTH = 10
_NOTION_ID = re.compile(rf"(?:{_ID_CHARS}*-)?[0-9a-fA-F]{{32}}")


def drive_id(link: str) -> str | None:
    """The file or folder id in a Drive or Docs link, or a bare id; None when there is none.

    Links: `docs.google.com/{document,spreadsheets,presentation}/d/<id>/...`,
    `drive.google.com/file/d/<id>/...`, `drive.google.com/open?id=<id>` (and `uc?id=`),
    `drive.google.com/drive/[u/<n>/]folders/<id>`. A bare id is 19 to 128 characters of
    `A-Z a-z 0-9 _ -` and not a Notion id (32 hex digits, maybe in a UUID or after a slug)."""
    text = link.strip()
    if not is_link(text):
        return text if looks_like_drive_id(text) else None
    parts = urlsplit(with_scheme(text))
    match = _PATH_ID.match(parts.path)
    if match:
        found = match.group("file") or match.group("folder")
    else:
        found = (parse_qs(parts.query).get("id") or [""])[0]
    return found if re.fullmatch(f"{_ID_CHARS}{{{_MIN_ID_LENGTH},}}", found) else None


def document_link(file_id: str, mime_type: str) -> str:
    """Where a person opens the file: the source named in its resource file."""
    kinds = {GOOGLE_DOC: "document", GOOGLE_SHEET: "spreadsheets", GOOGLE_SLIDES: "presentation"}
    if mime_type in kinds:
        return f"https://docs.google.com/{kinds[mime_type]}/d/{file_id}/edit"
    if mime_type == FOLDER:
        return f"https://drive.google.com/drive/folders/{file_id}"
    return f"https://drive.google.com/file/d/{file_id}/view"


def is_link(text: str) -> bool:
    lowered = text.lower()
    return lowered.startswith(("http://", "https://")) or any(
        lowered.startswith(f"{host}/") for host in HOSTS
    )


def with_scheme(text: str) -> str:
    return text if "://" in text else f"https://{text}"


def looks_like_drive_id(text: str) -> bool:
    """Drive's shape, and not a Notion page id (32 hex digits, bare, as a UUID or after a
    title slug): those are the Notion connector's."""
    notion = _NOTION_ID.fullmatch(text) or re.fullmatch(r"[0-9a-fA-F]{32}", text.replace("-", ""))
    return bool(_BARE_ID.fullmatch(text)) and not notion
