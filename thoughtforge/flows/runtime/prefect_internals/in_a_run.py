"""The Prefect internals a flow run uses in its own process: how it stops, talks to the API,
waits for the person, logs, and takes a run slot."""

from __future__ import annotations

import uuid

from thoughtforge.flows.runtime.prefect_internals.shape import (
    Changed,
    Internal,
    attribute,
    has_parameters,
)

CONTROL_LISTENER = "control-listener"
TLS_CONTEXT = "one-tls-context"
LEAVE_PAUSE = "leave-pause"
HEARTBEAT = "heartbeat-off"
RUN_FLOW = "run-flow"
LOGGER_NAMES = "logger-names"
CONCURRENCY_SLOT = "concurrency-slot"


def _control_listener() -> None:
    if not callable(attribute("prefect._internal.control_listener", "get_intent")):
        raise Changed("get_intent is not a function")


def _tls_context() -> None:
    for name in ("PrefectClient", "SyncPrefectClient"):
        client = attribute("prefect.client.orchestration", name)
        has_parameters(client.__init__, "api", "httpx_settings")
    for setting in ("PREFECT_API_SSL_CERT_FILE", "PREFECT_API_TLS_INSECURE_SKIP_VERIFY"):
        attribute("prefect.settings", setting)


def _leave_pause() -> None:
    propose = attribute("prefect.utilities.engine", "propose_state_sync")
    has_parameters(propose, "client", "state", "flow_run_id")
    attribute("prefect.input.run_input", "keyset_from_paused_state")
    paused = attribute("prefect.states", "Paused")
    has_parameters(paused, "timeout_seconds", "reschedule", "pause_key")
    details = attribute("prefect.client.schemas.objects", "StateDetails")
    if "run_input_keyset" not in details.model_fields:
        raise Changed("StateDetails has no run_input_keyset")


def _heartbeat_setting() -> None:
    context = attribute("prefect.context", "SettingsContext")
    if not {"profile", "settings"} <= set(context.model_fields):
        raise Changed("SettingsContext is no longer made of profile and settings")
    settings = attribute("prefect.context", "get_settings_context")().settings
    if "heartbeat_frequency" not in type(settings.flows).model_fields:
        raise Changed("settings.flows has no heartbeat_frequency")


def _run_flow() -> None:
    has_parameters(attribute("prefect.flow_engine", "run_flow"), "flow", "flow_run", "parameters")
    client = attribute("prefect.client.orchestration", "SyncPrefectClient")
    has_parameters(client.create_flow_run, "flow", "parameters", "state")


def _logger_names() -> None:
    from prefect.client.schemas.objects import FlowRun, TaskRun

    loggers = (
        attribute("prefect.logging.loggers", "flow_run_logger"),
        attribute("prefect.logging.loggers", "task_run_logger"),
    )
    flow_run = FlowRun(flow_id=uuid.uuid4(), name="check")
    task_run = TaskRun(task_key="check", dynamic_key="0", name="check")
    names = loggers[0](flow_run=flow_run).logger.name, loggers[1](task_run=task_run).logger.name
    if names != ("prefect.flow_runs", "prefect.task_runs"):
        raise Changed(f"the run loggers are now {names}")


def _concurrency_slot() -> None:
    concurrency = attribute("prefect.concurrency.sync", "concurrency")
    has_parameters(
        concurrency,
        *("names", "occupy", "timeout_seconds", "lease_duration", "strict"),
        "raise_on_lease_renewal_failure",
    )
    held = concurrency("check", occupy=1)  # a context manager: nothing happens until entered
    if not (hasattr(held, "__enter__") and hasattr(held, "__exit__")):
        raise Changed("concurrency() no longer returns a context manager")


IN_A_RUN: tuple[Internal, ...] = (
    Internal(
        CONTROL_LISTENER,
        "prefect._internal.control_listener.get_intent",
        "flows/runtime/shutdown.py (imported by every flow module)",
        "tells a run Prefect is cancelling from one told to stop, so a cancel is not held back "
        "while the agent call in flight finishes",
        "a cancelled run first lets its agent call in flight finish, as a stopped one does",
        _control_listener,
    ),
    Internal(
        TLS_CONTEXT,
        "prefect.client.orchestration.PrefectClient.__init__ (httpx_settings)",
        "flows/runtime/tls_context.py",
        "every API client of a run shares one TLS context instead of loading the CA bundle each",
        "about 8 MiB more per flow run (a TLS context per API client)",
        _tls_context,
        upstream="PrefectHQ/prefect#19106",
    ),
    Internal(
        LEAVE_PAUSE,
        "prefect.utilities.engine.propose_state_sync, keyset_from_paused_state, Paused(pause_key)",
        "flows/runtime/holding.py",
        "a run holds its process for human.hold_seconds, then proposes Running to leave the "
        "pause and suspends (Prefect cannot suspend a paused run)",
        "no hold: every wait suspends at once, and an answer restarts the run (a second or two)",
        _leave_pause,
    ),
    Internal(
        HEARTBEAT,
        "prefect.context.SettingsContext built by hand (flows.heartbeat_frequency=None)",
        "flows/runtime/heartbeats.py",
        "a run started in the CLI's process beats no heartbeat, which ended every run and "
        "subflow up to a second late",
        "each run the CLI starts ends up to a second later",
        _heartbeat_setting,
        upstream="PrefectHQ/prefect#19641",
    ),
    Internal(
        RUN_FLOW,
        "prefect.flow_engine.run_flow called with a flow run made first",
        "flows/runtime/in_process.py",
        "a run in the CLI's process without FastAPI's encoder",
        "the flow is called as Prefect's users call it: the CLI's run is 6 MiB larger and "
        "70 ms slower to start",
        _run_flow,
    ),
    Internal(
        LOGGER_NAMES,
        "the loggers prefect.flow_runs and prefect.task_runs",
        "flows/runtime/console.py, flows/runtime/task_runner.py",
        "a halt is one line, not a traceback; run output is made inert; no 'Finished in state "
        "Completed()' line per step",
        "full tracebacks for halts, and a line per finished step, on the terminal and the UI",
        _logger_names,
    ),
    Internal(
        CONCURRENCY_SLOT,
        "prefect.concurrency.sync.concurrency(...).__enter__/__exit__ by hand",
        "flows/runtime/limits.py",
        "a run slot taken in short attempts (Ctrl-C stops the wait) and given back while the "
        "run waits for the person",
        "concurrency.max_parallel_runs and max_parallel_agent_calls are not enforced",
        _concurrency_slot,
    ),
)
