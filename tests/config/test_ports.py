"""Ports chosen without editing the config: `up --port`'s record, then the environment."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import config_data
from thoughtforge.config import load_config
from thoughtforge.config.ports import (
    SERVER_PORT_ENV,
    TEMPORARY_PORT_ENV,
    WEB_PORT_ENV,
    Ports,
    forget_ports,
    record_ports,
)
from thoughtforge.errors import ConfigError


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(SERVER_PORT_ENV, raising=False)
    monkeypatch.delenv(WEB_PORT_ENV, raising=False)
    monkeypatch.delenv(TEMPORARY_PORT_ENV, raising=False)
    path = tmp_path / "config.yaml"
    data = config_data(tmp_path, server={"host": "127.0.0.1", "port": 4200}, web={"port": 8765})
    path.write_text(yaml.safe_dump(data))
    return path


def test_the_ports_up_recorded_hold_for_every_command_until_down_forgets_them(
    config_file: Path,
) -> None:
    record_ports(config_file, Ports(server=4300))
    config = load_config(config_file)
    assert (config.server.port, config.web.port) == (4300, 8765)
    record_ports(config_file, Ports(web=8800))  # a later `up --web-port` keeps the server's
    config = load_config(config_file)
    assert (config.server.port, config.web.port) == (4300, 8800)
    forget_ports(config_file)
    config = load_config(config_file)
    assert (config.server.port, config.web.port) == (4200, 8765)


def test_the_environment_wins_over_the_record_and_a_bad_value_is_named(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_ports(config_file, Ports(server=4300, web=8800))
    monkeypatch.setenv(SERVER_PORT_ENV, "4400")
    config = load_config(config_file)
    assert (config.server.port, config.web.port) == (4400, 8800)
    monkeypatch.setenv(WEB_PORT_ENV, "http")
    with pytest.raises(ConfigError, match=WEB_PORT_ENV):
        load_config(config_file)


def test_a_damaged_record_is_ignored(config_file: Path) -> None:
    record = config_file.parent / ".thoughtforge" / "ports.json"
    record.parent.mkdir()
    record.write_text("{not json")
    assert load_config(config_file).server.port == 4200


def test_the_temporary_servers_port_has_a_variable(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_config(config_file).server.temporary_port is None
    monkeypatch.setenv(TEMPORARY_PORT_ENV, "4377")
    assert load_config(config_file).server.temporary_port == 4377
    monkeypatch.setenv(TEMPORARY_PORT_ENV, "0")
    with pytest.raises(ConfigError, match=TEMPORARY_PORT_ENV):
        load_config(config_file)
