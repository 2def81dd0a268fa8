"""The Google Drive connector: a Drive or Docs link (or a bare id) in, the file, or every file
of a folder, as Markdown out; see the package's docstring for what each kind becomes."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from google.oauth2 import service_account

from thoughtforge.config import GoogleDriveConfig
from thoughtforge.connectors.document import Document, Fetched
from thoughtforge.connectors.google_drive.client import DriveClient
from thoughtforge.connectors.google_drive.failures import Failure, Skip
from thoughtforge.connectors.google_drive.file_text import (
    decode,
    fenced,
    pdf_text,
    without_embedded_images,
)
from thoughtforge.connectors.google_drive.links import (
    HOSTS,
    document_link,
    drive_id,
    is_link,
    looks_like_drive_id,
    with_scheme,
)
from thoughtforge.connectors.google_drive.mime_types import (
    EXPORTS,
    FOLDER,
    GOOGLE_DOC,
    GOOGLE_SHEET,
    PDF,
    SHORTCUT,
)
from thoughtforge.errors import ConnectorError

NAME = "google_drive"
MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024
"""Uploaded files bigger than this (by the `size` Drive reports) are not downloaded."""
MAX_FOLDER_FILES = 100
"""The most files pulled from one folder; the rest are named as left out."""
FILE_FIELDS = "id,name,mimeType,size,shortcutDetails(targetId,targetMimeType)"
LIST_FIELDS = f"nextPageToken,files({FILE_FIELDS})"
TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".text", ".csv")


class GoogleDriveConnector:
    """Pulls Drive links (see `drive_id`) as `Document`s; every failure is a `ConnectorError`."""

    name = NAME

    def __init__(self, config: GoogleDriveConfig) -> None:
        self._config = config
        self._client = DriveClient(config)

    # -- the Connector protocol ------------------------------------------------------------

    def matches(self, url: str) -> bool:
        text = url.strip()
        if is_link(text):
            host = (urlsplit(with_scheme(text)).hostname or "").lower()
            return any(host == h or host.endswith(f".{h}") for h in HOSTS)
        return looks_like_drive_id(text)

    def fetch(self, url: str) -> Fetched:
        file_id = drive_id(url)
        if file_id is None:
            detail = "no Google Drive file or folder id in it"
            if "/d/e/" in url:
                detail = "a published-to-the-web link has no file id; share the file's own link"
            raise ConnectorError(NAME, url, "malformed_url", detail)
        try:
            meta = self._client.execute(
                self._client.service()
                .files()
                .get(fileId=file_id, fields=FILE_FIELDS, supportsAllDrives=True)
            )
            try:
                meta = self._follow_shortcut(meta)
                if meta.get("mimeType") == FOLDER:
                    return self._folder(meta)
                return Fetched(documents=[self._document(meta)])
            except Skip as skip:
                return Fetched(skipped=[str(skip)])
            except Failure as failure:
                if failure.kind == "too_large":
                    failure.detail = f'"{meta.get("name")}" is {failure.detail}'
                raise
        except Failure as failure:
            raise ConnectorError(NAME, url, failure.kind, failure.detail, failure.status) from None

    def check(self) -> str:
        """Whether the credentials work: `about.get(fields="user")`, named by its account."""
        resource = str(self._config.credentials_path or "credentials_path")
        try:
            about = self._client.execute(self._client.service().about().get(fields="user"))
        except Failure as failure:
            raise ConnectorError(
                NAME, resource, failure.kind, failure.detail, failure.status
            ) from None
        email = (about.get("user") or {}).get("emailAddress") or "unknown address"
        kind = (
            "service account"
            if isinstance(self._client.credentials, service_account.Credentials)
            else "user"
        )
        return f"credentials work ({kind} {email})"

    # -- one file or a folder --------------------------------------------------------------

    def _document(self, meta: dict[str, Any]) -> Document:
        """One file as Markdown; `Skip` if it has none, `Failure` if the API refuses."""
        file_id, mime_type = meta["id"], meta.get("mimeType", "")
        name = meta.get("name") or file_id
        files = self._client.service().files()
        if mime_type in EXPORTS:
            text = decode(
                self._client.execute(files.export(fileId=file_id, mimeType=EXPORTS[mime_type]))
            )
            if mime_type == GOOGLE_DOC:
                text = without_embedded_images(text)
            if mime_type == GOOGLE_SHEET:
                text = "Exported from Google Sheets (first sheet only).\n\n" + fenced(text, "csv")
        elif mime_type == PDF or name.lower().endswith(".pdf"):
            self._check_size(meta)
            text = pdf_text(self._client.execute(files.get_media(fileId=file_id)), name)
        elif mime_type.startswith("text/") or name.lower().endswith(TEXT_SUFFIXES):
            self._check_size(meta)
            text = decode(self._client.execute(files.get_media(fileId=file_id)))
            if mime_type == "text/csv" or name.lower().endswith(".csv"):
                text = fenced(text, "csv")
        elif mime_type.startswith("application/vnd.google-apps."):
            kind = mime_type.rsplit(".", 1)[-1]
            raise Skip(f'"{name}" (a Google {kind} file: Drive has no text export for it)')
        else:
            raise Skip(f'"{name}" ({mime_type or "unknown type"}: not a text, PDF or Docs file)')
        return Document(title=name, source_url=document_link(file_id, mime_type), text=text)

    def _folder(self, folder: dict[str, Any]) -> Fetched:
        files = self._client.service().files()
        request = files.list(
            q=f"'{folder['id']}' in parents and trashed=false",
            fields=LIST_FIELDS,
            pageSize=100,
            orderBy="name",
            supportsAllDrives=True,
            includeItemsFromAllDrives=True,
        )
        items: list[dict[str, Any]] = []
        while request is not None:
            page = self._client.execute(request)
            items += page.get("files", [])
            request = files.list_next(request, page)
        fetched = Fetched()
        for item in items[:MAX_FOLDER_FILES]:
            name = item.get("name") or item.get("id", "?")
            try:
                meta = self._follow_shortcut(item)
                if meta.get("mimeType") == FOLDER:
                    fetched.skipped.append(f'"{name}" (a subfolder: pull it by its own link)')
                    continue
                fetched.documents.append(self._document(meta))
            except Skip as skip:
                fetched.skipped.append(str(skip))
            except Failure as failure:
                if failure.kind in ("auth", "rate_limited"):
                    raise
                fetched.skipped.append(f'"{name}" ({failure.detail})')
        if len(items) > MAX_FOLDER_FILES:
            fetched.skipped.append(
                f'{len(items) - MAX_FOLDER_FILES} more files in "{folder.get("name")}" (at most '
                f"{MAX_FOLDER_FILES} are pulled from one folder)"
            )
        return fetched

    def _follow_shortcut(self, meta: dict[str, Any]) -> dict[str, Any]:
        if meta.get("mimeType") != SHORTCUT:
            return meta
        target = (meta.get("shortcutDetails") or {}).get("targetId")
        if not target:
            raise Skip(f'"{meta.get("name")}" (a shortcut without a target)')
        followed: dict[str, Any] = self._client.execute(
            self._client.service()
            .files()
            .get(fileId=target, fields=FILE_FIELDS, supportsAllDrives=True)
        )
        return followed

    def _check_size(self, meta: dict[str, Any]) -> None:
        try:
            size = int(meta.get("size") or 0)
        except ValueError:
            size = 0
        if size > MAX_DOWNLOAD_BYTES:
            limit = MAX_DOWNLOAD_BYTES // (1024 * 1024)
            raise Failure("too_large", f"{size / 2**20:.1f} MB, over the {limit} MB download limit")
