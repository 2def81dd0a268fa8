"""Every Prefect API client in this process shares one TLS context.

Prefect builds a new `ssl.SSLContext` for each API client it makes, loading certifi's ~150 root
certificates into it (PrefectHQ/prefect#19106 lets a caller pass one, but Prefect's own services
never do). A flow run keeps about ten clients alive while it waits, one per background thread (logs,
events, the run slot's lease, the suspension observer…), so their contexts are a good part of a
waiting run's memory (bench/bench_import_costs.py measures one). The contexts are identical, made
from the same two settings, and a configured context may be shared by connections in any thread, so
each client is given the one made for the settings in force. A client given its own `verify` keeps
it.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Callable
from typing import Any

import certifi
from prefect.client.orchestration import PrefectClient, SyncPrefectClient
from prefect.settings import PREFECT_API_SSL_CERT_FILE, PREFECT_API_TLS_INSECURE_SKIP_VERIFY

from thoughtforge.flows.runtime.prefect_internals import TLS_CONTEXT, usable

_SHARING = "_thoughtforge_shares_tls_context"


def share_one_tls_context() -> None:
    """Prefect's clients made from now on in this process share their TLS context (once per
    process; the warm starter's children inherit it)."""
    if not usable(TLS_CONTEXT):
        return
    for client in (PrefectClient, SyncPrefectClient):
        if not getattr(client.__init__, _SHARING, False):
            # wrapping Prefect's constructor is the point
            client.__init__ = _sharing(client.__init__)  # type: ignore[method-assign]


def _sharing(init: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(init)
    def __init__(
        self: Any, api: Any, *, httpx_settings: dict[str, Any] | None = None, **options: Any
    ) -> None:
        settings = dict(httpx_settings or {})
        settings.setdefault("verify", _context_for_settings())
        init(self, api, httpx_settings=settings, **options)

    setattr(__init__, _SHARING, True)
    return __init__


def _context_for_settings() -> ssl.SSLContext:
    return _context(
        bool(PREFECT_API_TLS_INSECURE_SKIP_VERIFY.value()),
        PREFECT_API_SSL_CERT_FILE.value() or certifi.where(),
    )


@functools.cache
def _context(insecure: bool, cert_file: str) -> ssl.SSLContext:
    """The context Prefect would make (`PrefectClient.__init__`), made once per setting."""
    if insecure:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    return ssl.create_default_context(cafile=cert_file)
