"""A project's history as the doors show it: every commit with what it was (`core.history`),
and one point's change and what restoring it would change, in words (`core.word_diff`). The
page's History and its diff view, `thoughtforge history` and MCP's `history` read it here;
restoring a point is `actions.restoring`."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.core.history import (
    HistoryItem,
    find_item,
    item_diff,
    project_history,
    restore_diff,
)
from thoughtforge.core.project import Project
from thoughtforge.core.word_diff import FileChange, as_text, changes_in_words


class PointChanges(BaseModel):
    """One point of the history: what it changed, and what restoring it would change now."""

    item: HistoryItem
    changed: list[FileChange]
    restoring: list[FileChange]

    @property
    def changed_text(self) -> str:
        """The point's change as plain text (`thoughtforge history --diff`): removed words as
        [-…-], added ones as {+…+}; empty when it changed no file."""
        return as_text(self.changed)


def history(project: Project) -> list[HistoryItem]:
    """Every commit of the project, oldest first; a named one is a phase end or an iteration."""
    return project_history(project.dir)


def point_changes(project: Project, wanted: str) -> PointChanges:
    """The point `wanted` names (a name or a commit id), else `UnknownHistoryItem`."""
    items = project_history(project.dir)
    item = find_item(items, wanted)
    return PointChanges(
        item=item,
        changed=changes_in_words(item_diff(project.dir, items, item)),
        restoring=changes_in_words(restore_diff(project.dir, item)),
    )
