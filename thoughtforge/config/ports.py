"""The server's and the workbench's ports, chosen without editing the config: a second set-up on
the same machine, or a port another program holds.

`thoughtforge up --port N --web-port M` records its choice beside the config (`ports.json` in
the state folder), so every command with that config, and every process `up` starts, finds that
server until `down` forgets it. `THOUGHTFORGE_SERVER_PORT` / `THOUGHTFORGE_WEB_PORT` choose them
for one shell, over the record, and `THOUGHTFORGE_TEMPORARY_PORT` the port of the server a command
starts when none answers (`server.temporary_port`). The config file's ports apply otherwise.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from thoughtforge.config.files import state_dir
from thoughtforge.config.model import Config
from thoughtforge.errors import ConfigError

SERVER_PORT_ENV = "THOUGHTFORGE_SERVER_PORT"
WEB_PORT_ENV = "THOUGHTFORGE_WEB_PORT"
TEMPORARY_PORT_ENV = "THOUGHTFORGE_TEMPORARY_PORT"
_ENVIRONMENT = {"server": SERVER_PORT_ENV, "web": WEB_PORT_ENV, "temporary": TEMPORARY_PORT_ENV}
RECORD = "ports.json"


class Ports(BaseModel):
    server: int | None = Field(None, ge=1, le=65535)
    web: int | None = Field(None, ge=1, le=65535)
    temporary: int | None = Field(None, ge=1, le=65535)


def with_chosen_ports(config: Config, config_file: Path) -> Config:
    """`config` with the ports `up` recorded, then those of the environment, in force."""
    chosen = _recorded(config_file).model_dump(exclude_none=True)
    for key, variable in _ENVIRONMENT.items():
        if os.environ.get(variable):
            chosen[key] = os.environ[variable]
    try:
        ports = Ports.model_validate(chosen)
    except ValidationError:
        raise ConfigError(
            f"{'/'.join(_ENVIRONMENT.values())} must be port numbers (1-65535): {chosen}"
        ) from None
    if ports.server is not None:
        config.server.port = ports.server
    if ports.web is not None:
        config.web.port = ports.web
    if ports.temporary is not None:
        config.server.temporary_port = ports.temporary
    return config


def record_ports(config_file: Path, ports: Ports) -> None:
    """Keep `up`'s choice for every later command with this config (until `forget_ports`)."""
    merged = _recorded(config_file).model_copy(update=ports.model_dump(exclude_none=True))
    folder = state_dir(config_file)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{RECORD}.tmp"
    temporary.write_text(merged.model_dump_json())
    temporary.replace(folder / RECORD)


def forget_ports(config_file: Path) -> None:
    (state_dir(config_file) / RECORD).unlink(missing_ok=True)


def _recorded(config_file: Path) -> Ports:
    try:
        return Ports.model_validate(json.loads((state_dir(config_file) / RECORD).read_text()))
    except (OSError, ValueError):  # none recorded; a damaged record is as good as none
        return Ports()
