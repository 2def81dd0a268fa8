"""How every ThoughtForge flow run starts: `opening` once per run, then `working_on` around the
work on each project. Every flow starts here, so a fix to the order is made once.

`opening(config_path)`, in this order:
1. the config is read and the plugins loaded: a broken plugin folder is refused before anything
   is created or run;
2. the run's output is made inert: an agent's words in the log cannot drive the terminal;
3. the run announces every phase change as a Prefect event.

`working_on(config, project)`, in this order (each held until the work ends):
1. for a project still to be made (`project` a callable), a run slot first: a burst of new
   projects waits for a slot instead of being refused at `concurrency.max_parallel_runs`;
2. refused beside another run on its way to the project (`core.run_start`), before it takes
   anything;
3. the run tagged and named after the project, so the CLI and the page find it when it waits
   (not for a run that goes through several projects, `tag_run=False`: it is none of theirs);
4. the project's run lock: one run works on a project at a time;
5. a run slot, after the lock: a run refused by the lock never waits for a slot, and a run never
   holds a slot while it waits for the lock;
6. holding: a wait for the human holds the process for `human.hold_seconds` before it suspends;
7. graceful stop, innermost: a SIGTERM or Ctrl-C lets the agent call in flight finish and be
   recorded, and every hold above is still there while it does;
8. the temporary server this process started, if any, recorded with the project, once the lock
   is held: whoever next takes the lock ends it if this process dies;
9. the write boundary the run's agent calls are held by, in the project's log: a warning where
   the system offers none (`adapters.agents.write_boundary`).

The TLS context every Prefect client shares is set up when this module is imported, before any
run's client is made (`tls_context`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from prefect import runtime

from thoughtforge.adapters.agents.write_boundary import boundary_in_force, landlock_abi
from thoughtforge.config import Config, load_config
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.run_start import refuse_beside_another
from thoughtforge.flows.runtime.console import make_run_output_inert
from thoughtforge.flows.runtime.events import announce
from thoughtforge.flows.runtime.holding import holding_for
from thoughtforge.flows.runtime.limits import run_slot
from thoughtforge.flows.runtime.run_tags import tag_this_run
from thoughtforge.flows.runtime.server_in_use import track_temporary_server
from thoughtforge.flows.runtime.shutdown import stopping_gracefully
from thoughtforge.flows.runtime.tls_context import share_one_tls_context
from thoughtforge.phases.plugin_loader import load_plugins

share_one_tls_context()  # before this run's clients are made


def opening(config_path: str | None) -> Config:
    """The run's config, once the run is ready to work (steps 1–3 above)."""
    config = load_config(Path(config_path) if config_path else None)
    load_plugins(config)
    make_run_output_inert()
    announce(config, config_path)
    return config


@contextmanager
def working_on(
    config: Config, project: Project | Callable[[], Project], *, tag_run: bool = True
) -> Iterator[Project]:
    """The project (made here when `project` is a callable), held as the module says."""
    with ExitStack() as held:
        if callable(project):
            held.enter_context(run_slot(config, None))
            project = project()
        refuse_beside_another(project, runtime.flow_run.id)
        if tag_run:
            tag_this_run(project)
        held.enter_context(hold_run_lock(project))
        held.enter_context(run_slot(config, project))
        held.enter_context(holding_for(config.human.hold_seconds))
        held.enter_context(stopping_gracefully(config))
        track_temporary_server(project)
        held_by = boundary_in_force()
        level = "info" if landlock_abi() else "warning"
        log_event(project.dir, "write_boundary", level=level, boundary=held_by)
        yield project
