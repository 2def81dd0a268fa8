"""The deployments of `prefect.yaml`, put on the server through its API: only those that changed.

The file is the repository root's `prefect.yaml`, the one `prefect deploy --all` reads in a clone;
the wheel carries a copy of it (`PACKAGED`, built from that one file). Its entrypoints are module
paths, so a deployment's run loads its flow from wherever ThoughtForge is installed, a clone or a
tool's venv, and starts in the config's folder. A `prefect.yaml` beside the config
(`thoughtforge init --prefect-yaml` writes a copy to edit) takes its place: one file is both what
`up` deploys and what `prefect deploy` reads, so the two cannot drift apart.

`prefect deploy --all` takes seconds even when nothing changed: it imports Prefect and every flow
to work out their parameter schemas. Here each deployment carries, as its version, a fingerprint of
what it is made of (its entry in `prefect.yaml`, its flow's source file, where its runs start,
Prefect's version). `up` reads the pool's deployments in one request and rebuilds only those
whose fingerprint differs, so an `up` with nothing changed imports nothing of Prefect. The server
stays the truth: a deployment deleted or redeployed by hand is rebuilt by the next `up`.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import re
import shutil
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

import yaml
from pydantic import BaseModel, ValidationError, field_validator

from thoughtforge.bounded_input import MAX_CONFIG_BYTES, InputRefused, load_yaml, read_capped_text
from thoughtforge.config.files import shipped_file
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.stack.api import PrefectApi


class FlowShape(Protocol):
    """What a deployment needs of its flow: `flows.runtime.deployment_parts.FlowParts`, handed in by
    the CLI so that this module imports no Prefect."""

    name: str
    parameter_schema: dict[str, Any]


FlowReader = Callable[[str], FlowShape]
"""Reads the flow an entrypoint names (`flows.runtime.deployment_parts.FlowParts`)."""

FILE_NAME = "prefect.yaml"
PACKAGED = shipped_file(FILE_NAME)
_MODULE_PATH = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$")


class Schedule(BaseModel):
    cron: str
    timezone: str = "UTC"
    active: bool = True


class PoolName(BaseModel):
    name: str


class DeploymentEntry(BaseModel):
    """One entry of `deployments:` in `prefect.yaml`, the keys ThoughtForge's file uses."""

    name: str
    entrypoint: str
    work_pool: PoolName
    description: str = ""
    tags: list[str] = []
    schedules: list[Schedule] = []
    job_variables: dict[str, str] = {}

    @field_validator("entrypoint")
    @classmethod
    def _module_path(cls, value: str) -> str:
        if not _MODULE_PATH.match(value):
            raise ValueError(
                f"{value!r} is not a module path (package.module.flow_function): runs load their "
                "flow from the installed package, not from a file in a folder"
            )
        return value

    @property
    def module(self) -> str:
        return self.entrypoint.rpartition(".")[0]


def deployments_file(config_file: Path) -> Path:
    """The `prefect.yaml` beside the config if there is one, else the package's."""
    beside = config_file.resolve().parent / FILE_NAME
    return beside if beside.exists() else PACKAGED


def write_deployments_file(config_file: Path, force: bool = False) -> Path:
    """Copy the package's `prefect.yaml` beside the config (`init --prefect-yaml`); where."""
    target = config_file.resolve().parent / FILE_NAME
    if target.exists() and not force:
        raise ThoughtForgeError(f"{target} already exists (use --force to overwrite it)")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PACKAGED, target)
    return target


def missing_flows(prefect_yaml: Path) -> list[str]:
    """The entrypoints whose module this installation cannot find (without importing them)."""
    return [entry.entrypoint for entry in read_entries(prefect_yaml) if _find(entry) is None]


def deploy_changed(
    api: PrefectApi,
    prefect_yaml: Path,
    folder: Path,
    read_flow: FlowReader,
    job_variables: dict[str, str] | None = None,
) -> list[str]:
    """Create or update the deployments whose fingerprint the server does not have; their names.
    Their runs start in `folder` (the config's); `job_variables` are added to every deployment's
    own (the worker's command for its runs); `read_flow` reads each entrypoint's flow."""
    entries = [
        entry.model_copy(update={"job_variables": {**entry.job_variables, **(job_variables or {})}})
        for entry in read_entries(prefect_yaml)
    ]
    pools = sorted({entry.work_pool.name for entry in entries})
    found = api.call("POST", "/deployments/filter", {"work_pools": {"name": {"any_": pools}}})
    deployed = {(item["entrypoint"], item["name"]): item.get("version") for item in found}
    return [
        _deploy(api, entry, folder, read_flow)
        for entry in entries
        if deployed.get((entry.entrypoint, entry.name)) != fingerprint(entry, folder)
    ]


