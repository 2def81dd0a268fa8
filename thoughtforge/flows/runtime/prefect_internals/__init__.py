"""Every piece of Prefect's insides ThoughtForge relies on: what it is, why it is used, and what is
lost without it.

Prefect's public API does not reach these; each one buys a measured speed-up or a behaviour the
person sees. A Prefect release may move or change any of them, so each has a check that Prefect
still has it in the shape ThoughtForge uses. The code that uses one asks `usable(KEY)` first
(checked once per process): when the check fails it prints one warning naming the item and what
is lost, and takes Prefect's plain behaviour instead of failing the run. `thoughtforge doctor`
shows a row per missing item (`--verbose`: per item);
`tests/flows/runtime/test_prefect_internals.py` fails, naming the item, when the installed Prefect
changed one. The three marked `upstream` only work around a Prefect issue: drop them once it is
fixed.

The items are kept by what they concern, each beside its check: `in_a_run` (a flow run's own
process), `on_the_server` (the API server, read from its source), `up_and_down` (what `up` and
`down` use); `shape` holds what the checks share. The checks import what they check, and nothing
at any of these modules' tops: a command that never uses an internal never pays for its import.
"""

from __future__ import annotations

import sys

from thoughtforge.flows.runtime.prefect_internals.in_a_run import (
    CONCURRENCY_SLOT,
    CONTROL_LISTENER,
    HEARTBEAT,
    IN_A_RUN,
    LEAVE_PAUSE,
    LOGGER_NAMES,
    RUN_FLOW,
    TLS_CONTEXT,
)
from thoughtforge.flows.runtime.prefect_internals.on_the_server import (
    FORCED_STATE,
    ON_THE_SERVER,
    SQLITE_IMMEDIATE,
)
from thoughtforge.flows.runtime.prefect_internals.shape import Internal
from thoughtforge.flows.runtime.prefect_internals.up_and_down import (
    JOB_TEMPLATE,
    PARAMETER_SCHEMA,
    RUN_ENVIRONMENT,
    UP_AND_DOWN,
    WARM_START,
)

__all__ = [
    "CONCURRENCY_SLOT",
    "CONTROL_LISTENER",
    "FORCED_STATE",
    "HEARTBEAT",
    "INTERNALS",
    "JOB_TEMPLATE",
    "LEAVE_PAUSE",
    "LOGGER_NAMES",
    "PARAMETER_SCHEMA",
    "RUN_ENVIRONMENT",
    "RUN_FLOW",
    "RUN_INTERNALS",
    "SQLITE_IMMEDIATE",
    "TLS_CONTEXT",
    "WARM_START",
    "problem",
    "usable",
]

_ORDER = (
    *(CONTROL_LISTENER, SQLITE_IMMEDIATE, TLS_CONTEXT, WARM_START, LEAVE_PAUSE, HEARTBEAT),
    *(RUN_FLOW, FORCED_STATE, RUN_ENVIRONMENT, LOGGER_NAMES, CONCURRENCY_SLOT),
    *(PARAMETER_SCHEMA, JOB_TEMPLATE),
)
_BY_KEY: dict[str, Internal] = {
    internal.key: internal for internal in (*IN_A_RUN, *ON_THE_SERVER, *UP_AND_DOWN)
}
INTERNALS: tuple[Internal, ...] = tuple(_BY_KEY[key] for key in _ORDER)
"""Every item, in the order `thoughtforge doctor --verbose` lists them."""
RUN_INTERNALS = (CONTROL_LISTENER, TLS_CONTEXT, LEAVE_PAUSE, HEARTBEAT, LOGGER_NAMES)
"""Those a deployed run uses, which the warm starter checks as it starts (its runs inherit the
answers). Not the slots': their check makes a context manager, which is a run's to make."""
_checked: dict[str, str | None] = {}


def problem(key: str) -> str | None:
    """Why the internal `key` cannot be used with the installed Prefect; None when it can."""
    if key not in _checked:
        try:
            _BY_KEY[key].check()
            _checked[key] = None
        except Exception as exc:  # noqa: BLE001 - whatever a changed Prefect raises says it changed
            _checked[key] = f"{type(exc).__name__}: {exc}"
    return _checked[key]


def usable(key: str) -> bool:
    """Whether to use the internal `key`; when not, one warning per process says what is lost."""
    found = problem(key)
    if found is None:
        return True
    if key not in _warned:
        _warned.add(key)
        internal = _BY_KEY[key]
        print(
            f"warning: the installed Prefect changed {internal.what} ({found}): "
            f"{internal.without}. ThoughtForge goes on with Prefect's plain behaviour; "
            "`thoughtforge doctor` lists every such change.",
            file=sys.stderr,
            flush=True,
        )
    return False


_warned: set[str] = set()
