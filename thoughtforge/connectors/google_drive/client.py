"""The Drive v3 client, built on first use from the credential file, and every request run
through it: each way one can fail becomes a `Failure` of the matching kind, with any secret a
server echoes scrubbed from it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import google_auth_httplib2
import httplib2
from google.auth import exceptions as auth_exceptions
from google.auth.credentials import Credentials
from googleapiclient import discovery
from googleapiclient.errors import HttpError

from thoughtforge.config import GoogleDriveConfig
from thoughtforge.connectors.google_drive.credentials import (
    credentials_from,
    read_credential_file,
    secret_values,
)
from thoughtforge.connectors.google_drive.failures import Failure

EXPORT_LIMIT = "over the Drive API's 10 MB export limit"
_RATE_REASONS = frozenset(
    {"rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded"}
)
_SETUP_REASONS = frozenset({"accessNotConfigured", "insufficientPermissions", "SERVICE_DISABLED"})
_MAX_DETAIL = 300


class DriveClient:
    """The client one connector uses, and what its credentials say about whose they are."""

    def __init__(self, config: GoogleDriveConfig) -> None:
        self._config = config
        self._drive: Any = None
        self.credentials: Credentials | None = None
        self._account = "the account of the credentials"
        self._token_uri = "the token endpoint"
        self._secrets: list[str] = []

    def service(self) -> Any:
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
            self.credentials = credentials
        return self._drive

    def _api_endpoint(self) -> str:
        root = str(self._config.base_url).rstrip("/")
        return root + "/" if root.endswith("/drive/v3") else root + "/drive/v3/"

    def _load_credentials(self) -> Credentials:
        """The credentials in `credentials_path`; `Failure("auth")` naming the file and what is
        wrong with it, never what it contains."""
        path = self._config.credentials_path
        if path is None:
            raise Failure("auth", "connectors.google_drive.credentials_path is not set")
        info = read_credential_file(Path(path))
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
            raise Failure(
                "auth",
                f"{path} {what}; it must be a service-account key (type service_account) or "
                "an authorized-user token file (type authorized_user)",
            )
        missing = [key for key in required if not isinstance(info.get(key), str) or not info[key]]
        if missing:
            raise Failure("auth", f"{path} ({kind}) lacks {', '.join(missing)}")
        self._secrets = secret_values(info)
        self._token_uri = str(info.get("token_uri") or "Google's token endpoint")
        credentials = credentials_from(str(kind), info)
        if credentials is None:
            what = "private key" if kind == "service_account" else "token"
            raise Failure("auth", f"the {what} in {path} cannot be read")
        self._account = (
            f"the service account {info['client_email']}"
            if kind == "service_account"
            else "the signed-in account"
        )
        return credentials

    def execute(self, request: Any) -> Any:
        """Run one API request; every way it can fail as a `Failure` of the matching kind.

        The `Failure` is raised outside the `except`, so the library's exception (a refused
        token exchange keeps the token endpoint's whole answer) is not chained to it."""
        try:
            return request.execute()
        except HttpError as exc:
            failure = self._http_failure(exc)
        except auth_exceptions.RefreshError as exc:
            failure = self._refresh_failure(exc)
        except TimeoutError:
            failure = Failure("timeout", self._timeout_detail())
        except (auth_exceptions.TransportError, httplib2.HttpLib2Error, OSError) as exc:
            failure = self._transport_failure(exc)
        raise failure

    def _transport_failure(self, exc: Exception) -> Failure:
        cause = exc.__cause__ or exc.__context__ or exc
        if isinstance(cause, TimeoutError):
            return Failure("timeout", self._timeout_detail())
        reason = getattr(cause, "strerror", None) or type(cause).__name__
        return Failure("server", f"could not reach Google ({reason})")

    def _timeout_detail(self) -> str:
        return f"no answer within {self._config.timeout_seconds:g} s"

    def _http_failure(self, exc: HttpError) -> Failure:
        status = exc.resp.status
        reason, message = _api_error(exc.content)
        said = self._scrub(message or exc.resp.reason or "")
        said = f" ({said})" if said else ""
        if status == 401:
            return Failure("auth", f"Google refused the credentials{said}", status)
        if status == 429 or reason in _RATE_REASONS:
            return Failure("rate_limited", f"rate limited by the Drive API{said}", status)
        if status == 403 and reason == "exportSizeLimitExceeded":
            return Failure("too_large", EXPORT_LIMIT, status)
        if status == 403 and reason in _SETUP_REASONS:
            return Failure("auth", f"the credentials cannot use the Drive API{said}", status)
        if status == 404:
            return Failure("not_found", f"not found, or not shared with {self._account}", status)
        if status == 403:
            return Failure("not_found", f"{self._account} has no access to it{said}", status)
        if status >= 500:
            return Failure("server", f"the Drive API failed with {status}{said}", status)
        return Failure("server", f"the Drive API answered {status}{said}", status)

    def _refresh_failure(self, exc: auth_exceptions.RefreshError) -> Failure:
        """A token exchange refused (or failing) at the credential file's `token_uri`."""
        data = exc.args[1] if len(exc.args) > 1 else None
        if isinstance(data, dict) and data.get("error"):
            said = f"{data.get('error')}: {data.get('error_description') or ''}".rstrip(": ")
        else:
            said = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
        said = self._scrub(said)
        said = f" ({said})" if said else ""
        if getattr(exc, "retryable", False):
            return Failure("server", f"the token exchange at {self._token_uri} failed{said}")
        return Failure("auth", f"the token exchange at {self._token_uri} was refused{said}")

    def _scrub(self, text: str) -> str:
        """`text` (from a server) cut short, with any secret it echoes blanked out."""
        token = getattr(self.credentials, "token", None)
        for secret in [*self._secrets, *([token] if isinstance(token, str) else [])]:
            if secret:
                text = text.replace(secret, "[redacted]")
        text = " ".join(text.split())
        return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"


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
