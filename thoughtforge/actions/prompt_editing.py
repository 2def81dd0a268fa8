"""Settings → Prompts: read every prompt, save an edited one as an override, reset to built-in.

An edit is saved into the prompts override folder (`prompts.directory`, created on the first
save), atomically, so the next agent call reads either the old text or the new one; the built-in
file is never touched, and "reset" removes the override. Names come from the URL, so only the
names of existing prompts are accepted.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from thoughtforge.bounded_input import MAX_PROMPT_BYTES, InputRefused, read_capped_text
from thoughtforge.config import Config
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.prompting.library import DEFAULT_DIRECTORY, PromptLibrary


class PromptFile(BaseModel):
    name: str
    text: str
    overridden: bool
    path: Path


class PromptEditError(ThoughtForgeError):
    """A save or reset that changed nothing; says which file and why."""


def prompt_names(config: Config) -> list[str]:
    return PromptLibrary(config.prompts.directory).names()


def read_prompt(config: Config, name: str) -> PromptFile:
    path = _library(config, name).path(name)
    try:
        text = read_capped_text(path, MAX_PROMPT_BYTES, "prompt")
    except InputRefused as exc:
        raise PromptEditError(str(exc)) from None
    return PromptFile(name=name, text=text, overridden=path.parent != DEFAULT_DIRECTORY, path=path)


def save_prompt(config: Config, name: str, text: str) -> Path:
    """Write the override; the folder is made when missing. Nothing changes on failure."""
    _library(config, name)
    folder = _override_folder(config)
    target = folder / f"{name}.md"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, text)
    except OSError as exc:
        raise PromptEditError(f"cannot save {target}: {exc.strerror or exc}") from None
    return target


def reset_prompt(config: Config, name: str) -> None:
    """Remove the override, so the built-in prompt is used again."""
    _library(config, name)
    target = _override_folder(config) / f"{name}.md"
    try:
        target.unlink(missing_ok=True)
    except OSError as exc:
        raise PromptEditError(f"cannot remove {target}: {exc.strerror or exc}") from None


def _library(config: Config, name: str) -> PromptLibrary:
    library = PromptLibrary(config.prompts.directory)
    if name not in library.names():
        raise PromptEditError(f"there is no prompt named {name!r}")
    return library


def _override_folder(config: Config) -> Path:
    folder = config.prompts.directory
    if folder is None:
        raise PromptEditError(
            "prompts.directory is null in the config: set it to a folder (e.g. `prompts`) to "
            "save edited prompts"
        )
    return folder
