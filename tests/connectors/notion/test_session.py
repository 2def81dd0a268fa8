"""Reading a Notion `Retry-After` header as the seconds to wait."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from thoughtforge.connectors.notion.session import retry_after_seconds


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("5", 5.0), ("0", 0.0), ("1.5", 1.5), ("-3", 0.0), ("soon", 1.0), (None, 1.0)],
)
def test_retry_after_values(value: str | None, seconds: float) -> None:
    assert retry_after_seconds(value) == seconds


def test_retry_after_as_an_http_date() -> None:
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= retry_after_seconds(later) <= 30
