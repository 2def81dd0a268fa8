"""What every section of `config.yaml` is built from: a model that refuses unknown keys, so a
typo is reported rather than silently ignored, and the `type` that picks one of several kinds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """Also refuses NaN and infinity in every number (`1e309` is read as infinity by YAML)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def type_or(default: str) -> Callable[[Any], str]:
    """A section's `type`, for a discriminated union of sections; sections written before the
    union existed have none and are `default` (agents: command, channels: ntfy)."""

    def type_of(value: Any) -> str:
        if isinstance(value, dict):
            return str(value.get("type", default))
        return str(getattr(value, "type", default))

    return type_of
