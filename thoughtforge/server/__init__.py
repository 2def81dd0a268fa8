"""The Prefect server from the outside: find it, start and stop it (`up`/`down`), deploy the
flows, and the REST calls that hand a person's input to a waiting run.

Plain HTTP (httpx), no Prefect import: a reply such as `thoughtforge say` must answer in a
fraction of a second, and importing Prefect alone takes longer than that. Imports the layers
below it (docs/ARCHITECTURE.md), never `actions`, `flows` or a door.
"""

from thoughtforge.server.api import (
    PROJECT_TAG_PREFIX,
    PrefectApi,
    WaitingRun,
    find_api,
    project_tag,
)

__all__ = ["PROJECT_TAG_PREFIX", "PrefectApi", "WaitingRun", "find_api", "project_tag"]
