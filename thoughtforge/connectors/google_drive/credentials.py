"""Drive credential files: a service-account key or an authorized-user token file, read as
JSON, turned into google-auth credentials, and the values in them that must never be shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from google.auth import exceptions as auth_exceptions
from google.auth.credentials import Credentials
from google.oauth2 import credentials as user_credentials
from google.oauth2 import service_account

from thoughtforge.bounded_input import MAX_CONFIG_BYTES, InputRefused, read_capped
from thoughtforge.connectors.google_drive.failures import Failure

SCOPES = ["https://www.googleapis.com/auth/drive.readonly"]


def read_credential_file(path: Path) -> dict[str, Any]:
    """The file's JSON object. Every failure is raised outside the `except` that caught it, so
    no exception carrying the file's text (a `JSONDecodeError` keeps it all) rides along."""
    problem = None
    try:
        raw = read_capped(path, MAX_CONFIG_BYTES, "credentials file")
    except InputRefused as exc:
        problem = str(exc)
    if problem is not None:
        raise Failure("auth", problem)
    try:
        info = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        info = None
    if not isinstance(info, dict):
        raise Failure("auth", f"{path} is not a JSON credentials file")
    return info


def credentials_from(kind: str, info: dict[str, Any]) -> Credentials | None:
    """google-auth credentials for a checked credential file; None if its key or token cannot
    be read (the library's error, which may quote it, is dropped)."""
    try:
        if kind == "service_account":
            key: service_account.Credentials = (
                service_account.Credentials.from_service_account_info(info, scopes=SCOPES)
            )
            return key
        credentials: user_credentials.Credentials = (
            user_credentials.Credentials.from_authorized_user_info(info, scopes=SCOPES)
        )
        # google-auth always puts Google's own endpoint here; the file's is the one meant.
        if isinstance(info.get("token_uri"), str) and info["token_uri"]:
            credentials = credentials.with_token_uri(info["token_uri"])
        return credentials
    except (ValueError, TypeError, UnsupportedAlgorithm, auth_exceptions.GoogleAuthError):
        return None


def secret_values(info: dict[str, Any]) -> list[str]:
    """What in a credential file must never be shown: whole values and the key's lines."""
    values = [
        info[key]
        for key in ("private_key", "private_key_id", "client_secret", "refresh_token")
        if isinstance(info.get(key), str) and len(info[key]) >= 8
    ]
    key_lines = [line for line in str(info.get("private_key", "")).splitlines() if len(line) >= 16]
    return [*values, *key_lines]
