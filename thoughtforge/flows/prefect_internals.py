"""Every piece of Prefect's insides ThoughtForge relies on: what it is, why it is used, and what is
lost without it.

Prefect's public API does not reach these; each one buys a measured speed-up or a behaviour the
person sees. A Prefect release may move or change any of them, so each has a check that Prefect
still has it in the shape ThoughtForge uses. The code that uses one asks `usable(KEY)` first
(checked once per process): when the check fails it prints one warning naming the item and what
is lost, and takes Prefect's plain behaviour instead of failing the run. `thoughtforge doctor`
shows a row per missing item (`--verbose`: per item); `tests/flows/test_prefect_internals.py`
fails, naming the item, when the installed Prefect changed one. The three marked `upstream` only
work around a Prefect issue: drop them once it is fixed.

The checks import what they check, and nothing at this module's top: a command that never uses
an internal never pays for its import.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any


class Changed(Exception):
    """Prefect no longer has an internal in the shape ThoughtForge uses."""


@dataclass(frozen=True)
class Internal:
    key: str
    what: str
    """The Prefect internal, as a person would look it up."""
    used_by: str
    why: str
    without: str
    """What the person loses when it is missing (Prefect's plain behaviour then)."""
    check: Callable[[], None]
    upstream: str = ""
    """The Prefect issue it works around, when that is its only reason."""


def _has_parameters(function: Any, *names: str) -> None:
    present = inspect.signature(function).parameters
    missing = [name for name in names if name not in present]
    if missing:
        raise Changed(f"{getattr(function, '__qualname__', function)} has no {', '.join(missing)}")


def _attribute(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise Changed(f"{module}.{name}: {exc}") from None


def _defined_with(module: str, qualname: str, *parameters: str) -> None:
    """`module` defines `qualname` (a function, or `Class.method`) taking `parameters`, read from
    its source: Prefect's server modules take seconds to import, and the CLI never needs them."""
    package = importlib.util.find_spec("prefect")  # not the module's: that imports its parents
    assert package is not None and package.origin is not None
    source = Path(package.origin).parent.joinpath(*module.split(".")[1:]).with_suffix(".py")
    try:
        scope: list[ast.stmt] = ast.parse(source.read_text(encoding="utf-8")).body
    except OSError:
        raise Changed(f"{module} is gone") from None
    found: ast.AST | None = None
    for name in qualname.split("."):
        found = next(
            (
                node
                for node in scope
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name == name
            ),
            None,
        )
        if found is None:
            raise Changed(f"{module} has no {qualname}")
        scope = found.body
    if not isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef):
        raise Changed(f"{module}.{qualname} is not a function")
    arguments = found.args
    present = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    missing = [name for name in parameters if name not in present]
    if missing:
        raise Changed(f"{module}.{qualname} has no {', '.join(missing)}")


def _control_listener() -> None:
    if not callable(_attribute("prefect._internal.control_listener", "get_intent")):
        raise Changed("get_intent is not a function")


def _sqlite_immediate() -> None:
    _defined_with(
        "prefect.server.database.configurations",
        "AioSqliteConfiguration.begin_transaction",
        *("session", "with_for_update"),
    )


def _tls_context() -> None:
    for name in ("PrefectClient", "SyncPrefectClient"):
        client = _attribute("prefect.client.orchestration", name)
        _has_parameters(client.__init__, "api", "httpx_settings")
    for setting in ("PREFECT_API_SSL_CERT_FILE", "PREFECT_API_TLS_INSECURE_SKIP_VERIFY"):
        _attribute("prefect.settings", setting)


def _warm_start() -> None:
    spec = importlib.util.find_spec("prefect.engine")
    if spec is None or spec.origin is None:
        raise Changed("prefect.engine is gone")
    if 'if __name__ == "__main__":' not in Path(spec.origin).read_text(encoding="utf-8"):
        raise Changed("prefect.engine no longer runs as `python -m prefect.engine`")
    _attribute("prefect.context", "refresh_global_settings_context")


def _leave_pause() -> None:
    propose = _attribute("prefect.utilities.engine", "propose_state_sync")
    _has_parameters(propose, "client", "state", "flow_run_id")
    _attribute("prefect.input.run_input", "keyset_from_paused_state")
    paused = _attribute("prefect.states", "Paused")
    _has_parameters(paused, "timeout_seconds", "reschedule", "pause_key")
    details = _attribute("prefect.client.schemas.objects", "StateDetails")
    if "run_input_keyset" not in details.model_fields:
        raise Changed("StateDetails has no run_input_keyset")


def _heartbeat_setting() -> None:
    context = _attribute("prefect.context", "SettingsContext")
    if not {"profile", "settings"} <= set(context.model_fields):
        raise Changed("SettingsContext is no longer made of profile and settings")
    settings = _attribute("prefect.context", "get_settings_context")().settings
    if "heartbeat_frequency" not in type(settings.flows).model_fields:
        raise Changed("settings.flows has no heartbeat_frequency")


def _run_flow() -> None:
    _has_parameters(_attribute("prefect.flow_engine", "run_flow"), "flow", "flow_run", "parameters")
    client = _attribute("prefect.client.orchestration", "SyncPrefectClient")
    _has_parameters(client.create_flow_run, "flow", "parameters", "state")


def _forced_state() -> None:
    _defined_with("prefect.server.api.flow_runs", "set_flow_run_state", "state", "force")


def _run_environment() -> None:
    configuration = _attribute("prefect.workers.base", "BaseJobConfiguration")
    run_id = uuid.uuid4()
    environment = configuration._base_flow_run_environment(SimpleNamespace(id=run_id))
    if environment.get("PREFECT__FLOW_RUN_ID") != str(run_id):
        raise Changed("the worker no longer names the run in PREFECT__FLOW_RUN_ID")


def _logger_names() -> None:
    from prefect.client.schemas.objects import FlowRun, TaskRun

    loggers = (
        _attribute("prefect.logging.loggers", "flow_run_logger"),
        _attribute("prefect.logging.loggers", "task_run_logger"),
    )
    flow_run = FlowRun(flow_id=uuid.uuid4(), name="check")
    task_run = TaskRun(task_key="check", dynamic_key="0", name="check")
    names = loggers[0](flow_run=flow_run).logger.name, loggers[1](task_run=task_run).logger.name
    if names != ("prefect.flow_runs", "prefect.task_runs"):
        raise Changed(f"the run loggers are now {names}")


def _concurrency_slot() -> None:
    concurrency = _attribute("prefect.concurrency.sync", "concurrency")
    _has_parameters(
        concurrency,
        *("names", "occupy", "timeout_seconds", "lease_duration", "strict"),
        "raise_on_lease_renewal_failure",
    )
    held = concurrency("check", occupy=1)  # a context manager: nothing happens until entered
    if not (hasattr(held, "__enter__") and hasattr(held, "__exit__")):
        raise Changed("concurrency() no longer returns a context manager")


def _parameter_schema() -> None:
    schema = _attribute("prefect.utilities.callables", "parameter_schema")

    def sample(brain_dump: str = "") -> None: ...

    properties = schema(sample).model_dump(exclude_unset=True).get("properties", {})
    if "brain_dump" not in properties:
        raise Changed("parameter_schema no longer describes a function's parameters")


def _job_template() -> None:
    worker = _attribute("prefect.workers.process", "ProcessWorker")
    template = worker.get_default_base_job_template()
    variables = template.get("variables", {}).get("properties", {})
    configured = template.get("job_configuration", {})
    for name in ("command", "working_dir"):
        if name not in variables or name not in configured:
            raise Changed(f"the process worker's job template has no {name}")


CONTROL_LISTENER = "control-listener"
SQLITE_IMMEDIATE = "sqlite-immediate"
TLS_CONTEXT = "one-tls-context"
WARM_START = "warm-start-engine"
LEAVE_PAUSE = "leave-pause"
HEARTBEAT = "heartbeat-off"
RUN_FLOW = "run-flow"
FORCED_STATE = "forced-state"
RUN_ENVIRONMENT = "run-environment"
LOGGER_NAMES = "logger-names"
CONCURRENCY_SLOT = "concurrency-slot"
PARAMETER_SCHEMA = "parameter-schema"
JOB_TEMPLATE = "job-template"

INTERNALS: tuple[Internal, ...] = (
    Internal(
        CONTROL_LISTENER,
        "prefect._internal.control_listener.get_intent",
        "flows/shutdown.py (imported by every flow module)",
        "tells a run Prefect is cancelling from one told to stop, so a cancel is not held back "
        "while the agent call in flight finishes",
        "a cancelled run first lets its agent call in flight finish, as a stopped one does",
        _control_listener,
    ),
    Internal(
        SQLITE_IMMEDIATE,
        "prefect.server.database.configurations.AioSqliteConfiguration.begin_transaction",
        "flows/prefect_server.py",
        "SQLite transactions take the write lock when they begin, so a busy moment waits "
        "instead of answering 503",
        "a write meeting another one fails and is retried about 2 s later (the UI's Resume form "
        "may say 'Something went wrong')",
        _sqlite_immediate,
        upstream="PrefectHQ/prefect#10956",
    ),
    Internal(
        TLS_CONTEXT,
        "prefect.client.orchestration.PrefectClient.__init__ (httpx_settings)",
        "flows/tls_context.py",
        "every API client of a run shares one TLS context instead of loading the CA bundle each",
        "about 8 MiB more per flow run (a TLS context per API client)",
        _tls_context,
        upstream="PrefectHQ/prefect#19106",
    ),
    Internal(
        WARM_START,
        "prefect.engine run as __main__ (runpy), prefect.context.refresh_global_settings_context",
        "flows/warm_start.py",
        "deployed runs fork from a process that imported Prefect and the flows once",
        "every deployed run starts cold (`prefect flow-run execute`): about 3 s more",
        _warm_start,
    ),
    Internal(
        LEAVE_PAUSE,
        "prefect.utilities.engine.propose_state_sync, keyset_from_paused_state, Paused(pause_key)",
        "flows/holding.py",
        "a run holds its process for human.hold_seconds, then proposes Running to leave the "
        "pause and suspends (Prefect cannot suspend a paused run)",
        "no hold: every wait suspends at once, and an answer restarts the run (a second or two)",
        _leave_pause,
    ),
    Internal(
        HEARTBEAT,
        "prefect.context.SettingsContext built by hand (flows.heartbeat_frequency=None)",
        "flows/heartbeats.py",
        "a run started in the CLI's process beats no heartbeat, which ended every run and "
        "subflow up to a second late",
        "each run the CLI starts ends up to a second later",
        _heartbeat_setting,
        upstream="PrefectHQ/prefect#19641",
    ),
    Internal(
        RUN_FLOW,
        "prefect.flow_engine.run_flow called with a flow run made first",
        "flows/in_process.py",
        "a run in the CLI's process without FastAPI's encoder",
        "the flow is called as Prefect's users call it: the CLI's run is 6 MiB larger and "
        "70 ms slower to start",
        _run_flow,
    ),
    Internal(
        FORCED_STATE,
        "POST /flow_runs/{id}/set_state with force=true",
        "stack/api.py (`down`)",
        "`down` marks the runs it stopped Cancelled",
        "runs stopped by `down` stay Running (or Crashed) in the UI",
        _forced_state,
    ),
    Internal(
        RUN_ENVIRONMENT,
        "PREFECT__FLOW_RUN_ID in a run's environment, read from /proc/<pid>/environ",
        "stack/local_server.py (`down`)",
        "`down` finds which flow runs its processes were working on",
        "`down` cannot name the runs it stopped, nor mark them Cancelled",
        _run_environment,
    ),
    Internal(
        LOGGER_NAMES,
        "the loggers prefect.flow_runs and prefect.task_runs",
        "flows/console.py, flows/task_runner.py",
        "a halt is one line, not a traceback; run output is made inert; no 'Finished in state "
        "Completed()' line per step",
        "full tracebacks for halts, and a line per finished step, on the terminal and the UI",
        _logger_names,
    ),
    Internal(
        CONCURRENCY_SLOT,
        "prefect.concurrency.sync.concurrency(...).__enter__/__exit__ by hand",
        "flows/limits.py",
        "a run slot taken in short attempts (Ctrl-C stops the wait) and given back while the "
        "run waits for the person",
        "concurrency.max_parallel_runs and max_parallel_agent_calls are not enforced",
        _concurrency_slot,
    ),
    Internal(
        PARAMETER_SCHEMA,
        "prefect.utilities.callables.parameter_schema",
        "flows/deployment_parts.py (`up`)",
        "`up` deploys through the API, without `prefect deploy`'s seconds of imports",
        "deployments have no parameter schema: the UI offers no form for a new run's parameters",
        _parameter_schema,
    ),
    Internal(
        JOB_TEMPLATE,
        "prefect.workers.process.ProcessWorker.get_default_base_job_template",
        "flows/deployment_parts.py (`up`)",
        "`up` makes the process work pool with its job template (command, working_dir)",
        "the pool is made with an empty template, which the worker fills with its own",
        _job_template,
    ),
)
_BY_KEY = {internal.key: internal for internal in INTERNALS}
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
