from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from thoughtforge.config import (
    PACKAGED_EXAMPLE,
    CommandAgentSpec,
    Config,
    load_config,
)
from thoughtforge.errors import ConfigError


def test_example_parses_with_the_spec_defaults(tmp_path: Path) -> None:
    target = tmp_path / "config.yaml"
    target.write_text(PACKAGED_EXAMPLE.read_text())
    config = load_config(target)
    assert (config.polish.critical_max, config.polish.medium_max, config.polish.minor_max) == (
        0,
        3,
        5,
    )
    assert (config.polish.max_iterations, config.polish.stagnation_limit) == (50, 3)
    assert config.polish.retry_malformed_output == 2
    assert config.agents.call_timeout_seconds == 300
    for name in ("claude", "codex", "gemini"):  # one entry, its switches picked by the step
        spec = config.agent(name)
        assert isinstance(spec, CommandAgentSpec)
        assert (spec.profile, spec.flags) == (name, [])


def test_example_states_every_default_of_the_model(tmp_path: Path) -> None:
    """The example documents the defaults: it must not drift from the model."""
    example = yaml.safe_load(PACKAGED_EXAMPLE.read_text())
    defaults = Config(agents=example["agents"]).model_dump(mode="json", exclude={"agents"})
    stated = Config.model_validate(example).model_dump(mode="json", exclude={"agents"})
    assert stated == defaults


def test_relative_paths_resolve_against_the_config_directory(
    tmp_path: Path, write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(projects={"directory": "./work"}, prompts={"directory": "my-prompts"})
    monkeypatch.chdir("/")
    config = load_config(path)
    assert config.projects.directory == tmp_path / "work"
    assert config.prompts.directory == tmp_path / "my-prompts"


def test_invalid_yaml_is_reported_with_the_path(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("polish: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML") as caught:
        load_config(path)
    assert str(path) in str(caught.value)


def test_missing_config_is_copied_from_the_example_beside_it(tmp_path: Path) -> None:
    (tmp_path / "config.yaml.example").write_text(PACKAGED_EXAMPLE.read_text())
    said: list[str] = []
    config = load_config(tmp_path / "config.yaml", announce=said.append)
    assert (tmp_path / "config.yaml").read_text() == PACKAGED_EXAMPLE.read_text()
    assert config.agents.default == "demo"
    assert said and "Created" in said[0]


def test_missing_config_without_example_names_the_expected_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "nowhere" / "config.yaml")
    assert str(tmp_path / "nowhere" / "config.yaml") in str(caught.value)


def test_environment_variable_chooses_the_file(
    tmp_path: Path, write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(concurrency={"max_parallel_runs": 7})
    monkeypatch.chdir(tmp_path.parent)
    monkeypatch.setenv("THOUGHTFORGE_CONFIG", str(path))
    assert load_config().concurrency.max_parallel_runs == 7


def test_secrets_do_not_show_in_the_config_repr(write_config: Callable[..., Path]) -> None:
    path = write_config(connectors={"notion": {"enabled": True, "token": "secret_abc123"}})
    config = load_config(path)
    assert "secret_abc123" not in repr(config)
    assert "secret_abc123" not in config.model_dump_json()
    assert config.connectors.notion.token.get_secret_value() == "secret_abc123"
