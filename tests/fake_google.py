"""A local stand-in for Google's OAuth token endpoint and the Drive v3 API, for connector tests.

The real `google-api-python-client` and `google-auth` talk to it over real sockets: the
connector's `base_url` points the client at it (`client_options.api_endpoint`), and the
credential files it writes name its `/token` as their own `token_uri`. It answers at the paths
the client calls and with the bodies the real services send:

* `POST /token` — a service account's JWT assertion (RS256, checked against the test key: issuer,
  audience, scope, expiry) or an authorized user's refresh token (client id, secret, token),
  answered with a fresh access token, or with `{"error": "invalid_grant", ...}` as Google does.
* `GET /drive/v3/files/{id}` (metadata, or the bytes with `alt=media`), `.../{id}/export`,
  `GET /drive/v3/files?q='<folder>' in parents and trashed=false` (paged by `nextPageToken`) and
  `GET /drive/v3/about?fields=user` — each only with `Authorization: Bearer <a token it issued>`.
  Errors carry Google's error body: `{"error": {"code", "message", "errors": [{"domain",
  "reason", "message", ...}]}}`, e.g. 404 `notFound` "File not found: <id>.", 403
  `exportSizeLimitExceeded`, 403 `fileNotDownloadable` for `alt=media` on a Docs file.

Each test programs it:

    with FakeGoogle() as google:
        google.add_file("doc1", "Plan", GOOGLE_DOC, "# Plan")
        google.fail("doc2", 404)                         # or fail(None, 500): every API call
        key = google.service_account_file(tmp_path)
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from email.message import Message
from functools import cache
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.local_http import LocalHttpServer

GOOGLE_DOC = "application/vnd.google-apps.document"
GOOGLE_SHEET = "application/vnd.google-apps.spreadsheet"
GOOGLE_SLIDES = "application/vnd.google-apps.presentation"
GOOGLE_FORM = "application/vnd.google-apps.form"
FOLDER = "application/vnd.google-apps.folder"
SHORTCUT = "application/vnd.google-apps.shortcut"
DRIVE_READONLY = "https://www.googleapis.com/auth/drive.readonly"
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
"""A service account's assertion names Google's token endpoint as its audience, wherever the
key file's `token_uri` sends it (google-auth does so, and Google accepts nothing else)."""

SERVICE_ACCOUNT_EMAIL = "thoughtforge-test@tf-project.iam.gserviceaccount.com"
USER_EMAIL = "operator@example.com"
CLIENT_ID = "1234567890-test.apps.googleusercontent.com"

EXPORT_FORMATS = {
    GOOGLE_DOC: {"text/markdown", "text/plain", "text/html", "application/pdf"},
    GOOGLE_SHEET: {"text/csv", "text/tab-separated-values", "application/pdf"},
    GOOGLE_SLIDES: {"text/plain", "application/pdf"},
}
"""What each Docs Editors type may be exported to (a subset of Google's table)."""

_AUTH_ERROR_MESSAGE = (
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
    "cookie or other valid authentication credential. See "
    "https://developers.google.com/identity/sign-in/web/devconsole-project."
)
_REASONS = {
    400: ("global", "badRequest", "Bad Request"),
    401: ("global", "authError", "Invalid Credentials"),
    403: ("global", "forbidden", "The user does not have sufficient permissions for this file."),
    404: ("global", "notFound", "File not found: {id}."),
    429: ("usageLimits", "rateLimitExceeded", "Rate Limit Exceeded"),
    500: ("global", "internalError", "Internal Error"),
    503: ("global", "backendError", "Backend Error"),
}


@cache
def test_private_key() -> rsa.RSAPrivateKey:
    """One RSA key for the whole test session (generating one takes a while)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def private_key_pem() -> str:
    return (
        test_private_key()
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode("ascii")
    )


def api_error(status: int, reason: str, message: str, domain: str = "global") -> dict[str, Any]:
    """Google's JSON error body."""
    return {
        "error": {
            "code": status,
            "message": message,
            "errors": [{"message": message, "domain": domain, "reason": reason}],
        }
    }


@dataclass
class DriveFile:
    id: str
    name: str
    mime_type: str
    content: bytes = b""
    parents: list[str] = field(default_factory=list)
    size: int | None = None
    """What `files.get` reports as `size` (uploaded files only); the content's length if None."""
    trashed: bool = False
    export_too_large: bool = False
    target_id: str | None = None
    """A shortcut's target."""

    def resource(self) -> dict[str, Any]:
        """The file as the API describes it (every field the tests ask for)."""
        body: dict[str, Any] = {
            "kind": "drive#file",
            "id": self.id,
            "name": self.name,
            "mimeType": self.mime_type,
            "trashed": self.trashed,
            "parents": self.parents,
        }
        if not self.mime_type.startswith("application/vnd.google-apps."):
            body["size"] = str(self.size if self.size is not None else len(self.content))
        if self.target_id is not None:
            body["shortcutDetails"] = {"targetId": self.target_id}
        return body


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: Message


