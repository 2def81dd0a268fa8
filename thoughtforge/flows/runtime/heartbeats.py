"""Flow runs started in this process beat no heartbeat.

Prefect gives every flow run a heartbeat thread and joins it when the run ends. The thread sleeps
in steps of one second, so every run, and every subflow run, ended up to a second late: most of
what a trivial run cost (PrefectHQ/prefect#19641). The engine reads
`PREFECT_FLOWS_HEARTBEAT_FREQUENCY` in its caller's settings as the run starts, so a run started
inside `without_heartbeats()` has none. (Only the settings in force can say `None`: the
environment variable's minimum is 30.)

Dropped, with nothing lost: the heartbeat of a run the CLI starts in its own process, whose end
the person sees, and whose death ThoughtForge tells by the project's run lock, not by heartbeats
(`PrefectApi.busy_run`); and that of a subflow, whose parent's process beats for it.

Kept: the heartbeat of a deployment's run, which a worker starts in a process of its own
(`python -m prefect.engine`), outside this block. The server's zombie detection watches it, and
the engine joins it only after the final state is set, so it delays nobody.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from prefect.context import SettingsContext, get_settings_context

from thoughtforge.flows.runtime.prefect_internals import HEARTBEAT, usable


@contextmanager
def without_heartbeats() -> Iterator[None]:
    """Flow runs started inside the block, here or as subflows, beat no heartbeat.

    The settings are copied, not validated again as `temporary_settings` would (a noticeable
    part of what a run costs): `None` needs no validation.
    """
    if not usable(HEARTBEAT):
        yield
        return
    context = get_settings_context()
    settings = context.settings
    flows = settings.flows.model_copy(update={"heartbeat_frequency": None})
    with SettingsContext(
        profile=context.profile, settings=settings.model_copy(update={"flows": flows})
    ):
        yield
