"""The real agent CLIs (installed by `.ci/install-agent-clis`), each in a home of its own that
points it at the fake model API, with telemetry and update checks off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.agent_clis.fake_model_api import FakeModelAPI
from tests.conftest import REPO_ROOT
from tests.flows.conftest import run_cli

CLIS = ("claude", "codex", "gemini")
CACHE = Path(os.environ.get("THOUGHTFORGE_CACHE") or Path.home() / ".cache" / "thoughtforge")
CLI_BIN = CACHE / "agent-clis" / "node_modules" / ".bin"
FAKE_KEY = "sk-fake-key-for-the-fake-api"


def missing_clis() -> str | None:
    absent = [cli for cli in CLIS if not (CLI_BIN / cli).exists()]
    if absent:
        return (
            f"the agent CLIs ({', '.join(absent)}) are not installed in {CLI_BIN}: "
            f"run {REPO_ROOT / '.ci' / 'install-agent-clis'}"
        )
    return None


def cli_env(home: Path, cli: str, api: FakeModelAPI, prefect_api_url: str) -> dict[str, str]:
    """The environment a person who uses `cli` has, pointed at the fake model API."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": f"{Path(sys.executable).parent}:{CLI_BIN}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "PREFECT_HOME": str(home / ".prefect"),
        "PREFECT_API_URL": prefect_api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "COLUMNS": "200",
        "PYTHONPATH": str(REPO_ROOT),
    }
    if cli == "claude":
        env.update(
            ANTHROPIC_BASE_URL=api.url,
            ANTHROPIC_API_KEY=FAKE_KEY,
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
    elif cli == "codex":
        codex_home = home / ".codex"
        codex_home.mkdir(exist_ok=True)
        # A provider of its own: the fake speaks HTTP, not the WebSocket Codex tries first.
        (codex_home / "config.toml").write_text(
            'model_provider = "fake"\ncheck_for_update_on_startup = false\n\n'
            "[analytics]\nenabled = false\n\n"
            '[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{api.url}/v1"\nenv_key = "CODEX_API_KEY"\n'
            'wire_api = "responses"\nsupports_websockets = false\n'
        )
        env.update(CODEX_HOME=str(codex_home), CODEX_API_KEY=FAKE_KEY)
    else:
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        (home / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        env.update(GOOGLE_GEMINI_BASE_URL=api.url, GEMINI_API_KEY=FAKE_KEY)
    return env


@dataclass
class Bench:
    """One test's fake model API, folder and Prefect server: runs `thoughtforge` with a CLI."""

    api: FakeModelAPI
    tmp_path: Path
    prefect_api_url: str

    def config(self, agent: str, timeout: float = 120, **sections: object) -> Path:
        """The packaged example's config, its agent entries unchanged, `agent` the default."""
        data = yaml.safe_load((REPO_ROOT / "config.yaml.example").read_text())
        data["projects"]["directory"] = str(self.tmp_path / "projects")
        data["server"]["port"] = 9  # no Prefect server of a developer's is found
        for name, values in sections.items():
            data.setdefault(name, {}).update(values)
        data["agents"]["default"] = agent
        data["agents"]["call_timeout_seconds"] = timeout
        path = self.tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(data))
        return path

    def thoughtforge(
        self, cli: str, *args: str, config: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = cli_env(self.tmp_path / "home", cli, self.api, self.prefect_api_url)
        return run_cli(env, config or self.config(cli), *args)


@pytest.fixture
def bench(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Bench]:
    """Skips, saying why, before any server starts when the CLIs are not installed."""
    why = missing_clis()
    if why:
        pytest.skip(why)
    prefect_api_url = request.getfixturevalue("prefect_api_url")
    with FakeModelAPI() as api:
        yield Bench(api, tmp_path, prefect_api_url)
