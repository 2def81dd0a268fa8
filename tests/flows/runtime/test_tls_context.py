"""Prefect's API clients in a flow process share one TLS context, made as Prefect would make it.

Real Prefect clients; each is only made, never connected: the context is chosen when a client is
made. What a client holds is read from its httpx connection pool.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import certifi
from prefect.client.orchestration import PrefectClient, SyncPrefectClient, get_client
from prefect.settings import (
    PREFECT_API_SSL_CERT_FILE,
    PREFECT_API_TLS_INSECURE_SKIP_VERIFY,
    PREFECT_API_URL,
    temporary_settings,
)

from thoughtforge.flows.runtime.tls_context import share_one_tls_context

API = "http://127.0.0.1:9/api"


def _context_of(client: PrefectClient | SyncPrefectClient) -> ssl.SSLContext:
    return client._client._transport._pool._ssl_context  # type: ignore[attr-defined,no-any-return]


def _contexts_of_new_clients(settings: dict[Any, Any] | None = None) -> list[ssl.SSLContext]:
    share_one_tls_context()
    with temporary_settings({PREFECT_API_URL: API, **(settings or {})}):
        clients = [get_client(), get_client(), get_client(sync_client=True), PrefectClient(API)]
        return [_context_of(client) for client in clients]


def test_every_client_made_after_sharing_holds_the_same_verifying_context() -> None:
    first, *others = _contexts_of_new_clients()
    assert all(other is first for other in others)
    assert first.verify_mode is ssl.CERT_REQUIRED and first.check_hostname
    assert first.cert_store_stats()["x509_ca"] > 100, "certifi's roots, as Prefect loads them"


def test_the_insecure_setting_shares_a_context_that_verifies_nothing() -> None:
    first, *others = _contexts_of_new_clients({PREFECT_API_TLS_INSECURE_SKIP_VERIFY: True})
    assert all(other is first for other in others)
    assert first.verify_mode is ssl.CERT_NONE and not first.check_hostname
    assert first is not _contexts_of_new_clients()[0]


def test_the_cert_file_setting_is_the_shared_contexts_only_roots(tmp_path: Path) -> None:
    pem = Path(certifi.where()).read_text()
    one_root = tmp_path / "root.pem"
    one_root.write_text(pem[: pem.index("-----END CERTIFICATE-----") + 26])
    first, *others = _contexts_of_new_clients({PREFECT_API_SSL_CERT_FILE: str(one_root)})
    assert all(other is first for other in others)
    assert first.cert_store_stats()["x509_ca"] == 1


def test_a_client_given_its_own_verify_keeps_it() -> None:
    share_one_tls_context()
    own = ssl.create_default_context()
    assert _context_of(PrefectClient(API, httpx_settings={"verify": own})) is own
    assert _context_of(SyncPrefectClient(API, httpx_settings={"verify": own})) is own


def test_sharing_again_wraps_the_clients_once() -> None:
    share_one_tls_context()
    wrapped = PrefectClient.__init__
    share_one_tls_context()
    assert PrefectClient.__init__ is wrapped
    assert not hasattr(wrapped.__wrapped__, "_thoughtforge_shares_tls_context")  # type: ignore[attr-defined]
