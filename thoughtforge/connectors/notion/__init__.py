"""The Notion connector: a page URL (or a bare page id) in, the page as Markdown out.

It talks to the Notion API through `notion-client` (`Client(auth=..., base_url=...,
timeout_ms=...)`):

* the page object (`pages.retrieve`) gives the title: the property of type `title`;
* the content comes from the Markdown endpoint (`pages.retrieve_markdown`,
  `GET /v1/pages/{id}/markdown`). Its answer names the blocks it could not render
  (`unknown_block_ids`, shown as `<unknown url=".." alt=".."/>` tags; `truncated` when the page
  passed Notion's record limit). Each of those ids is passed back to the same endpoint, as the
  API reference says to, and its Markdown takes the place of its tag (or is appended when no tag
  names it). An id that answers 404 (not shared with the integration) is left as its tag and
  named in `Fetched.skipped`; one the endpoint still cannot render (a bookmark, an embed) is read
  with `blocks.retrieve` and converted here;
* when the Markdown endpoint is refused (400, 403 or 404 while the page itself answered), the
  content is read block by block instead (`blocks.children.list`, every page of it, and the
  children of every block that has some) and converted here: `blocks_to_markdown`.

Rate limits: a 429 is retried after the `Retry-After` it names (at most `MAX_RETRY_AFTER_SECONDS`,
at most `RATE_LIMIT_RETRIES` times); the wait goes through the `sleep` the connector was given.
The client's own retries are switched off so that every wait is this one, bounded and visible.

Every failure is a `ConnectorError` with connector `notion`, the URL as the user gave it, and one
`kind`: `auth` (401, or no token), `not_found` (404, a 403 on the page itself, or another 4xx),
`malformed_url`, `timeout`, `rate_limited` (still 429 after the retries), `server` (5xx, no
connection, an answer that is not JSON), `too_large` (a block walk past `max_blocks`).
The token never appears in a message: details are built from status, code and the API's message,
with the token masked should a server ever echo it, and the SDK's `notion_client` logger carries
a filter that masks it too. That logger keeps the level the application gave it; left unset, it
is set to ERROR (the SDK's warnings repeat what the `ConnectorError` says).
"""

from thoughtforge.connectors.notion.connector import NotionConnector

__all__ = ["NotionConnector"]
