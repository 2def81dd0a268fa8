"""`up` puts the deployments of the package's prefect.yaml on a real Prefect server through its
API, and only those that changed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from thoughtforge.errors import ThoughtForgeError
from thoughtforge.flows.runtime.deployment_parts import FlowParts, process_job_template
from thoughtforge.stack.api import PrefectApi
from thoughtforge.stack.deployments import (
    PACKAGED,
    deploy_changed,
    deployments_file,
    fingerprint,
    missing_flows,
    read_entries,
    write_deployments_file,
)
from thoughtforge.stack.work_pool import create_work_pool

POOL = "deployments-test"


def _prefect_yaml(folder: Path, description: str = "A project from a brain dump.") -> Path:
    """The package's deployments, moved to their own pool, in `folder`."""
    data = yaml.safe_load(PACKAGED.read_text())
    for entry in data["deployments"]:
        entry["work_pool"]["name"] = POOL
    data["deployments"][0]["description"] = description
    folder.mkdir(exist_ok=True)
    path = folder / "prefect.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture
def api(prefect_api_url: str) -> PrefectApi:
    api = PrefectApi(prefect_api_url)
    create_work_pool(api, process_job_template, POOL)
    return api


def _deployments(api: PrefectApi) -> dict[str, dict[str, object]]:
    found = api.call("POST", "/deployments/filter", {"work_pools": {"name": {"any_": [POOL]}}})
    return {f"{item['entrypoint']}|{item['name']}": item for item in found}


def test_the_first_up_deploys_every_flow_and_the_next_only_what_changed(
    tmp_path: Path, api: PrefectApi
) -> None:
    prefect_yaml = _prefect_yaml(tmp_path)
    assert deploy_changed(api, prefect_yaml, tmp_path, FlowParts) == [
        "thoughtforge-pipeline/local",
        "thoughtforge-polish/local",
        "thoughtforge-repolish/nightly",
    ]
    assert deploy_changed(api, prefect_yaml, tmp_path, FlowParts) == []

    pipeline = _deployments(api)["thoughtforge.flows.pipeline.pipeline_flow|local"]
    assert pipeline["job_variables"]["working_dir"] == str(tmp_path)  # type: ignore[index]
    assert pipeline["pull_steps"] == [], "a pull step would load Prefect's runner in every run"
    assert pipeline["enforce_parameter_schema"] is True
    schema = pipeline["parameter_openapi_schema"]
    assert schema["properties"]["brain_dump"] == {  # type: ignore[index]
        "default": "",
        "position": 1,
        "title": "brain_dump",
        "type": "string",
    }
    nightly = _deployments(api)["thoughtforge.flows.repolish.repolish_flow|nightly"]
    [schedule] = nightly["schedules"]  # type: ignore[misc]
    assert schedule["active"] is False
    assert schedule["schedule"]["cron"] == "0 3 * * *"

    elsewhere = _prefect_yaml(tmp_path / "again", "Another description.")
    assert deploy_changed(api, elsewhere, tmp_path / "again", FlowParts) == [
        "thoughtforge-pipeline/local",
        "thoughtforge-polish/local",
        "thoughtforge-repolish/nightly",
    ], "another folder for the runs is a change to every deployment"


def test_a_deployment_changed_on_the_server_or_in_the_file_is_deployed_again(
    tmp_path: Path, api: PrefectApi
) -> None:
    prefect_yaml = _prefect_yaml(tmp_path)
    deploy_changed(api, prefect_yaml, tmp_path, FlowParts)
    polish = _deployments(api)["thoughtforge.flows.polish.polish_flow|local"]
    api.call("PATCH", f"/deployments/{polish['id']}", {"version": "by-hand"})
    assert deploy_changed(api, prefect_yaml, tmp_path, FlowParts) == ["thoughtforge-polish/local"]

    data = yaml.safe_load(prefect_yaml.read_text())
    data["deployments"][0]["description"] = "Edited."
    prefect_yaml.write_text(yaml.safe_dump(data))
    assert deploy_changed(api, prefect_yaml, tmp_path, FlowParts) == ["thoughtforge-pipeline/local"]
    pipeline = _deployments(api)["thoughtforge.flows.pipeline.pipeline_flow|local"]
    assert pipeline["description"] == "Edited."


def _one_deployment(tmp_path: Path, entrypoint: str) -> Path:
    path = tmp_path / "prefect.yaml"
    entry = {"name": "d", "entrypoint": entrypoint, "work_pool": {"name": "p"}}
    path.write_text(yaml.safe_dump({"deployments": [entry]}))
    return path


def test_the_fingerprint_follows_the_flow_source_and_the_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "tfflows" / "f.py"
    source.parent.mkdir()
    (source.parent / "__init__.py").write_text("")
    source.write_text("def f(a: int) -> None: ...\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _one_deployment(tmp_path, "tfflows.f.f")
    [entry] = read_entries(tmp_path / "prefect.yaml")
    before = fingerprint(entry, tmp_path)
    assert fingerprint(entry, tmp_path) == before
    source.write_text("def f(a: int, b: str = '') -> None: ...\n")
    after = fingerprint(entry, tmp_path)
    assert after != before
    assert fingerprint(entry.model_copy(update={"tags": ["x"]}), tmp_path) != after


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "cannot be read"),
        ("deployments: [{name: x}]", "is not a deployments file"),
        ("deployments: {a: 1}", "is not a deployments file"),
        (
            "deployments: [{name: x, entrypoint: 'flows/f.py:f', work_pool: {name: p}}]",
            "is not a module path",
        ),
        ("deployments: [unclosed", "is not a deployments file"),
    ],
)
def test_a_missing_or_malformed_prefect_yaml_is_a_clear_error(
    tmp_path: Path, text: str | None, message: str
) -> None:
    path = tmp_path / "prefect.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(ThoughtForgeError, match=message):
        read_entries(path)


def test_the_package_carries_its_deployments_and_a_copy_beside_the_config_takes_their_place(
    tmp_path: Path,
) -> None:
    """Before, the deployments were read from the clone's folder: installed from a wheel, `up`
    started the server and the worker, then stopped on a prefect.yaml that was not there."""
    config = tmp_path / "config.yaml"
    assert deployments_file(config) == PACKAGED
    assert [e.entrypoint for e in read_entries(PACKAGED)] == [
        "thoughtforge.flows.pipeline.pipeline_flow",
        "thoughtforge.flows.polish.polish_flow",
        "thoughtforge.flows.repolish.repolish_flow",
    ]
    assert missing_flows(PACKAGED) == []
    written = write_deployments_file(config)
    assert written == tmp_path / "prefect.yaml" == deployments_file(config)
    assert written.read_text() == PACKAGED.read_text()
    with pytest.raises(ThoughtForgeError, match="already exists"):
        write_deployments_file(config)


def test_a_flow_this_installation_lacks_is_named_before_anything_starts(tmp_path: Path) -> None:
    path = _one_deployment(tmp_path, "thoughtforge.flows.no_such_flow.flow")
    assert missing_flows(path) == ["thoughtforge.flows.no_such_flow.flow"]
    assert missing_flows(_one_deployment(tmp_path, "no_such_package.flows.flow")) == [
        "no_such_package.flows.flow"
    ]
