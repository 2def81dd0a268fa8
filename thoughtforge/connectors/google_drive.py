"""Google Drive: Docs, Sheets, Slides, uploaded text files and PDFs, and folders of them, pulled
as Markdown through the Drive v3 API (`google-api-python-client`, read-only scope).

What each kind of file becomes:

* a Google Doc: its Markdown export (`files.export`, `text/markdown`), with the images it
  embeds as base64 `data:` URIs reduced to `[image]` markers;
* a Google Sheet: its CSV export (Drive exports the first sheet only) in a ```csv fence;
* Google Slides: the plain-text export;
* an uploaded `.md`, `.txt` or other `text/*` file: its bytes as UTF-8 (a `.csv` in a fence);
* an uploaded PDF: the text pypdf extracts from it (none, as in a scan: left out);
* a folder: every file directly in it (all pages of `files.list`), each as above. A subfolder,
  a file of a type without a text form, one over the size limits or one that fails on its own
  is left out and named in `Fetched.skipped`; a refused credential or a rate limit stops the
  whole folder, since every other file would fail the same way.

Drive refuses to export more than 10 MB (403 `exportSizeLimitExceeded`); uploaded files over
`MAX_DOWNLOAD_BYTES` (by the `size` Drive reports) are not downloaded. Either is `too_large` for
a file pulled on its own, a skipped entry in a folder.

`credentials_path` is a service-account key or an authorized-user token file, told apart by its
`type`; each is exchanged for an access token at the file's own `token_uri`. `base_url` is the
API root in place of `https://www.googleapis.com/` (a proxy, or the tests' local server). Nothing
secret (the key, client secret, refresh token, access token or signed assertion) is put in an
error or a log line: details are built here from the API's own error message, scrubbed of them.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import google_auth_httplib2
import httplib2
from cryptography.exceptions import UnsupportedAlgorithm
from google.auth import exceptions as auth_exceptions
from google.oauth2 import credentials as user_credentials
from google.oauth2 import service_account
from googleapiclient import discovery
from googleapiclient.errors import HttpError
from pypdf import PdfReader

from thoughtforge.config import GoogleDriveConfig
from thoughtforge.connectors.document import Document, Fetched
from thoughtforge.errors import ConnectorError

NAME = "google_drive"
SCOPES = ["https://www.googleapis.com/auth/drive.readonly"]

GOOGLE_DOC = "application/vnd.google-apps.document"
GOOGLE_SHEET = "application/vnd.google-apps.spreadsheet"
GOOGLE_SLIDES = "application/vnd.google-apps.presentation"
FOLDER = "application/vnd.google-apps.folder"
SHORTCUT = "application/vnd.google-apps.shortcut"
PDF = "application/pdf"
EXPORTS = {GOOGLE_DOC: "text/markdown", GOOGLE_SHEET: "text/csv", GOOGLE_SLIDES: "text/plain"}
"""The export each Docs Editors type is pulled as."""

MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024
"""Uploaded files bigger than this (by the `size` Drive reports) are not downloaded."""
MAX_FOLDER_FILES = 100
"""The most files pulled from one folder; the rest are named as left out."""
EXPORT_LIMIT = "over the Drive API's 10 MB export limit"

FILE_FIELDS = "id,name,mimeType,size,shortcutDetails(targetId,targetMimeType)"
LIST_FIELDS = f"nextPageToken,files({FILE_FIELDS})"
TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".text", ".csv")

_HOSTS = ("docs.google.com", "drive.google.com")
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
_RATE_REASONS = frozenset(
    {"rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded"}
)
_SETUP_REASONS = frozenset({"accessNotConfigured", "insufficientPermissions", "SERVICE_DISABLED"})
_MAX_DETAIL = 300
_DATA_URI_DEFINITION = re.compile(r"^\[([^\]\n]+)\]:[ \t]*<?data:[^\s>]*>?[ \t]*\n?", re.M)
_INLINE_DATA_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(<?data:[^)\s>]*>?\)")
_REFERENCE_IMAGE = re.compile(r"!\[([^\]\n]*)\]\[([^\]\n]+)\]")


def drive_id(link: str) -> str | None:
    """The file or folder id in a Drive or Docs link, or a bare id; None when there is none.

    Links: `docs.google.com/{document,spreadsheets,presentation}/d/<id>/...`,
    `drive.google.com/file/d/<id>/...`, `drive.google.com/open?id=<id>` (and `uc?id=`),
    `drive.google.com/drive/[u/<n>/]folders/<id>`. A bare id is 19 to 128 characters of
    `A-Z a-z 0-9 _ -` and not a Notion id (32 hex digits, maybe in a UUID or after a slug)."""
    text = link.strip()
    if not _is_link(text):
        return text if _looks_like_drive_id(text) else None
    parts = urlsplit(_with_scheme(text))
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


class _Failure(Exception):
    """A failure of one call, before it is tied to the resource the caller asked for."""

    def __init__(self, kind: str, detail: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status


class _Skip(Exception):
    """A file with no text to pull: why, as one entry of `Fetched.skipped`."""


class GoogleDriveConnector:
    """Pulls Drive links (see `drive_id`) as `Document`s; every failure is a `ConnectorError`."""

    name = NAME

    def __init__(self, config: GoogleDriveConfig) -> None:
        self._config = config
        self._drive: Any = None
        self._credentials: Any = None
        self._account = "the account of the credentials"
        self._token_uri = "the token endpoint"
        self._secrets: list[str] = []

    # -- the Connector protocol ------------------------------------------------------------

    def matches(self, url: str) -> bool:
        text = url.strip()
        if _is_link(text):
            host = (urlsplit(_with_scheme(text)).hostname or "").lower()
            return any(host == h or host.endswith(f".{h}") for h in _HOSTS)
        return _looks_like_drive_id(text)

    def fetch(self, url: str) -> Fetched:
        file_id = drive_id(url)
        if file_id is None:
            detail = "no Google Drive file or folder id in it"
            if "/d/e/" in url:
                detail = "a published-to-the-web link has no file id; share the file's own link"
            raise ConnectorError(NAME, url, "malformed_url", detail)
        try:
            meta = self._execute(
                self._service()
                .files()
                .get(fileId=file_id, fields=FILE_FIELDS, supportsAllDrives=True)
            )
            try:
                meta = self._follow_shortcut(meta)
                if meta.get("mimeType") == FOLDER:
                    return self._folder(meta)
                return Fetched(documents=[self._document(meta)])
            except _Skip as skip:
                return Fetched(skipped=[str(skip)])
            except _Failure as failure:
                if failure.kind == "too_large":
                    failure.detail = f'"{meta.get("name")}" is {failure.detail}'
                raise
        except _Failure as failure:
            raise ConnectorError(NAME, url, failure.kind, failure.detail, failure.status) from None

    def check(self) -> str:
        """Whether the credentials work: `about.get(fields="user")`, named by its account."""
        resource = str(self._config.credentials_path or "credentials_path")
        try:
            about = self._execute(self._service().about().get(fields="user"))
        except _Failure as failure:
            raise ConnectorError(
                NAME, resource, failure.kind, failure.detail, failure.status
            ) from None
        email = (about.get("user") or {}).get("emailAddress") or "unknown address"
        kind = (
            "service account"
            if isinstance(self._credentials, service_account.Credentials)
            else "user"
        )
        return f"credentials work ({kind} {email})"

    # -- one file or a folder --------------------------------------------------------------

    def _document(self, meta: dict[str, Any]) -> Document:
        """One file as Markdown; `_Skip` if it has none, `_Failure` if the API refuses."""
        file_id, mime_type = meta["id"], meta.get("mimeType", "")
        name = meta.get("name") or file_id
        files = self._service().files()
        if mime_type in EXPORTS:
            text = _decode(self._execute(files.export(fileId=file_id, mimeType=EXPORTS[mime_type])))
            if mime_type == GOOGLE_DOC:
                text = _without_embedded_images(text)
            if mime_type == GOOGLE_SHEET:
                text = "Exported from Google Sheets (first sheet only).\n\n" + _fenced(text, "csv")
        elif mime_type == PDF or name.lower().endswith(".pdf"):
            self._check_size(meta)
            text = _pdf_text(self._execute(files.get_media(fileId=file_id)), name)
        elif mime_type.startswith("text/") or name.lower().endswith(TEXT_SUFFIXES):
            self._check_size(meta)
            text = _decode(self._execute(files.get_media(fileId=file_id)))
            if mime_type == "text/csv" or name.lower().endswith(".csv"):
                text = _fenced(text, "csv")
        elif mime_type.startswith("application/vnd.google-apps."):
            kind = mime_type.rsplit(".", 1)[-1]
            raise _Skip(f'"{name}" (a Google {kind} file: Drive has no text export for it)')
        else:
            raise _Skip(f'"{name}" ({mime_type or "unknown type"}: not a text, PDF or Docs file)')
        return Document(title=name, source_url=document_link(file_id, mime_type), text=text)

    def _folder(self, folder: dict[str, Any]) -> Fetched:
        files = self._service().files()
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
            page = self._execute(request)
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
            except _Skip as skip:
                fetched.skipped.append(str(skip))
            except _Failure as failure:
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
            raise _Skip(f'"{meta.get("name")}" (a shortcut without a target)')
        return self._execute(
            self._service().files().get(fileId=target, fields=FILE_FIELDS, supportsAllDrives=True)
        )

    def _check_size(self, meta: dict[str, Any]) -> None:
        try:
            size = int(meta.get("size") or 0)
        except ValueError:
            size = 0
        if size > MAX_DOWNLOAD_BYTES:
            limit = MAX_DOWNLOAD_BYTES // (1024 * 1024)
            raise _Failure(
                "too_large", f"{size / 2**20:.1f} MB, over the {limit} MB download limit"
            )

    # -- the client ------------------------------------------------------------------------

    def _service(self) -> Any:
        """The Drive client, built on first use (the credentials are read then)."""
        if self._drive is None:
            credentials = self._load_credentials()
            http = google_auth_httplib2.AuthorizedHttp(
                credentials, http=httplib2.Http(timeout=self._config.timeout_seconds)
            )
            options = {"api_endpoint": self._api_endpoint()} if self._config.base_url else None
            self._drive = discovery.build(
                "drive",
                "v3",
                http=http,
                client_options=options,
                static_discovery=True,
                cache_discovery=False,
            )
            self._credentials = credentials
        return self._drive

    def _api_endpoint(self) -> str:
        root = str(self._config.base_url).rstrip("/")
        return root + "/" if root.endswith("/drive/v3") else root + "/drive/v3/"

    def _load_credentials(self) -> Any:
        """The credentials in `credentials_path`; `_Failure("auth")` naming the file and what is
        wrong with it, never what it contains."""
        path = self._config.credentials_path
        if path is None:
            raise _Failure("auth", "connectors.google_drive.credentials_path is not set")
        info = _read_credential_file(Path(path))
        kind = info.get("type")
        required = {
            "service_account": ("client_email", "private_key", "token_uri"),
            "authorized_user": ("client_id", "client_secret", "refresh_token"),
        }.get(kind if isinstance(kind, str) else "")
        if required is None:
            shown = kind if isinstance(kind, str) and re.fullmatch(r"[a-z_]{1,40}", kind) else None
            what = f'has "type": "{shown}"' if shown else 'has no usable "type"'
            if "installed" in info or "web" in info:
                what = "is an OAuth client id file, not a token"
            raise _Failure(
                "auth",
                f"{path} {what}; it must be a service-account key (type service_account) or "
                "an authorized-user token file (type authorized_user)",
            )
        missing = [key for key in required if not isinstance(info.get(key), str) or not info[key]]
        if missing:
            raise _Failure("auth", f"{path} ({kind}) lacks {', '.join(missing)}")
        self._secrets = _secret_values(info)
        self._token_uri = str(info.get("token_uri") or "Google's token endpoint")
        credentials = _credentials_from(kind, info)
        if credentials is None:
            what = "private key" if kind == "service_account" else "token"
            raise _Failure("auth", f"the {what} in {path} cannot be read")
        self._account = (
            f"the service account {info['client_email']}"
            if kind == "service_account"
            else "the signed-in account"
        )
        return credentials

    def _execute(self, request: Any) -> Any:
        """Run one API request; every way it can fail as a `_Failure` of the matching kind.

        The `_Failure` is raised outside the `except`, so the library's exception (a refused
        token exchange keeps the token endpoint's whole answer) is not chained to it."""
        try:
            return request.execute()
        except HttpError as exc:
            failure = self._http_failure(exc)
        except auth_exceptions.RefreshError as exc:
            failure = self._refresh_failure(exc)
        except TimeoutError:
            failure = _Failure("timeout", self._timeout_detail())
        except (auth_exceptions.TransportError, httplib2.HttpLib2Error, OSError) as exc:
            failure = self._transport_failure(exc)
        raise failure

    def _transport_failure(self, exc: Exception) -> _Failure:
        cause = exc.__cause__ or exc.__context__ or exc
        if isinstance(cause, TimeoutError):
            return _Failure("timeout", self._timeout_detail())
        reason = getattr(cause, "strerror", None) or type(cause).__name__
        return _Failure("server", f"could not reach Google ({reason})")

    def _timeout_detail(self) -> str:
        return f"no answer within {self._config.timeout_seconds:g} s"

    def _http_failure(self, exc: HttpError) -> _Failure:
        status = exc.resp.status
        reason, message = _api_error(exc.content)
        said = self._scrub(message or exc.resp.reason or "")
        said = f" ({said})" if said else ""
        if status == 401:
            return _Failure("auth", f"Google refused the credentials{said}", status)
        if status == 429 or reason in _RATE_REASONS:
            return _Failure("rate_limited", f"rate limited by the Drive API{said}", status)
        if status == 403 and reason == "exportSizeLimitExceeded":
            return _Failure("too_large", EXPORT_LIMIT, status)
        if status == 403 and reason in _SETUP_REASONS:
            return _Failure("auth", f"the credentials cannot use the Drive API{said}", status)
        if status == 404:
            return _Failure("not_found", f"not found, or not shared with {self._account}", status)
        if status == 403:
            return _Failure("not_found", f"{self._account} has no access to it{said}", status)
        if status >= 500:
            return _Failure("server", f"the Drive API failed with {status}{said}", status)
        return _Failure("server", f"the Drive API answered {status}{said}", status)

    def _refresh_failure(self, exc: auth_exceptions.RefreshError) -> _Failure:
        """A token exchange refused (or failing) at the credential file's `token_uri`."""
        data = exc.args[1] if len(exc.args) > 1 else None
        if isinstance(data, dict) and data.get("error"):
            said = f"{data.get('error')}: {data.get('error_description') or ''}".rstrip(": ")
        else:
            said = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
        said = self._scrub(said)
        said = f" ({said})" if said else ""
        if getattr(exc, "retryable", False):
            return _Failure("server", f"the token exchange at {self._token_uri} failed{said}")
        return _Failure("auth", f"the token exchange at {self._token_uri} was refused{said}")

    def _scrub(self, text: str) -> str:
        """`text` (from a server) cut short, with any secret it echoes blanked out."""
        token = getattr(self._credentials, "token", None)
        for secret in [*self._secrets, *([token] if isinstance(token, str) else [])]:
            if secret:
                text = text.replace(secret, "[redacted]")
        text = " ".join(text.split())
        return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"


