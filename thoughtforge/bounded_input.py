"""Reading what a person, a client or an agent names, with limits set before the cost is paid.

A file is opened without following a FIFO's wait, checked to be a regular file, and read only up
to its cap (`/dev/zero` or a growing file never fills memory). JSON is parsed only when it nests
at most `MAX_JSON_DEPTH` deep (100,000 brackets are one clear error, not a `RecursionError`).
YAML is composed first and its aliases' expansion counted before anything is built (a 50-line
alias bomb stays 50 lines). An error quotes at most a short excerpt of a bad value.
"""

from __future__ import annotations

import errno
import json
import os
import re
import reprlib
import stat
from pathlib import Path
from typing import Any

import yaml

from thoughtforge.errors import ThoughtForgeError

MAX_CONFIG_BYTES = 1024 * 1024
"""config.yaml, a plugin's manifest, a script: far more than any written by hand."""
MAX_PROMPT_BYTES = 1024 * 1024
MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024
"""A brain dump or a change request read from a file."""
MAX_YAML_VALUES = 100_000
"""The most values a YAML document may hold once its aliases are expanded."""
MAX_JSON_DEPTH = 200
"""The deepest a JSON document may nest: ThoughtForge's files and the agents' answers nest a
handful of levels; a parser recursing through 100,000 would run out of stack."""
EXCERPT_CHARS = 60
MAX_MESSAGE_CHARS = 200_000
"""The longest text a person hands over, whatever the door (the page, the CLI, an MCP tool): a
longer one belongs in a file under the project's resources/ (a brain dump is capped lower, by
`brain_dump.max_chars`)."""


class InputRefused(ThoughtForgeError):
    """A file that is no regular file, larger than its cap, or YAML that expands too far;
    `reason` is what is wrong, without the file's name."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


class JsonTooDeep(InputRefused, ValueError):
    """JSON nested past `MAX_JSON_DEPTH`: a `ValueError` too, as `json.loads`'s own errors are,
    so whoever handles bad JSON handles this."""


def read_capped(path: Path, limit: int, what: str = "file", *, follow_links: bool = True) -> bytes:
    """The bytes of `path`, refused (`InputRefused`) unless it is a regular file of at most
    `limit` bytes; checked on the open file, so a swap between check and read changes nothing.
    Without `follow_links`, a symbolic link in `path`'s place is refused too."""
    try:
        return read_regular(path, limit, what, follow_links=follow_links)
    except OSError as exc:
        raise InputRefused(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def read_regular(path: Path, limit: int, what: str, *, follow_links: bool) -> bytes:
    """`read_capped`, with the open's own `OSError` (a missing file, no permission) left to the
    caller; what opens but is no regular file within `limit` is `InputRefused`."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            why = (
                "a link that loops" if follow_links else "a symbolic link, which is never followed"
            )
            raise InputRefused(f"cannot read {what} {path}: {why}", why) from None
        raise
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            why = "is not a regular file (a folder, device, pipe or socket)"
            raise InputRefused(f"{what} {path} {why}", why)
        if info.st_size > limit:
            why = f"is {info.st_size:,} bytes, over its cap ({limit:,})"
            raise InputRefused(f"{what} {path} {why}", why)
        data = file.read(limit + 1)
    if len(data) > limit:
        why = f"grew past its cap ({limit:,} bytes) while read"
        raise InputRefused(f"{what} {path} {why}", why)
    return data


def read_capped_text(path: Path, limit: int, what: str = "file") -> str:
    """`read_capped`, decoded as UTF-8 (else `InputRefused` naming the first bad byte)."""
    data = read_capped(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputRefused(
            f"cannot read {what} {path}: not UTF-8 text (byte {exc.start})"
        ) from None


def parse_json(data: str | bytes, where: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads` of a document nesting at most `max_depth` deep: `JsonTooDeep` for a deeper
    one, before the parser recurses; `json.JSONDecodeError` for text that is no JSON (both
    `ValueError`s)."""
    if nests_deeper(data, max_depth):
        why = f"nests more than {max_depth} deep (no JSON ThoughtForge reads nests so)"
        raise JsonTooDeep(f"{where}: {why}", why)
    return json.loads(data)


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nests_deeper(data: str | bytes, limit: int) -> bool:
    """Whether the brackets of a JSON text nest more than `limit` deep, outside its strings
    (text that is no JSON gets some answer; the parser then says what is wrong with it)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:  # too few brackets to nest deeper
        return False
    depth = 0
    for byte in _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        if depth > limit:
            return True
    return False


def load_yaml(text: str, where: str, *, max_values: int = MAX_YAML_VALUES) -> Any:
    """Safe-load one YAML document whose aliases expand to at most `max_values` values (and
    never into themselves); `yaml.YAMLError` for text that is no YAML, `InputRefused` else."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _count_values(node, max_values, where)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _count_values(root: yaml.Node, limit: int, where: str) -> None:
    """The values of `root` counted as if every alias were written out: each node's expanded
    size once (a shared node is counted again where it is shared, never walked again)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise InputRefused(f"{where}: an alias (*name) refers to a value that contains it")
        open_nodes.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        open_nodes.discard(key)
        if total > limit:
            raise InputRefused(
                f"{where}: its aliases (&name, *name) expand to more than {limit:,} values; "
                "write the values out, or use fewer aliases"
            )
        sizes[key] = total
        return total

    try:
        size(root)
    except RecursionError:
        raise InputRefused(f"{where}: nested too deeply") from None


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A short `repr` of `value` (at most about `limit` characters, `...` where cut), built
    without the repr of the whole: an error quotes no more of a bad value than a person needs
    to find it."""
    shown = _SHORT.repr(value)
    return shown if len(shown) <= limit else f"{shown[:limit]}..."


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxdict = 2, 4, 4, 3
_SHORT.maxset, _SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = 4, EXCERPT_CHARS, 40, 40
