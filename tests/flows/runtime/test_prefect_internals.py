"""The Prefect internals ThoughtForge borrows: each is still there in the installed Prefect (a
failure names the item), each check notices when one changes, and a run without one falls back
to Prefect's plain behaviour after one warning instead of failing."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from types import SimpleNamespace

import pytest

from thoughtforge.flows.runtime import prefect_internals
from thoughtforge.flows.runtime.prefect_internals import INTERNALS, problem, usable
from thoughtforge.flows.runtime.prefect_internals.shape import Changed, Internal, defined_with

KEYS = [internal.key for internal in INTERNALS]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> dict[str, str | None]:
    """Nothing checked or warned about yet in this process; the answers, to preset."""
    checked: dict[str, str | None] = {}
    monkeypatch.setattr(prefect_internals, "_checked", checked)
    monkeypatch.setattr(prefect_internals, "_warned", set())
    return checked


def test_thirteen_internals_each_named_with_why_and_what_is_lost() -> None:
    assert len(KEYS) == len(set(KEYS)) == 13
    for internal in INTERNALS:
        assert internal.what and internal.used_by and internal.why and internal.without
    upstream = {i.key: i.upstream for i in INTERNALS if i.upstream}
    assert upstream == {
        "sqlite-immediate": "PrefectHQ/prefect#10956",
        "one-tls-context": "PrefectHQ/prefect#19106",
        "heartbeat-off": "PrefectHQ/prefect#19641",
    }


@pytest.mark.parametrize("internal", INTERNALS, ids=KEYS)
def test_the_installed_prefect_still_has_it(
    internal: Internal, fresh: dict[str, str | None]
) -> None:
    found = problem(internal.key)
    assert found is None, (
        f"Prefect {version('prefect')} changed the internal '{internal.key}' "
        f"({internal.what}, used by {internal.used_by}): {found}. Without it: {internal.without}."
    )


@pytest.mark.parametrize(
    ("key", "module", "attribute"),
    [
        ("control-listener", "prefect._internal.control_listener", "get_intent"),
        ("leave-pause", "prefect.utilities.engine", "propose_state_sync"),
        ("heartbeat-off", "prefect.context", "SettingsContext"),
        ("run-flow", "prefect.flow_engine", "run_flow"),
        ("concurrency-slot", "prefect.concurrency.sync", "concurrency"),
        ("parameter-schema", "prefect.utilities.callables", "parameter_schema"),
        ("warm-start-engine", "prefect.context", "refresh_global_settings_context"),
    ],
)
def test_a_check_notices_the_internal_gone(
    key: str,
    module: str,
    attribute: str,
    fresh: dict[str, str | None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(f"{module}.{attribute}")
    found = problem(key)
    assert found is not None and attribute in found, found


def test_a_check_notices_a_changed_signature_and_a_moved_variable(
    fresh: dict[str, str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    from prefect.concurrency import sync
    from prefect.workers.base import BaseJobConfiguration

    monkeypatch.setattr(sync, "concurrency", lambda names, occupy=1: None)
    assert "lease_duration" in (problem("concurrency-slot") or "")
    monkeypatch.setattr(
        BaseJobConfiguration,
        "_base_flow_run_environment",
        staticmethod(lambda flow_run: {"PREFECT_FLOW_RUN": str(flow_run.id)}),
    )
    assert "PREFECT__FLOW_RUN_ID" in (problem("run-environment") or "")


def test_a_missing_internal_warns_once_naming_it_and_what_is_lost(
    fresh: dict[str, str | None], capsys: pytest.CaptureFixture[str]
) -> None:
    fresh["heartbeat-off"] = "Changed: simulated"
    assert usable("heartbeat-off") is False
    assert usable("heartbeat-off") is False
    warning = capsys.readouterr().err
    assert warning.count("warning:") == 1
    assert "SettingsContext" in warning and "simulated" in warning
    assert "ends up to a second later" in warning


def test_without_the_control_listener_every_flow_imports_and_a_stop_is_not_a_cancel() -> None:
    """Before, `shutdown.py` imported it at its top: with it moved, no flow module imported."""
    script = (
        "import sys; sys.modules['prefect._internal.control_listener'] = None\n"
        "import thoughtforge.flows.pipeline, thoughtforge.flows.polish\n"
        "import thoughtforge.flows.repolish\n"
        "from thoughtforge.flows.runtime.shutdown import _cancelling\n"
        "print(_cancelling(), _cancelling())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]
    assert result.stderr.count("warning:") == 1
    assert "control_listener" in result.stderr


def test_each_use_falls_back_to_plain_prefect(fresh: dict[str, str | None]) -> None:
    from prefect.context import get_settings_context

    from thoughtforge.flows.runtime import deployment_parts, heartbeats, holding, limits

    for key in KEYS:
        fresh[key] = "Changed: simulated"
    before = get_settings_context().settings.flows.heartbeat_frequency
    with heartbeats.without_heartbeats():
        assert get_settings_context().settings.flows.heartbeat_frequency == before
    with holding.holding_for(300):  # outside a flow run: no hold is tried at all
        assert holding.hold(SimpleNamespace, "k", 60) is None  # type: ignore[arg-type]
    assert limits._limit_exists("thoughtforge-runs") is False
    assert deployment_parts.process_job_template() == {}
    flow = deployment_parts.FlowParts("thoughtforge.flows.polish.polish_flow")
    assert flow.parameter_schema == {}


def test_with_every_internal_there_the_uses_take_them(fresh: dict[str, str | None]) -> None:
    """The other side of the fallbacks above: the same calls use the internals."""
    from prefect.context import get_settings_context

    from thoughtforge.flows.runtime import deployment_parts, heartbeats

    with heartbeats.without_heartbeats():
        assert get_settings_context().settings.flows.heartbeat_frequency is None
    assert "command" in deployment_parts.process_job_template()["job_configuration"]
    flow = deployment_parts.FlowParts("thoughtforge.flows.polish.polish_flow")
    assert "project_id" in flow.parameter_schema["properties"]


def test_the_server_side_checks_read_prefects_source_without_importing_the_server() -> None:
    """Prefect's server modules take seconds to import; `doctor` reads their source instead."""
    script = (
        "import sys\n"
        "from thoughtforge.flows.runtime.prefect_internals import problem\n"
        "print(problem('sqlite-immediate'), problem('forced-state'))\n"
        "print(any(m.startswith('prefect.server') for m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert result.stdout.split() == ["None", "None", "False"], result.stderr
    with pytest.raises(Changed, match="has no force_it"):
        defined_with("prefect.server.api.flow_runs", "set_flow_run_state", "force_it")
    with pytest.raises(Changed, match=r"has no AioSqliteConfiguration\.begin"):
        defined_with("prefect.server.database.configurations", "AioSqliteConfiguration.begin")
    with pytest.raises(Changed, match="is gone"):
        defined_with("prefect.server.api.moved_away", "set_flow_run_state")
