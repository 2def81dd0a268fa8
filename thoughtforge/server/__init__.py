"""The Prefect server from the outside: find it, start and stop it (`up`/`down`), and the few REST
calls the CLI's replies need.

Plain HTTP (httpx), no Prefect import: a reply such as `thoughtforge say` must answer in a
fraction of a second, and importing Prefect alone takes longer than that. Imports only the shared
vocabulary and `core`.
"""

from thoughtforge.server.api import (
    PROJECT_TAG_PREFIX,
    PrefectApi,
    WaitingRun,
    find_api,
    project_tag,
)

__all__ = ["PROJECT_TAG_PREFIX", "PrefectApi", "WaitingRun", "find_api", "project_tag"]
