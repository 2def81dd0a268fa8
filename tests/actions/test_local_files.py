"""A brain dump and resources given as files on this machine (MCP's `create_project`): the
brain dump as text or a file, one of the two, not empty; a resource a regular file within its
cap, never through a link."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.actions.local_files import given_brain_dump, resource_file
from thoughtforge.bounded_input import InputRefused
from thoughtforge.config import Config
from thoughtforge.errors import ProjectFileError, ThoughtForgeError


def test_the_brain_dump_is_the_text_or_the_file_one_of_the_two_and_not_empty(
    tmp_path: Path,
) -> None:
    dump = tmp_path / "dump.md"
    dump.write_text("A plan for sixty guests.\n")
    assert given_brain_dump("", str(dump)) == "A plan for sixty guests.\n"
    assert given_brain_dump("A plan.", "") == "A plan."
    with pytest.raises(ThoughtForgeError, match="one of the two"):
        given_brain_dump("A plan.", str(dump))
    with pytest.raises(ThoughtForgeError, match="one of the two"):
        given_brain_dump("  ", "")
    (tmp_path / "empty.md").write_text("\n")
    with pytest.raises(ThoughtForgeError, match="the brain dump is empty"):
        given_brain_dump("", str(tmp_path / "empty.md"))


def test_a_resource_is_read_by_its_name_never_through_a_link_nor_over_its_cap(
    config: Config, tmp_path: Path
) -> None:
    menu = tmp_path / "menu.txt"
    menu.write_text("soup\n")
    dropped = resource_file(config, menu)
    assert (dropped.name, dropped.data) == ("menu.txt", b"soup\n")
    (tmp_path / "link.txt").symlink_to(menu)
    with pytest.raises(ProjectFileError):
        resource_file(config, tmp_path / "link.txt")
    small = config.model_copy(
        update={"resources": config.resources.model_copy(update={"max_file_bytes": 3})}
    )
    with pytest.raises(InputRefused):
        resource_file(small, menu)
