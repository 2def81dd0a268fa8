"""`prefect.yaml` lives at the repository's root, where Prefect users run `prefect deploy`: from a
fresh clone, `prefect deploy --all` registers every deployment it declares on a real server, and
the copy `up` deploys from is that same file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.stack.conftest import REPO
from thoughtforge.stack.api import PrefectApi, PrefectApiError
from thoughtforge.stack.deployments import PACKAGED, read_entries
from thoughtforge.stack.work_pool import WORK_POOL

BIN = Path(sys.executable).parent


def test_the_deployments_up_reads_are_the_root_prefect_yaml() -> None:
    assert PACKAGED.read_bytes() == (REPO / "prefect.yaml").read_bytes()
    assert not (REPO / "thoughtforge" / "server" / "prefect.yaml").exists()


@pytest.mark.slow
def test_prefect_deploy_all_from_a_fresh_clone_registers_the_deployments(
    tmp_path: Path, prefect_api_url: str
) -> None:
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "--quiet", "--depth", "1", f"file://{REPO}", str(clone)],
        check=True,
        timeout=120,
    )
    api = PrefectApi(prefect_api_url)
    try:  # the pool `up` makes (another test on this server may have made it already)
        api.call("POST", "/work_pools/", {"name": WORK_POOL, "type": "process"})
    except PrefectApiError as exc:
        assert exc.status == 409, exc
    env = {**os.environ, "PREFECT_API_URL": prefect_api_url, "PREFECT_HOME": str(tmp_path)}
    result = subprocess.run(
        [str(BIN / "prefect"), "--no-prompt", "deploy", "--all"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    declared = yaml.safe_load((clone / "prefect.yaml").read_text())["deployments"]
    found = api.call("POST", "/deployments/filter", {})
    registered = {(d["name"], d["entrypoint"]) for d in found}
    wanted = {(entry.name, entry.entrypoint) for entry in read_entries(clone / "prefect.yaml")}
    assert len(wanted) == len(declared) == 3
    assert wanted <= registered, result.stdout
    assert {d["work_pool_name"] for d in found if (d["name"], d["entrypoint"]) in wanted} == {
        WORK_POOL
    }
