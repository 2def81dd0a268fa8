"""Notion blocks as Markdown, without a server (the connector's golden test covers every type)."""

from __future__ import annotations

from tests.fake_notion import text
from thoughtforge.connectors.notion.blocks import blocks_to_markdown


def test_the_block_converter_is_usable_on_its_own() -> None:
    blocks = [
        {"type": "numbered_list_item", "numbered_list_item": {"rich_text": [text("one")]}},
        {"type": "numbered_list_item", "numbered_list_item": {"rich_text": [text("two")]}},
        {"type": "paragraph", "paragraph": {"rich_text": [text("between")]}},
        {"type": "numbered_list_item", "numbered_list_item": {"rich_text": [text("again")]}},
    ]
    assert blocks_to_markdown(blocks) == "1. one\n2. two\n\nbetween\n\n1. again"
