"""ThoughtForge never follows a symbolic link when it reads or writes its own files.

An agent that can write files can also plant links: `docs → /elsewhere` would have ThoughtForge
write `intent.md` outside the project, `docs/plan.md → /outside/file` would have it read that
file as the deliverable and commit the link. So a file ThoughtForge reads or writes, and the
folder it is in, must be real; a link there is refused (`ProjectFileError`, saying where it
leads), and the run halts with `file_system_error` instead of guessing.
"""

from __future__ import annotations

from pathlib import Path

from thoughtforge.errors import ProjectFileError


def refuse_links(path: Path) -> None:
    """`ProjectFileError` when `path` or its folder is a symbolic link."""
    for candidate, what in ((path.parent, "folder"), (path, "file")):
        if candidate.is_symlink():
            raise ProjectFileError(
                candidate,
                f"is a symbolic link (to {candidate.readlink()}), and ThoughtForge never "
                f"reads or writes its files through a link: replace it with a real {what}",
            )
