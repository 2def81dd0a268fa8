"""`build_progress.json`: where Phase 3 stands, as the deliverable type's plugin reports it.

A plugin's builder tells its `ProgressListener` (`phases.plugin_contract`) a `BuildProgress` after
each step; the phase records the latest one here, and the page shows it as it is, whatever the
type: a plugin from `plugins.directory` shows its progress as the built-in ones do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import BUILD_PROGRESS_FILE, read_state_file, write_state_file


class ProgressItem(BaseModel):
    """One line of the progress: a section, a step; `detail` says how far it is."""

    label: str = Field(max_length=300)
    done: bool
    detail: str = Field("", max_length=300)


class BuildProgress(BaseModel):
    items: list[ProgressItem] = Field(default_factory=list, max_length=500)
    markdown: str = ""
    """The progress as the run's page in Prefect shows it; a table of the items when empty."""

    def as_markdown(self) -> str:
        if self.markdown:
            return self.markdown
        rows = "\n".join(
            f"| {i.label} | {i.detail} | {'yes' if i.done else 'no'} |" for i in self.items
        )
        done = sum(i.done for i in self.items)
        return (
            f"## Build: {done}/{len(self.items)} done\n\n"
            f"| step | detail | done |\n| --- | --- | --- |\n{rows}\n"
        )


def recorded(
    project_dir: Path, then: Callable[[BuildProgress], None]
) -> Callable[[BuildProgress], None]:
    """A listener that records each report for the page, then tells `then`. A report that cannot
    be written is a warning: progress never stops a build."""

    def record(progress: BuildProgress) -> None:
        try:
            write_state_file(project_dir, BUILD_PROGRESS_FILE, progress)
        except OSError as exc:
            log_event(project_dir, "build_progress_unsaved", level="warning", error=str(exc))
        then(progress)

    return record


def read_build_progress(project_dir: Path) -> BuildProgress | None:
    """The latest progress reported, None before any; `StateFileError` for an unreadable one."""
    if not (project_dir / BUILD_PROGRESS_FILE).exists():
        return None
    return read_state_file(project_dir, BUILD_PROGRESS_FILE, BuildProgress)