def _is_link(text: str) -> bool:
    lowered = text.lower()
    return lowered.startswith(("http://", "https://")) or any(
        lowered.startswith(f"{host}/") for host in _HOSTS
    )


def _with_scheme(text: str) -> str:
    return text if "://" in text else f"https://{text}"


def _looks_like_drive_id(text: str) -> bool:
    """Drive's shape, and not a Notion page id (32 hex digits, bare, as a UUID or after a
    title slug): those are the Notion connector's."""
    notion = _NOTION_ID.fullmatch(text) or re.fullmatch(r"[0-9a-fA-F]{32}", text.replace("-", ""))
    return bool(_BARE_ID.fullmatch(text)) and not notion


def _read_credential_file(path: Path) -> dict[str, Any]:
    """The file's JSON object. Every failure is raised outside the `except` that caught it, so
    no exception carrying the file's text (a `JSONDecodeError` keeps it all) rides along."""
    problem = None
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problem = f"cannot read {path}: {exc.strerror or type(exc).__name__}"
    if problem is not None:
        raise _Failure("auth", problem)
    try:
        info = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        info = None
    if not isinstance(info, dict):
        raise _Failure("auth", f"{path} is not a JSON credentials file")
    return info


def _credentials_from(kind: str, info: dict[str, Any]) -> Any:
    """google-auth credentials for a checked credential file; None if its key or token cannot
    be read (the library's error, which may quote it, is dropped)."""
    try:
        if kind == "service_account":
            return service_account.Credentials.from_service_account_info(info, scopes=SCOPES)
        credentials = user_credentials.Credentials.from_authorized_user_info(info, scopes=SCOPES)
        # google-auth always puts Google's own endpoint here; the file's is the one meant.
        if isinstance(info.get("token_uri"), str) and info["token_uri"]:
            credentials = credentials.with_token_uri(info["token_uri"])
        return credentials
    except (ValueError, TypeError, UnsupportedAlgorithm, auth_exceptions.GoogleAuthError):
        return None


