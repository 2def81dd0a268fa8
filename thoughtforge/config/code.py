"""Code deliverables: how each language's tests are run, and the build's steps and cycles."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, field_validator
from pydantic_core import PydanticCustomError

from thoughtforge.config.section import Section


def _language_name(value: str) -> str:
    if not re.fullmatch(r"[a-z][a-z0-9_.+#-]*", value):
        raise PydanticCustomError("language_name", "a lower-case language name, like python")
    return value


def _command(value: Any) -> Any:
    """A command is argv, never a shell line: no quoting rules to get wrong."""
    if not (isinstance(value, list) and value and all(isinstance(w, str) and w for w in value)):
        raise PydanticCustomError(
            "command", 'a command as a non-empty list of words, like ["make", "test"]'
        )
    return value


LanguageName = Annotated[str, AfterValidator(_language_name)]
Command = Annotated[list[str], BeforeValidator(_command)]


def default_test_commands() -> dict[str, list[str]]:
    """Each language's standard test entry point, which the coding agent is told to provide."""
    return {
        "python": ["python", "-m", "pytest", "-q", "-rfE"],
        "node": ["npm", "test", "--silent"],
        "make": ["make", "test"],
        "rust": ["cargo", "test"],
        "go": ["go", "test", "./..."],
    }


class CodeConfig(Section):
    """Code deliverables. `test_commands` given in the file are added to the defaults, or
    replace the default of the same language."""

    test_commands: dict[LanguageName, Command] = Field(default_factory=default_test_commands)
    test_timeout_seconds: float = Field(600, gt=0)
    # build in ordered steps, a commit per step; a failed step is undone and retried
    step_mode: bool = False
    max_step_attempts: int = Field(3, ge=1)
    # Phase 3 fix-and-retest cycles before the build halts stuck (the stuck rules come first)
    max_fix_cycles: int = Field(10, ge=1)
    # Phase 2 Open Source Discovery: one more agent call per spec proposal for the scorecards
    discovery: bool = False

    @field_validator("test_commands")
    @classmethod
    def _over_the_defaults(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return default_test_commands() | value
