"""ThoughtForge installed as a tool (what `pipx install` or `uv tool install` make): the wheel in a
venv of its own, outside any clone, runs deployed from `init` to `done`.

Before, `up` from such an install started the server and the worker, then stopped on a
prefect.yaml it looked for beside the package, leaving both running.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.stack.conftest import INSTALLED_TIMEOUT, REPO, free_port, run_ok, wait_for
from thoughtforge.config import state_dir
from thoughtforge.core.processes import live_processes
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import read_view
from thoughtforge.core.state import read_status
from thoughtforge.models import Phase
from thoughtforge.stack.api import PrefectApi

pytestmark = [pytest.mark.slow, pytest.mark.timeout(INSTALLED_TIMEOUT)]


def test_the_wheel_in_a_venv_of_its_own_runs_a_deployed_project_to_done(
    installed: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    bin_dir = installed / "bin"
    env = {
        "PATH": "/usr/bin:/bin",  # the venv is not activated: a tool's commands run by their path
        "HOME": str(tmp_path),
        "PREFECT_HOME": str(tmp_path / ".prefect"),
        "COLUMNS": "200",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
    }

    def tf(*args: str) -> subprocess.CompletedProcess[str]:
        return run_ok([str(bin_dir / "thoughtforge"), *args], env=env, cwd=work, timeout=300)

    where = run_ok(
        [str(bin_dir / "python"), "-c", "import thoughtforge; print(thoughtforge.__file__)"],
        env=env,
        cwd=work,
    ).stdout.strip()
    assert where.startswith(str(installed)), f"not the installed copy: {where}"
    assert not where.startswith(str(REPO))

    tf("init")
    port, web_port = free_port(), free_port()
    started = tf("up", "--port", str(port), "--web-port", str(web_port))
    try:
        assert f"Prefect server started at http://127.0.0.1:{port}/api" in started.stdout
        assert f"http://127.0.0.1:{web_port}/" in started.stdout
        [line] = re.findall(r"Then start a project from it: (.+)", started.stdout)
        command = shlex.split(line)
        assert command[0] == str(bin_dir / "thoughtforge"), "PATH has no thoughtforge: its path"
        assert command[1:3] == ["run-deployment", "thoughtforge-pipeline/local"]
        example = Path(command[-1].removeprefix("brain_dump=@"))
        assert example.is_relative_to(installed), "the example travels with the package"
        # The line for Prefect's own commands names one this install has (PATH has none).
        [(prefect, api)] = re.findall(
            r"For `(.+)` commands in this shell: export PREFECT_API_URL=(\S+)", started.stdout
        )
        assert prefect == str(bin_dir / "prefect")
        listed = run_ok(
            [prefect, "deployment", "ls"], env={**env, "PREFECT_API_URL": api}, cwd=work
        )
        assert "thoughtforge-pipeline/local" in listed.stdout
        run_ok([*command, "-p", "auto_confirm=true"], env=env, cwd=work, timeout=300)
        projects = work / "projects"

        def done(revision: int) -> Callable[[], bool]:
            def reached() -> bool:
                found = [p for p in projects.glob("*") if not p.name.startswith(".")]
                if len(found) != 1 or read_status(found[0]).phase is not Phase.DONE:
                    return False
                return read_view(Project(id=found[0].name, dir=found[0])).revision == revision

            return reached

        wait_for(done(1), "the deployed project to reach done", 300)
        status = tf("status").stdout
        assert "done" in status, status
        [project] = [p for p in projects.glob("*") if not p.name.startswith(".")]

        # The README's (and docs') other runs, as written there, by this install's own command.
        documents = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
        readme = " ".join(" ".join(d.read_text(encoding="utf-8").split()) for d in documents)
        revise = (
            "thoughtforge run-deployment thoughtforge-pipeline/local -p project_id=ID -p "
            'change_request="…"'
        )
        assert revise in readme
        tf(
            "run-deployment",
            "thoughtforge-pipeline/local",
            *("-p", f"project_id={project.name}", "-p", "change_request=Add a rain plan"),
            *("-p", "auto_confirm=true"),
        )
        wait_for(done(2), "the revision to reach done", 300)
        assert "thoughtforge run-deployment thoughtforge-repolish/nightly" in readme
        repolish = tf("run-deployment", "thoughtforge-repolish/nightly").stdout
        run_id = repolish.strip().rsplit("/runs/flow-run/", 1)[1]
        api = PrefectApi(f"http://127.0.0.1:{port}/api")

        def completed() -> bool:
            state = api.call("GET", f"/flow_runs/{run_id}")["state"]["type"]
            assert state not in ("FAILED", "CRASHED", "CANCELLED"), state
            return bool(state == "COMPLETED")

        wait_for(completed, "the re-polish run to complete", 300)
    finally:
        stopped = tf("down")
    assert "Stopped" in stopped.stdout
    assert live_processes(state_dir(work / "config.yaml")) == [], "down left a process behind"
