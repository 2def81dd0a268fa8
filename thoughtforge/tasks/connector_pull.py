"""Each connector pull as a Prefect task: named after the connector and the link in the run's UI,
and retried when the failure is transient (a timeout, a rate limit, a 5xx); an authentication
failure or a missing page fails at once, since asking again cannot change the answer."""

from __future__ import annotations

from typing import Any

from prefect.cache_policies import NO_CACHE
from prefect.tasks import task

from thoughtforge.connectors import Connector, Fetched
from thoughtforge.errors import ConnectorError

RETRIES = 2
RETRY_DELAY_SECONDS = [2.0, 10.0]


def fetch_as_task(connector: Connector, url: str) -> Fetched:
    """`connector.fetch(url)` as a task; the last `ConnectorError` once the retries are spent."""
    pull = task(
        name=f"pull {connector.name}",
        task_run_name=f"pull {connector.name}: {url}"[:120],
        retries=RETRIES,
        retry_delay_seconds=RETRY_DELAY_SECONDS,
        retry_condition_fn=_transient,
        cache_policy=NO_CACHE,
        persist_result=False,
    )(connector.fetch)
    return pull(url)


def _transient(task: Any, task_run: Any, state: Any) -> bool:
    failure = state.data if isinstance(state.data, BaseException) else None
    return isinstance(failure, ConnectorError) and failure.transient
