"""The folders: where the projects live, where the operator's prompts override the built-in
ones, and where the operator's plugins are."""

from __future__ import annotations

from pathlib import Path

from thoughtforge.config.section import Section


class ProjectsConfig(Section):
    directory: Path = Path("projects")


class DirectoryConfig(Section):
    directory: Path | None = None


class PromptsConfig(Section):
    """The folder whose `*.md` files override the built-in prompts; the workbench's prompt
    editor saves there (and creates it on the first save)."""

    directory: Path | None = Path("prompts")