@dataclass(frozen=True)
class _Failure:
    status: int
    body: dict[str, Any]


class FakeGoogle(LocalHttpServer):
    """The token endpoint and the Drive v3 API on 127.0.0.1, in a thread; its `url` is the API
    root (what `https://www.googleapis.com` is)."""

    def __init__(self) -> None:
        self.files: dict[str, DriveFile] = {}
        self.requests: list[Recorded] = []
        """Every Drive API request, in order."""
        self.token_requests: list[dict[str, str]] = []
        """Every token request's form fields, as sent (assertions and secrets included)."""
        self.issued_tokens: list[str] = []
        self.page_size = 100
        """The most files one `files.list` page holds, whatever `pageSize` asks for."""
        self.about_user: dict[str, Any] = {
            "kind": "drive#user",
            "displayName": "ThoughtForge test",
            "emailAddress": SERVICE_ACCOUNT_EMAIL,
            "me": True,
            "permissionId": "01234567890123456789",
        }
        self.refresh_token = "1//0test-refresh-" + secrets.token_urlsafe(24)
        self.client_secret = "GOCSPX-test-" + secrets.token_urlsafe(18)
        self.private_key_id = secrets.token_hex(20)
        self.token_error: tuple[int, dict[str, Any]] | None = None
        self._valid_tokens: set[str] = set()
        self._failures: dict[str | None, _Failure] = {}
        self._delay = 0.0
        self._lock = threading.Lock()
        super().__init__(_handler_for(self))

    # -- addresses -------------------------------------------------------------------------

    @property
    def token_uri(self) -> str:
        return f"{self.url}/token"

    # -- programming -----------------------------------------------------------------------

    def add_file(
        self,
        file_id: str,
        name: str,
        mime_type: str,
        content: bytes | str = b"",
        *,
        parent: str | None = None,
        size: int | None = None,
        trashed: bool = False,
        export_too_large: bool = False,
        target_id: str | None = None,
    ) -> DriveFile:
        data = content.encode("utf-8") if isinstance(content, str) else content
        drive_file = DriveFile(
            file_id,
            name,
            mime_type,
            data,
            [parent] if parent else [],
            size,
            trashed,
            export_too_large,
            target_id,
        )
        self.files[file_id] = drive_file
        return drive_file

    def add_folder(self, folder_id: str, name: str, parent: str | None = None) -> DriveFile:
        return self.add_file(folder_id, name, FOLDER, parent=parent)

    def fail(
        self,
        file_id: str | None,
        status: int,
        reason: str | None = None,
        message: str | None = None,
        domain: str | None = None,
    ) -> None:
        """Answer every request about `file_id` (None: every API request) with `status` and
        Google's error body; `reason`, `message` and `domain` default to what Google sends."""
        default_domain, default_reason, default_message = _REASONS.get(
            status, ("global", "unknown", "Error")
        )
        text = (message or default_message).format(id=file_id or "")
        self._failures[file_id] = _Failure(
            status, api_error(status, reason or default_reason, text, domain or default_domain)
        )

    def delay(self, seconds: float) -> None:
        """Hold every API reply back (a timeout test); `close()` releases them at once."""
        self._delay = seconds

    def revoke_tokens(self) -> None:
        """Every access token issued so far stops working (as when one expires)."""
        with self._lock:
            self._valid_tokens.clear()

    # -- credential files ------------------------------------------------------------------

    def service_account_info(self) -> dict[str, Any]:
        return {
            "type": "service_account",
            "project_id": "tf-project",
            "private_key_id": self.private_key_id,
            "private_key": private_key_pem(),
            "client_email": SERVICE_ACCOUNT_EMAIL,
            "client_id": "109876543210987654321",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": self.token_uri,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "universe_domain": "googleapis.com",
        }

    def authorized_user_info(self) -> dict[str, Any]:
        return {
            "type": "authorized_user",
            "client_id": CLIENT_ID,
            "client_secret": self.client_secret,
            "refresh_token": self.refresh_token,
            "token_uri": self.token_uri,
        }

    def service_account_file(self, directory: Path) -> Path:
        path = directory / "service-account.json"
        path.write_text(json.dumps(self.service_account_info(), indent=2))
        return path

    def authorized_user_file(self, directory: Path) -> Path:
        path = directory / "authorized-user.json"
        path.write_text(json.dumps(self.authorized_user_info(), indent=2))
        return path

    def secrets(self) -> list[str]:
        """Every string that must never reach a log line or an error: the key (as a whole and
        line by line), the client secret, the refresh token, each access token issued and each
        signed assertion received."""
        key_lines = [line for line in private_key_pem().splitlines() if "PRIVATE KEY" not in line]
        assertions = [r["assertion"] for r in self.token_requests if "assertion" in r]
        return [
            private_key_pem(),
            *key_lines,
            self.client_secret,
            self.refresh_token,
            *self.issued_tokens,
            *assertions,
        ]

    # -- lifetime --------------------------------------------------------------------------

    # -- the token endpoint ----------------------------------------------------------------

    def _token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        self.token_requests.append(form)
        if self.token_error is not None:
            return self.token_error
        grant = form.get("grant_type")
        if grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            problem = self._check_assertion(form.get("assertion", ""))
            scope = DRIVE_READONLY
        elif grant == "refresh_token":
            problem = self._check_refresh(form)
            scope = form.get("scope", DRIVE_READONLY)
        else:
            return 400, {
                "error": "unsupported_grant_type",
                "error_description": "Invalid grant_type",
            }
        if problem is not None:
            return 400, {"error": "invalid_grant", "error_description": problem}
        token = "ya29.test-" + secrets.token_urlsafe(32)
        with self._lock:
            self._valid_tokens.add(token)
            self.issued_tokens.append(token)
        return 200, {
            "access_token": token,
            "expires_in": 3599,
            "scope": scope,
            "token_type": "Bearer",
        }

    def _check_assertion(self, assertion: str) -> str | None:
        """Why Google would refuse this JWT, or None: the signature against the test key, then
        the claims a service account's grant must carry."""
        try:
            header_b64, payload_b64, signature_b64 = assertion.split(".")
            header = json.loads(_b64decode(header_b64))
            claims = json.loads(_b64decode(payload_b64))
            signature = _b64decode(signature_b64)
        except ValueError:
            return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe."
        if header.get("alg") != "RS256" or header.get("kid") != self.private_key_id:
            return "Invalid JWT Signature."
        try:
            test_private_key().public_key().verify(
                signature,
                f"{header_b64}.{payload_b64}".encode("ascii"),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except InvalidSignature:
            return "Invalid JWT Signature."
        now = time.time()
        if claims.get("iss") != SERVICE_ACCOUNT_EMAIL:
            return "Invalid JWT: Failed audience check."
        if claims.get("aud") != GOOGLE_TOKEN_AUDIENCE:
            return "Invalid JWT: Failed audience check."
        if claims.get("scope") != DRIVE_READONLY:
            return f"Invalid OAuth scope or ID token audience provided: {claims.get('scope')}"
        if not claims.get("iat", now + 999) <= now + 60 < claims.get("exp", 0) + 60:
            return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe."
        return None

    def _check_refresh(self, form: dict[str, str]) -> str | None:
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != self.client_secret:
            return "The OAuth client was not found."
        if form.get("refresh_token") != self.refresh_token:
            return "Token has been expired or revoked."
        return None

    # -- the Drive API ---------------------------------------------------------------------

    def _api(self, request: Recorded) -> tuple[int, str, bytes]:
        self.requests.append(request)
        if self._delay:
            self._released.wait(self._delay)
        if not self._authorized(request.headers.get("Authorization", "")):
            body = api_error(401, "authError", _AUTH_ERROR_MESSAGE)
            body["error"]["errors"][0].update(location="Authorization", locationType="header")
            body["error"]["errors"][0]["message"] = "Invalid Credentials"
            return _json(401, body)
        parts = [unquote(p) for p in request.path.split("/") if p]
        if parts[:2] != ["drive", "v3"]:
            return _json(404, api_error(404, "notFound", "Not Found"))
        rest = parts[2:]
        file_id = rest[1] if len(rest) >= 2 and rest[0] == "files" else None
        failure = self._failures.get(file_id) if file_id else None
        failure = failure or self._failures.get(None)
        if failure is not None:
            return _json(failure.status, failure.body)
        if rest == ["about"]:
            return self._about(request.query)
        if rest == ["files"]:
            return self._list(request.query)
        if len(rest) == 2 and rest[0] == "files":
            return self._get(rest[1], request.query)
        if len(rest) == 3 and rest[0] == "files" and rest[2] == "export":
            return self._export(rest[1], request.query)
        return _json(404, api_error(404, "notFound", "Not Found"))

    def _authorized(self, header: str) -> bool:
        scheme, _, token = header.partition(" ")
        with self._lock:
            return scheme == "Bearer" and token in self._valid_tokens

    def _about(self, query: dict[str, str]) -> tuple[int, str, bytes]:
        if "fields" not in query:
            message = "The 'fields' parameter is required for this method."
            return _json(400, api_error(400, "required", message))
        return _json(200, {"user": self.about_user})

    def _get(self, file_id: str, query: dict[str, str]) -> tuple[int, str, bytes]:
        drive_file = self.files.get(file_id)
        if drive_file is None:
            return _not_found(file_id)
        if query.get("alt") != "media":
            return _json(200, _select(drive_file.resource(), query.get("fields")))
        if drive_file.mime_type.startswith("application/vnd.google-apps."):
            message = (
                "Only files with binary content can be downloaded. Use Export with Docs "
                "Editors files."
            )
            return _json(403, api_error(403, "fileNotDownloadable", message))
        return 200, drive_file.mime_type, drive_file.content

    def _export(self, file_id: str, query: dict[str, str]) -> tuple[int, str, bytes]:
        drive_file = self.files.get(file_id)
        if drive_file is None:
            return _not_found(file_id)
        formats = EXPORT_FORMATS.get(drive_file.mime_type)
        if formats is None:
            message = "Export only supports Docs Editors files."
            return _json(403, api_error(403, "fileNotExportable", message))
        mime_type = query.get("mimeType", "")
        if mime_type not in formats:
            message = "The requested conversion is not supported."
            body = api_error(400, "badRequest", message)
            body["error"]["errors"][0].update(location="convertTo", locationType="parameter")
            return _json(400, body)
        if drive_file.export_too_large:
            message = "This file is too large to be exported."
            return _json(403, api_error(403, "exportSizeLimitExceeded", message))
        return 200, mime_type, drive_file.content

    def _list(self, query: dict[str, str]) -> tuple[int, str, bytes]:
        q = query.get("q", "")
        head, sep, tail = q.partition("' in parents and trashed=false")
        if not sep or tail or not head.startswith("'"):
            body = api_error(400, "invalid", "Invalid Value")
            body["error"]["errors"][0].update(location="q", locationType="parameter")
            return _json(400, body)
        parent = head[1:]
        children = sorted(
            (f for f in self.files.values() if parent in f.parents and not f.trashed),
            key=lambda f: f.name,
        )
        start = int(_b64decode(query["pageToken"])) if query.get("pageToken") else 0
        size = min(int(query.get("pageSize", 100)), self.page_size)
        page = children[start : start + size]
        body: dict[str, Any] = {
            "kind": "drive#fileList",
            "incompleteSearch": False,
            "files": [f.resource() for f in page],
        }
        if start + size < len(children):
            body["nextPageToken"] = base64.urlsafe_b64encode(str(start + size).encode()).decode()
        return _json(200, _select(body, query.get("fields")))


def _not_found(file_id: str) -> tuple[int, str, bytes]:
    body = api_error(404, "notFound", f"File not found: {file_id}.")
    body["error"]["errors"][0].update(location="fileId", locationType="parameter")
    return _json(404, body)


def _json(status: int, body: dict[str, Any]) -> tuple[int, str, bytes]:
    return status, "application/json; charset=UTF-8", json.dumps(body).encode("utf-8")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _select(body: dict[str, Any], fields: str | None) -> dict[str, Any]:
    """`body` cut down to a partial-response `fields` mask such as
    `nextPageToken,files(id,name)` (top level and one level of parentheses)."""
    if not fields:
        return body
    chosen: dict[str, Any] = {}
    for name, inner in _split_fields(fields):
        if name not in body:
            continue
        value = body[name]
        if inner and isinstance(value, list):
            value = [_select(item, inner) for item in value]
        elif inner and isinstance(value, dict):
            value = _select(value, inner)
        chosen[name] = value
    return chosen


def _split_fields(fields: str) -> list[tuple[str, str]]:
    found, depth, start = [], 0, 0
    for index, char in enumerate(fields + ","):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            part = fields[start:index].strip()
            start = index + 1
            if part:
                name, _, inner = part.partition("(")
                found.append((name.strip(), inner[:-1] if inner else ""))
    return found


def _handler_for(google: FakeGoogle) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            split = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(split.query).items()}
            self._reply(*google._api(Recorded("GET", split.path, query, self.headers)))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8") if length else ""
            if urlsplit(self.path).path != "/token":
                self._reply(*_json(404, api_error(404, "notFound", "Not Found")))
                return
            form = {k: v[-1] for k, v in parse_qs(body).items()}
            status, answer = google._token(form)
            self._reply(*_json(status, answer))

        def _reply(self, status: int, content_type: str, body: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the client gave up first (a timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the tests read `requests`, not stderr."""

    return Handler