def read_entries(prefect_yaml: Path) -> list[DeploymentEntry]:
    """The deployments the file names; a missing or malformed file is a clear error."""
    try:
        text = read_capped_text(prefect_yaml, MAX_CONFIG_BYTES, "deployments file")
        data = load_yaml(text, str(prefect_yaml)) or {}
        return [DeploymentEntry.model_validate(item) for item in data.get("deployments") or []]
    except InputRefused as exc:
        raise ThoughtForgeError(
            f"{prefect_yaml} cannot be read ({exc}): reinstall ThoughtForge, or write one with "
            "`thoughtforge init --prefect-yaml`"
        ) from None
    except (yaml.YAMLError, ValidationError, AttributeError) as exc:
        raise ThoughtForgeError(f"{prefect_yaml} is not a deployments file: {exc}") from None


def fingerprint(entry: DeploymentEntry, folder: Path) -> str:
    """What the deployment on the server must match: everything its schema and runs depend on."""
    digest = hashlib.sha256()
    digest.update(entry.model_dump_json().encode())
    digest.update(json.dumps(_where_runs_start(entry, folder), sort_keys=True).encode())
    digest.update(version("prefect").encode())
    digest.update(_source(entry).read_bytes())
    return f"tf-{digest.hexdigest()[:16]}"


def _deploy(api: PrefectApi, entry: DeploymentEntry, folder: Path, read_flow: FlowReader) -> str:
    try:
        flow = read_flow(entry.entrypoint)
    except (ImportError, AttributeError, TypeError) as exc:
        raise ThoughtForgeError(f"{entry.entrypoint} cannot be deployed: {exc}") from None
    flow_id = api.call("POST", "/flows/", {"name": flow.name})["id"]
    api.call("POST", "/deployments/", _deployment_body(entry, folder, flow_id, flow))
    return f"{flow.name}/{entry.name}"


def _deployment_body(
    entry: DeploymentEntry, folder: Path, flow_id: str, flow: FlowShape
) -> dict[str, Any]:
    """What `prefect deploy` sends for such an entry, with parameters checked against the flow's
    signature, and runs started in `folder` (`_where_runs_start`)."""
    return {
        "name": entry.name,
        "flow_id": flow_id,
        "version": fingerprint(entry, folder),
        "description": entry.description,
        "tags": entry.tags,
        "entrypoint": entry.entrypoint,
        "work_pool_name": entry.work_pool.name,
        **_where_runs_start(entry, folder),
        "parameter_openapi_schema": flow.parameter_schema,
        "enforce_parameter_schema": bool(flow.parameter_schema),
        "schedules": [
            {
                "schedule": {"cron": schedule.cron, "timezone": schedule.timezone},
                "active": schedule.active,
            }
            for schedule in entry.schedules
        ],
    }


def _where_runs_start(entry: DeploymentEntry, folder: Path) -> dict[str, Any]:
    """The worker starts each run in `folder` (its `working_dir`), with no pull step: Prefect's
    pull steps load its runner and run in a thread of their own, in every run's process, only to
    change folder. With a module-path entrypoint, no pull step and no storage, Prefect imports
    the flow from the run's `sys.path` (`load_flow_from_flow_run`): the installed package."""
    return {
        "job_variables": {**entry.job_variables, "working_dir": str(folder.resolve())},
        "pull_steps": [],
    }


def _source(entry: DeploymentEntry) -> Path:
    spec = _find(entry)
    if spec is None or spec.origin is None:
        raise ThoughtForgeError(
            f"{entry.entrypoint}: no module {entry.module} in this installation"
        )
    return Path(spec.origin)


def _find(entry: DeploymentEntry) -> importlib.machinery.ModuleSpec | None:
    try:
        return importlib.util.find_spec(entry.module)
    except ImportError:  # a parent package that is not there
        return None