def _secret_values(info: dict[str, Any]) -> list[str]:
    """What in a credential file must never be shown: whole values and the key's lines."""
    values = [
        info[key]
        for key in ("private_key", "private_key_id", "client_secret", "refresh_token")
        if isinstance(info.get(key), str) and len(info[key]) >= 8
    ]
    key_lines = [line for line in str(info.get("private_key", "")).splitlines() if len(line) >= 16]
    return [*values, *key_lines]


def _api_error(content: bytes) -> tuple[str, str]:
    """The first `reason` and the `message` of Google's error body (empty when it is not one)."""
    try:
        error = json.loads(content.decode("utf-8")).get("error")
    except (ValueError, UnicodeDecodeError, AttributeError):
        return "", ""
    if not isinstance(error, dict):
        return "", str(error) if isinstance(error, str) else ""
    errors = error.get("errors") or [{}]
    reason = errors[0].get("reason", "") if isinstance(errors[0], dict) else ""
    message = error.get("message", "")
    return str(reason or error.get("status") or ""), str(message)


def _decode(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8-sig", errors="replace")


def _without_embedded_images(markdown: str) -> str:
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


def _fenced(text: str, language: str) -> str:
    """`text` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}\n"


def _pdf_text(data: bytes, name: str) -> str:
    """The text of every page; `_Skip` for a PDF with none, a locked or a damaged one."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise _Skip(f'"{name}" (a password-protected PDF)')
        pages = [page.extract_text() or "" for page in reader.pages]
    except _Skip:
        raise
    except Exception:  # noqa: BLE001 - pypdf raises many kinds of error on a damaged file
        raise _Skip(f'"{name}" (a PDF that cannot be read)') from None
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise _Skip(f'"{name}" (a PDF without a text layer, such as a scan)')
    return text + "\n"
