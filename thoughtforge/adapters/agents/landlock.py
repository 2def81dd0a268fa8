"""Linux's Landlock, from Python: a process gives up the right to write anywhere but beneath the
folders it names, for itself and every process it starts after; reading stays allowed everywhere.

No root and no namespace are needed, and nothing a restricted process does can lift it (it also
sets no_new_privs, so a set-uid program cannot). The rights it handles are the write rights this
kernel knows (`abi_version()`): writing, truncating, creating, removing, renaming and linking
files; sending signals to processes outside the restricted ones as well, where the kernel can
scope them (ABI 6). Only the supervisor of an agent call restricts itself (`agents.supervisor`,
single-threaded, before it starts the agent): Landlock binds the calling thread and its children.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
"""The syscall numbers, the same on every architecture (they came after the tables were unified)."""
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

WRITE_FILE = 1 << 1
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13
"""ABI 2: rename and link across folders (unhandled, the kernel refuses them all)."""
TRUNCATE = 1 << 14
"""ABI 3: truncate(2) and open(O_TRUNC)."""
SCOPE_SIGNAL = 1 << 1
"""ABI 6: no signal to a process outside the restricted ones."""

_WRITES_V1 = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_BLOCK
    | MAKE_SYM
)
_FILE_RIGHTS = WRITE_FILE | TRUNCATE
"""The write rights a rule on a file (not a folder) may carry."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class LandlockError(OSError):
    """The kernel refused a step of the restriction (the process is left as it was)."""


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The Landlock ABI this kernel offers; 0 where it offers none (not Linux, before 5.13,
    or turned off at boot)."""
    libc = _libc()
    if libc is None:
        return 0
    return max(0, _syscall(libc, _CREATE_RULESET, 0, 0, _CREATE_RULESET_VERSION))


def write_rights(abi: int) -> int:
    """Every write right the kernel of `abi` knows."""
    rights = _WRITES_V1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


def restrict_writes(writable: Sequence[Path]) -> int:
    """From now on this thread and its future children write only beneath `writable` (folders,
    or single files, which may then be written but not replaced); the ABI used. A path that
    does not exist is skipped. `LandlockError` when the kernel offers no Landlock or refuses."""
    libc = _libc()
    abi = abi_version()
    if libc is None or abi < 1:
        raise LandlockError(0, "Landlock is not available on this system")
    rights = write_rights(abi)
    attr = _RulesetAttr(rights, 0, SCOPE_SIGNAL if abi >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    created = _syscall(libc, _CREATE_RULESET, ctypes.addressof(attr), size, 0)
    ruleset = _checked(created, "ruleset")
    try:
        for path in writable:
            _allow(libc, ruleset, path, rights)
        _checked(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _checked(_syscall(libc, _RESTRICT_SELF, ruleset, 0), "restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _allow(libc: ctypes.CDLL, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        allowed = rights if stat.S_ISDIR(os.fstat(fd).st_mode) else rights & _FILE_RIGHTS
        rule = _PathBeneathAttr(allowed, fd)
        added = _syscall(libc, _ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.addressof(rule), 0)
        _checked(added, f"rule for {path}")
    finally:
        os.close(fd)


def _syscall(libc: ctypes.CDLL, number: int, *arguments: int) -> int:
    """`syscall(2)` with every argument a full register wide (it is variadic)."""
    return int(libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in arguments)))


def _checked(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockError(code, f"Landlock {what}: {os.strerror(code)}")
    return int(result)
