"""How the plain run judges each `==` and `!=` of a locked test's `assert` (`judged`): where one
side is a value of a class of the code under test (the project, not the tests' own files or
folders) that decides its own equality (`__eq__` or `__ne__`) and the other holds nothing of the
code's (a literal, a number read from a file, `pytest.approx`), they are compared by plain
value: a subclass of a built-in number, string or bytes by the value it holds, anything else not
at all (it fails). The test asked for a value, not for whatever the code's class calls equal.

Runs in the project's interpreter, copied beside `plain_run`: standard library only.
"""

from __future__ import annotations

import os
import sys
from typing import Any

ROOT = os.path.realpath(os.getcwd())
"""The project: ThoughtForge runs the plain run in it."""
NOT_THE_PROJECT = frozenset(
    {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", "site-packages"}
)

_own: dict[type, bool] = {}


TESTS: set[str] = set()
"""The tests' own files (their modules, conftests) and folders (but the project's root), as
the plain run loads them."""


def _of_the_code(cls: type) -> bool:
    """A class defined in the project, outside the tests' own files and folders (a test's own
    matcher may decide its equality; the code under test may not)."""
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    if not path:
        return False
    full = os.path.realpath(path)
    if not full.startswith(ROOT + os.sep) or full in TESTS:
        return False
    if any(full.startswith(folder + os.sep) for folder in TESTS):
        return False
    return not NOT_THE_PROJECT.intersection(full[len(ROOT) + 1 :].split(os.sep))


def _decides_equality(cls: type) -> bool:
    """A class of the code under test, or with one in its bases, defining `__eq__` or
    `__ne__`."""
    if cls not in _own:
        _own[cls] = any(
            _of_the_code(base) and ("__eq__" in vars(base) or "__ne__" in vars(base))
            for base in cls.__mro__
        )
    return _own[cls]


def _contains(value: Any, wanted: Any, depth: int = 0) -> bool:
    if wanted(type(value)):
        return True
    if depth >= 4 or type(value) not in (list, tuple, dict, set, frozenset):
        return False
    items = list(value.items()) if isinstance(value, dict) else list(value)
    return any(_contains(item, wanted, depth + 1) for item in items[:1000])


HELD = (int, float, complex, str, bytes)
"""The built-in values a class may hold by subclassing; `int.__int__` and the like read it."""


def _plain(value: Any) -> Any:
    if type(value) in (list, tuple):
        return type(value)(_plain(item) for item in value)
    if type(value) is dict:
        return {key: _plain(item) for key, item in value.items()}
    if not _decides_equality(type(value)):
        return value
    for base in HELD:
        if isinstance(value, base):  # `complex.__complex__`, `bytes.__bytes__`: Python 3.11 on
            held: Any = getattr(base, f"__{base.__name__}__", base)
            return held(value)
    raise AssertionError(
        f"the result is a {type(value).__qualname__}, a class of the project's own that "
        "decides by itself what it equals; the locked test expects a plain value"
    )


def judged(left: Any, right: Any, equal: bool) -> Any:
    """`left == right` (or, not `equal`, `left != right`) as a locked test's assertion means
    it."""
    decides = _contains(left, _decides_equality) or _contains(right, _decides_equality)
    foreign = not (_contains(left, _of_the_code) and _contains(right, _of_the_code))
    if not (decides and foreign):
        return left == right if equal else left != right
    same = _plain(left) == _plain(right)
    return same if equal else not same
