"""How a rejected setting is reported: its key, what was given (never a secret, nor a URL's
path), and what was expected."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationError

from thoughtforge.bounded_input import excerpt
from thoughtforge.config.files import EXAMPLE_NAME

_SECRET_WORDS = ("token", "secret", "password", "api_key", "credential")


MAX_LISTED = 20
"""Settings named in one report; a config wrong in thousands of places is told how many."""


def describe_validation_error(path: Path, exc: ValidationError) -> str:
    lines = [f"{path} has {exc.error_count()} invalid setting(s):"]
    for error in exc.errors()[:MAX_LISTED]:
        key = ".".join(excerpt(part, 40).strip("'") for part in error["loc"]) or "(top level)"
        if error["type"] == "missing":
            lines.append(f"  {key}: required key is missing")
        elif error["type"] == "extra_forbidden":
            lines.append(f"  {key}: unknown key (check the spelling against {EXAMPLE_NAME})")
        else:
            got = _shown(error["loc"], error.get("input"))
            expected = error["msg"][:1].lower() + error["msg"][1:200]
            lines.append(f"  {key}: got {got}; expected {expected}")
    if exc.error_count() > MAX_LISTED:
        lines.append(f"  … and {exc.error_count() - MAX_LISTED:,} more")
    return "\n".join(lines)


def _shown(location: tuple[int | str, ...], value: object) -> str:
    """What of a rejected value an error may repeat: never a secret, nor a whole section (it may
    hold one), nor a URL's user, password or path (a webhook's path is often its secret)."""
    if _is_secret(location):
        return "***"
    if isinstance(value, dict):
        return f"a section of type {excerpt(value['type'])}" if "type" in value else "a section"
    if location and str(location[-1]).endswith("url") and isinstance(value, str):
        parts = urlsplit(value)
        host = parts.netloc.rsplit("@", 1)[-1]
        hidden = "***@" if "@" in parts.netloc else ""
        if parts.netloc and (parts.path.strip("/") or parts.query or hidden):
            path = "/…" if parts.path.strip("/") or parts.query else ""
            return excerpt(f"{parts.scheme}://{hidden}{host}{path}")
    return excerpt(value)


def _is_secret(location: tuple[int | str, ...]) -> bool:
    """A rejected value under a secret-looking key is never echoed: it may be a real token."""
    return any(
        isinstance(part, str) and any(word in part.lower() for word in _SECRET_WORDS)
        for part in location
    )
