"""The parameters of a run on one of ThoughtForge's deployments, checked before the run is asked
for: `thoughtforge run-deployment -p KEY=VALUE` refuses what the flow would refuse (or crash on)
in the worker, and what the page and MCP refuse at their own doors — an unknown parameter, a
value of the wrong type, a deliverable type or an agent this install does not have, a project
that does not exist, a connector URL that is no web address.

Each model's fields are its flow's parameters (`tests/actions/test_run_parameters.py` holds them
to the flows' signatures). A deployment of another flow is the server's to check.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from thoughtforge.actions.starting import DELIVERABLE_TYPE_PATTERN
from thoughtforge.config import Config, load_config
from thoughtforge.core.project import open_project
from thoughtforge.errors import ThoughtForgeError, schema_problems
from thoughtforge.phases.plugin_loader import load_plugins


class _Parameters(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PipelineParameters(_Parameters):
    project_id: str = ""
    brain_dump: str = ""
    brain_dump_file: str = ""
    resources: list[str] | None = None
    connector_urls: list[str] | None = None
    agent: str = ""
    deliverable_type: str = Field("", pattern=DELIVERABLE_TYPE_PATTERN)
    auto_confirm: bool = False
    config_path: str = ""
    change_request: str = ""


class PolishParameters(_Parameters):
    project_id: str
    config_path: str | None = None
    wait_for_human: bool = False


class RepolishParameters(_Parameters):
    config_path: str = ""


FLOW_PARAMETERS: dict[str, type[_Parameters]] = {
    "thoughtforge-pipeline": PipelineParameters,
    "thoughtforge-polish": PolishParameters,
    "thoughtforge-repolish": RepolishParameters,
}
"""Each of ThoughtForge's flows by name, with its parameters."""


def check_run_parameters(config: Config, deployment: str, parameters: dict[str, Any]) -> None:
    """`ThoughtForgeError` naming what is wrong with `parameters` for a run of `deployment`
    (`FLOW/NAME`), before anything is started."""
    model = FLOW_PARAMETERS.get(deployment.partition("/")[0])
    if model is None:
        return
    try:
        checked = model.model_validate(parameters)
    except ValidationError as exc:
        raise ThoughtForgeError(f"{deployment}: bad parameters: {schema_problems(exc)}") from None
    config_path = getattr(checked, "config_path", None)
    if config_path:
        config = load_config(config_path)
    project_id = getattr(checked, "project_id", "")
    if project_id:
        open_project(config, project_id)
    if isinstance(checked, PipelineParameters):
        _check_pipeline(config, checked)


def _check_pipeline(config: Config, checked: PipelineParameters) -> None:
    if checked.deliverable_type and checked.deliverable_type not in load_plugins(config):
        kinds = ", ".join(sorted(load_plugins(config)))
        raise ThoughtForgeError(
            f"deliverable_type: no deliverable type '{checked.deliverable_type}' here ({kinds})"
        )
    if checked.agent:
        config.agent(checked.agent)
    for url in checked.connector_urls or []:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ThoughtForgeError(f"connector_urls: {url!r} is no http(s) address")
