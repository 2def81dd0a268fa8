"""A change request through the deployment: `prefect deployment run` with `project_id` and
`change_request` takes a done plan project through revision 2 on the worker, rebuilding only the
section the change touches; the run is named for the revision."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.flows.test_after_done import CHANGE, _sections, revision_script
from tests.stack.conftest import BIN, REPO, Stack, running, wait_for
from thoughtforge.core.history import project_history
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_status
from thoughtforge.models import Phase
from thoughtforge.stack.api import PrefectApi

pytestmark = pytest.mark.slow


def test_a_revision_runs_on_the_deployment(tmp_path: Path) -> None:
    stack = Stack(tmp_path)
    script = revision_script(tmp_path / "script.yaml")
    data = yaml.safe_load(stack.config.read_text())  # the worker's runs read the agent from it
    data["agents"]["available"]["reviser"] = {
        "command": str(BIN / "thoughtforge-scripted-agent"),
        "flags": ["--script", str(script)],
    }
    data["agents"]["default"] = "reviser"
    stack.config.write_text(yaml.safe_dump(data))
    with running(stack):
        brain_dump = REPO / "examples" / "wedding-plan.md"
        started = stack.prefect(
            "deployment", "run", "thoughtforge-pipeline/local",
            "-p", f"brain_dump=@{brain_dump}", "-p", "auto_confirm=true",
        )  # fmt: skip
        assert started.returncode == 0, started.stdout + started.stderr
        wait_for(
            lambda: (
                stack.projects.exists()
                and any(not p.name.startswith(".") for p in stack.projects.iterdir())
                and read_status(stack.project()).phase is Phase.DONE
            ),
            "the first pass done",
        )
        project = stack.project()
        first = (project / "docs" / "plan.md").read_text()
        handle = Project(id=project.name, dir=project)
        wait_for(lambda: PrefectApi(stack.api).busy_run(handle) is None, "the first run ended", 60)

        revised = stack.prefect(
            "deployment", "run", "thoughtforge-pipeline/local",
            "-p", f"project_id={project.name}", "-p", f"change_request={CHANGE}",
            "-p", "auto_confirm=true",
        )  # fmt: skip
        assert revised.returncode == 0, revised.stdout + revised.stderr
        wait_for(
            lambda: "r2-phase4" in [item.name for item in project_history(project)],
            "revision 2 done (its Done commit)",
        )
        assert read_status(project).phase is Phase.DONE
        before, after = _sections(first), _sections((project / "docs" / "plan.md").read_text())
        assert [h for h in before if before[h] != after[h]] == ["Resources & Budget"]
        latest = PrefectApi(stack.api).latest_run(project.name)
        assert latest is not None
        wait_for(
            lambda: (PrefectApi(stack.api).latest_run(project.name) or latest).name.endswith(
                "· done · revision 2"
            ),
            "the run named for revision 2",
            60,
        )
