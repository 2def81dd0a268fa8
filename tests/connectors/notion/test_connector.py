"""The Notion connector, with the real `notion-client` talking HTTP to `tests.fake_notion`."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.capture_server import refused_url
from tests.fake_notion import (
    TOKEN,
    FakeNotion,
    block,
    bookmark,
    bulleted,
    callout,
    child_page,
    code,
    dashed,
    divider,
    equation,
    equation_inline,
    file,
    heading,
    image,
    mention_page,
    numbered,
    paragraph,
    quote,
    table,
    text,
    to_do,
    toggle,
)
from thoughtforge.config import NotionConfig
from thoughtforge.connectors.notion import NotionConnector
from thoughtforge.connectors.notion.links import page_id_from
from thoughtforge.connectors.notion.session import MAX_RETRY_AFTER_SECONDS, RATE_LIMIT_RETRIES
from thoughtforge.errors import ConnectorError

GOLDEN = Path(__file__).parent / "golden" / "notion_blocks.md"
HEX = "1f217cc1225f45808e22cd7eb8db3c5e"
UUID = "1f217cc1-225f-4580-8e22-cd7eb8db3c5e"
OTHER = "0123456789abcdef0123456789abcdef"
GUEST_LIST = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
BAD_TOKEN = "ntn_bad_t0ken_that_must_never_show_up_anywhere"


@pytest.fixture
def notion() -> Iterator[FakeNotion]:
    with FakeNotion() as fake:
        yield fake


@pytest.fixture
def sleeps() -> list[float]:
    return []


def connect(
    notion: FakeNotion, sleeps: list[float] | None = None, **settings: Any
) -> NotionConnector:
    config = NotionConfig(
        **{"enabled": True, "token": notion.token, "base_url": notion.url, **settings}
    )
    recorded = sleeps if sleeps is not None else []
    return NotionConnector(config, sleep=recorded.append)


def failure(action: Any) -> ConnectorError:
    with pytest.raises(ConnectorError) as caught:
        action()
    assert caught.value.connector == "notion"
    return caught.value


# --- URLs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "page_id"),
    [
        (f"https://www.notion.so/acme/Wedding-Plan-{HEX}", UUID),
        (f"https://notion.so/Wedding-Plan-{HEX}", UUID),
        (f"https://acme.notion.site/Wedding-Plan-{HEX}", UUID),
        (f"https://www.notion.so/{HEX}", UUID),
        (f"https://app.notion.com/p/{HEX}", UUID),
        (HEX, UUID),
        (UUID, UUID),
        (HEX.upper(), UUID),
        (f"  https://notion.so/Plan-{HEX}  ", UUID),
        (f"www.notion.so/acme/Wedding-Plan-{HEX}", UUID),
        (f"https://www.notion.so/acme/Wedding-Plan-{HEX}/", UUID),
        (f"https://www.notion.so/Budget-2024-deadbeef-{HEX}", UUID),
        (f"https://www.notion.so/Wedding-Plan-{HEX}?pvs=4", UUID),
        (f"https://www.notion.so/Wedding-Plan-{HEX}#{OTHER}", UUID),
        (f"https://www.notion.so/acme/{HEX}?v={OTHER}", UUID),
        (f"https://www.notion.so/acme/Tasks-{OTHER}?v={OTHER}&p={HEX}&pm=s", UUID),
        (f"https://www.notion.so/acme/Tasks-{OTHER}?p={UUID}", UUID),
    ],
)
def test_every_shared_url_form_gives_the_page_id(url: str, page_id: str) -> None:
    assert page_id_from(url) == page_id
    assert NotionConnector(NotionConfig()).matches(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://www.notion.so/",
        "https://www.notion.so/acme",
        "https://acme.notion.site/Wedding-Plan",
        "https://www.notion.so/Plan-1f217cc1",
        f"https://www.notion.so/acme/Plan-{HEX}x",
        f"https://www.notion.so/acme?v={OTHER[:20]}",
    ],
)
def test_a_notion_url_without_a_page_id_is_malformed(url: str) -> None:
    assert NotionConnector(NotionConfig()).matches(url)
    error = failure(lambda: page_id_from(url))
    assert error.kind == "malformed_url"
    assert error.resource == url
    assert "could not parse URL" in str(error)


@pytest.mark.parametrize(
    "url",
    [
        f"https://example.com/Plan-{HEX}",
        f"https://notion.so.example.com/Plan-{HEX}",
        f"https://notnotion.so/Plan-{HEX}",
        "https://docs.google.com/document/d/abc/edit",
        "hello",
        "",
    ],
)
def test_other_urls_are_not_notions(url: str) -> None:
    connector = NotionConnector(NotionConfig(token=TOKEN))
    assert not connector.matches(url)
    assert failure(lambda: connector.fetch(url)).kind == "malformed_url"


def test_a_malformed_url_is_refused_before_any_request(notion: FakeNotion) -> None:
    error = failure(lambda: connect(notion).fetch("https://www.notion.so/acme/Just-a-title"))
    assert error.kind == "malformed_url"
    assert notion.served == []


# --- content ------------------------------------------------------------------------------------


def every_block_type() -> list[dict[str, Any]]:
    other_page = GUEST_LIST
    return [
        heading(1, "Wedding plan"),
        paragraph(
            "Plain, ",
            text("bold", bold=True),
            ", ",
            text("italic", italic=True),
            ", ",
            text("code", code=True),
            ", ",
            text("struck", strikethrough=True),
            ", ",
            text("bold italic ", bold=True, italic=True),
            "and ",
            text("a link", link="https://example.com/venue"),
            ", a mention of ",
            mention_page("Guest list", other_page),
            " and ",
            equation_inline("E=mc^2"),
            ".",
        ),
        paragraph("A paragraph with an indented child", children=[paragraph("The child.")]),
        paragraph(),
        heading(2, "Lists"),
        bulleted("First bullet", children=[bulleted("Nested bullet", children=[bulleted("Deep")])]),
        bulleted("Second bullet"),
        numbered("Step one"),
        numbered("Step two", children=[numbered("Sub-step a"), numbered("Sub-step b")]),
        numbered("Step three"),
        heading(3, "Tasks"),
        to_do("Book the venue", checked=True),
        to_do("Send invites", children=[to_do("Draft the guest list", checked=True)]),
        code('def hello():\n    return "hi"', "python"),
        code("no language here", caption="A caption under the code"),
        quote("Simplicity is the ultimate sophistication.\nLeonardo"),
        callout("Remember the ", text("rain plan", bold=True), ".", emoji="☔"),
        table([["Item", "Cost"], ["Venue", "5000"], ["Music | DJ", "800"]]),
        table([["no", "header"]], header=False),
        toggle("Details", children=[paragraph("Hidden until opened."), bulleted("And a list")]),
        heading(2, "A toggle heading", children=[paragraph("Under the heading.")]),
        divider(),
        child_page("Guest list", other_page),
        image("https://example.com/venue.png", "Venue photo"),
        image("https://files.example.com/hosted.png", hosted=True),
        file("https://files.example.com/budget.xlsx", name="budget.xlsx"),
        bookmark("https://example.com/ideas"),
        equation("a^2 + b^2 = c^2"),
        block("table_of_contents", {"color": "default"}),
        block(
            "column_list",
            children=[
                block("column", children=[paragraph("Left column")]),
                block("column", children=[paragraph("Right column")]),
            ],
        ),
        block("unsupported"),
        paragraph("The end."),
    ]


def test_every_block_type_becomes_the_golden_markdown(
    notion: FakeNotion, sleeps: list[float]
) -> None:
    """The block walk (the Markdown endpoint refused), three blocks per page of children so
    pagination runs at every level; UPDATE_GOLDEN=1 rewrites the golden file."""
    notion.page_limit = 3
    page_id = notion.add_page("Wedding plan", blocks=every_block_type())
    notion.fail("pages.markdown", 403)

    fetched = connect(notion, sleeps).fetch(
        f"https://www.notion.so/acme/Wedding-plan-{page_id.replace('-', '')}"
    )

    [document] = fetched.documents
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(document.text)
    assert document.text == GOLDEN.read_text()
    assert document.title == "Wedding plan"
    assert fetched.skipped == ["1 block(s) of type 'unsupported': no Markdown for them"]
    assert sleeps == []
    listed = {served.target for served in notion.requests_to("blocks.children")}
    assert dashed(GUEST_LIST) not in listed, "a child page is linked, not read"


def test_the_markdown_endpoint_is_used_when_it_answers(notion: FakeNotion) -> None:
    page_id = notion.add_page(
        "Plan", blocks=[paragraph("from blocks")], markdown="# Plan\n\n- from **markdown**"
    )

    fetched = connect(notion).fetch(f"https://notion.so/Plan-{page_id.replace('-', '')}")

    assert fetched.documents[0].text == "# Plan\n\n- from **markdown**\n"
    assert fetched.skipped == []
    assert [served.endpoint for served in notion.served] == ["pages.retrieve", "pages.markdown"]


def test_a_truncated_page_gets_its_unknown_blocks_fetched_and_put_in_place(
    notion: FakeNotion,
) -> None:
    page_id = notion.add_page("Big page")
    hex_page = page_id.replace("-", "")
    first, tail, indented, hidden, nested, mark = notion.add_blocks(
        page_id,
        [
            toggle("First"),
            paragraph("Tail"),
            paragraph("Indented"),
            paragraph("Hidden"),
            paragraph("Nested"),
            bookmark("https://example.com/ideas", "Ideas board"),
        ],
    )

    def tag(block_id: str, alt: str) -> str:
        url = f"https://app.notion.com/p/{hex_page}#{block_id.replace('-', '')}"
        return f'<unknown url="{url}" alt="{alt}"/>'

    notion.set_markdown(
        page_id,
        f"# Big page\n\nIntro\n{tag(first, 'toggle')}\n- item\n\t{tag(indented, 'paragraph')}\n"
        f"{tag(hidden, 'paragraph')}\nLast loaded line",
        truncated=True,
        unknown_block_ids=[first, tail, indented, hidden],
    )
    notion.set_markdown(
        first,
        f"<details>\n<summary>First</summary>\n\tinside\n\t{tag(nested, 'paragraph')}\n</details>"
        f"\n{tag(mark, 'bookmark')}",
        unknown_block_ids=[nested, mark],
    )
    notion.set_markdown(nested, "nested content")
    notion.set_markdown(mark, tag(mark, "bookmark"), unknown_block_ids=[mark])
    notion.set_markdown(tail, "Tail content\n\nover two paragraphs")
    notion.set_markdown(indented, "indented one\nindented two")
    notion.fail("pages.markdown", 404, target=hidden)

    fetched = connect(notion).fetch(page_id)

    assert fetched.documents[0].text == (
        "# Big page\n\nIntro\n"
        "<details>\n<summary>First</summary>\n\tinside\n\tnested content\n</details>\n"
        "[Ideas board](https://example.com/ideas)\n"
        "- item\n\tindented one\n\tindented two\n"
        f"{tag(hidden, 'paragraph')}\nLast loaded line\n\n"
        "Tail content\n\nover two paragraphs\n"
    )
    assert fetched.skipped == [f"block {hidden}: not shared with the integration (404)"]
    markdown_targets = [served.target for served in notion.requests_to("pages.markdown")]
    assert markdown_targets == [page_id, first, nested, mark, tail, indented, hidden]
    assert [served.target for served in notion.requests_to("blocks.retrieve")] == [mark]


def test_a_truncated_page_naming_no_blocks_is_said_to_be_incomplete(notion: FakeNotion) -> None:
    page_id = notion.add_page("Huge", markdown="Only the start", truncated=True)

    fetched = connect(notion).fetch(page_id)

    assert fetched.documents[0].text == "Only the start\n"
    assert fetched.skipped == [
        f"{page_id}: Notion truncated its Markdown and named no remaining blocks"
    ]


@pytest.mark.parametrize(
    ("status", "code"),
    [(403, "restricted_resource"), (404, "object_not_found"), (400, "invalid_request")],
)
def test_a_refused_markdown_endpoint_falls_back_to_the_blocks(
    notion: FakeNotion, status: int, code: str
) -> None:
    page_id = notion.add_page(
        "Fallback", blocks=[heading(2, "Read"), paragraph("block by block")], markdown="unused"
    )
    notion.fail("pages.markdown", status, code=code)

    fetched = connect(notion).fetch(page_id)

    assert fetched.documents[0].text == "## Read\n\nblock by block\n"
    assert [served.endpoint for served in notion.served] == [
        "pages.retrieve",
        "pages.markdown",
        "blocks.children",
    ]


def test_children_are_read_over_every_page_of_the_list(notion: FakeNotion) -> None:
    notion.page_limit = 2
    page_id = notion.add_page(
        "Paged",
        blocks=[paragraph(f"Paragraph {n}") for n in range(1, 6)]
        + [bulleted("Parent", children=[bulleted(f"Child {n}") for n in range(1, 4)])],
    )
    notion.fail("pages.markdown", 403)

    fetched = connect(notion).fetch(page_id)

    paragraphs = "\n\n".join(f"Paragraph {n}" for n in range(1, 6))
    children = "\n".join(f"  - Child {n}" for n in range(1, 4))
    assert fetched.documents[0].text == f"{paragraphs}\n\n- Parent\n{children}\n"
    listed = notion.requests_to("blocks.children")
    top = [served for served in listed if served.target == page_id]
    cursors = [served.query.get("start_cursor", [None])[0] for served in top]
    assert len(top) == 3
    assert cursors[0] is None
    assert all(cursor for cursor in cursors[1:])
    assert all(served.query["page_size"] == ["100"] for served in listed)
    assert len([served for served in listed if served.target != page_id]) == 2


def test_a_block_walk_past_max_blocks_is_too_large(notion: FakeNotion) -> None:
    page_id = notion.add_page("Long", blocks=[paragraph(str(n)) for n in range(5)])
    notion.fail("pages.markdown", 403)
    config = NotionConfig(token=notion.token, base_url=notion.url)

    error = failure(lambda: NotionConnector(config, max_blocks=3).fetch(page_id))

    assert error.kind == "too_large"
    assert "more than 3 blocks" in str(error)


def test_the_title_is_the_title_property_whatever_its_name(notion: FakeNotion) -> None:
    status = {"id": "s%3Ab", "type": "select", "select": {"name": "Done", "color": "green"}}
    row = notion.add_page(
        "A database row", title_property="Name", properties={"Status": status}, markdown="x"
    )
    untitled = notion.add_page("", markdown="y")

    assert connect(notion).fetch(row).documents[0].title == "A database row"
    assert connect(notion).fetch(untitled).documents[0].title == "Untitled"


def test_the_source_url_is_the_pages_own_whichever_form_was_given(notion: FakeNotion) -> None:
    page_id = notion.add_page("Source", markdown="x")
    own = f"https://www.notion.so/Source-{page_id.replace('-', '')}"
    shared = f"https://acme.notion.site/Source-{page_id.replace('-', '')}"

    assert connect(notion).fetch(shared).documents[0].source_url == own
    assert connect(notion).fetch(page_id).documents[0].source_url == own


def test_every_request_carries_the_token_and_a_notion_version(notion: FakeNotion) -> None:
    page_id = notion.add_page("Headers", blocks=[paragraph("x")])
    notion.fail("pages.markdown", 403)
    connect(notion).fetch(page_id)
    connect(notion).check()

    assert len(notion.served) == 4
    for served in notion.served:
        assert served.headers["Authorization"] == f"Bearer {notion.token}"
        assert served.headers["Notion-Version"]
        assert served.status in (200, 403)


def test_the_fake_wants_a_bearer_token_and_a_notion_version(notion: FakeNotion) -> None:
    me = f"{notion.url}/v1/users/me"
    version = {"Notion-Version": "2025-09-03"}
    bearer = {"Authorization": f"Bearer {notion.token}"}

    unversioned = httpx.get(me, headers=bearer)
    unauthorized = httpx.get(me, headers={**version, "Authorization": f"Bearer {BAD_TOKEN}"})
    answered = httpx.get(me, headers={**version, **bearer})

    assert (unversioned.status_code, unversioned.json()["code"]) == (400, "missing_version")
    assert unauthorized.status_code == 401
    assert unauthorized.json() == {
        "object": "error",
        "status": 401,
        "code": "unauthorized",
        "message": "API token is invalid.",
        "request_id": unauthorized.json()["request_id"],
    }
    assert answered.json()["type"] == "bot"


# --- failures -----------------------------------------------------------------------------------


def test_a_refused_token_is_an_auth_error(notion: FakeNotion) -> None:
    page_id = notion.add_page("Private", markdown="x")
    url = f"https://www.notion.so/Private-{page_id.replace('-', '')}"

    error = failure(lambda: connect(notion, token=BAD_TOKEN).fetch(url))

    assert error.kind == "auth"
    assert error.status == 401
    assert error.resource == url
    assert not error.transient
    assert str(error).startswith(f"notion: {url}: Notion refused the token (401 unauthorized")


def test_a_missing_page_is_not_found(notion: FakeNotion) -> None:
    error = failure(lambda: connect(notion).fetch(f"https://www.notion.so/Gone-{HEX}"))

    assert error.kind == "not_found"
    assert error.status == 404
    assert "not found, or not shared with the integration (404 object_not_found" in str(error)
    assert not error.transient


def test_no_access_to_the_page_itself_is_not_found(notion: FakeNotion) -> None:
    page_id = notion.add_page("Restricted", markdown="x")
    notion.fail("pages.retrieve", 403)

    error = failure(lambda: connect(notion).fetch(page_id))

    assert error.kind == "not_found"
    assert error.status == 403
    assert "no access" in str(error)


def test_a_failure_inside_the_block_walk_is_reported_too(notion: FakeNotion) -> None:
    page_id = notion.add_page("Walk", blocks=[paragraph("x")])
    notion.fail("pages.markdown", 403)
    notion.fail("blocks.children", 404)

    assert failure(lambda: connect(notion).fetch(page_id)).kind == "not_found"


def test_a_rate_limit_is_waited_out_as_retry_after_says(
    notion: FakeNotion, sleeps: list[float]
) -> None:
    page_id = notion.add_page("Busy", markdown="done")
    notion.fail("pages.retrieve", 429, times=1, retry_after="3")
    notion.fail("pages.markdown", 429, times=1, retry_after="0")

    fetched = connect(notion, sleeps).fetch(page_id)

    assert fetched.documents[0].text == "done\n"
    assert sleeps == [3.0, 0.0]
    assert [served.status for served in notion.served] == [429, 200, 429, 200]


def test_a_long_or_missing_retry_after_is_bounded(notion: FakeNotion, sleeps: list[float]) -> None:
    page_id = notion.add_page("Busy", markdown="done")
    notion.fail("pages.retrieve", 429, times=1, retry_after="86400")
    notion.fail("pages.markdown", 429, times=1)

    connect(notion, sleeps).fetch(page_id)

    assert sleeps == [MAX_RETRY_AFTER_SECONDS, 1.0]


def test_a_rate_limit_that_does_not_end_is_rate_limited(
    notion: FakeNotion, sleeps: list[float]
) -> None:
    page_id = notion.add_page("Busy", markdown="done")
    notion.fail("pages.retrieve", 429, retry_after="2")

    error = failure(lambda: connect(notion, sleeps).fetch(page_id))

    assert error.kind == "rate_limited"
    assert error.status == 429
    assert error.transient
    assert sleeps == [2.0] * RATE_LIMIT_RETRIES
    assert len(notion.served) == RATE_LIMIT_RETRIES + 1


@pytest.mark.parametrize(
    ("status", "code"), [(500, "internal_server_error"), (503, "service_unavailable")]
)
def test_a_server_error_is_server_and_transient(
    notion: FakeNotion, sleeps: list[float], status: int, code: str
) -> None:
    page_id = notion.add_page("Down", markdown="x")
    notion.fail("pages.retrieve", status, code=code)

    error = failure(lambda: connect(notion, sleeps).fetch(page_id))

    assert error.kind == "server"
    assert error.status == status
    assert error.transient
    assert f"{status} {code}" in str(error)
    assert len(notion.served) == 1, "a 5xx is left to the caller to retry"
    assert sleeps == []


def test_a_proxy_error_page_is_server(notion: FakeNotion) -> None:
    page_id = notion.add_page("Proxy", markdown="x")
    notion.fail("pages.retrieve", 502, body="<html><body>Bad gateway</body></html>")

    error = failure(lambda: connect(notion).fetch(page_id))

    assert error.kind == "server"
    assert "HTTP 502" in str(error)


def test_no_answer_in_time_is_a_timeout(notion: FakeNotion) -> None:
    page_id = notion.add_page("Slow", markdown="x")
    notion.fail("pages.retrieve", 500, delay=10)

    error = failure(lambda: connect(notion, timeout_seconds=0.3).fetch(page_id))

    assert error.kind == "timeout"
    assert error.transient
    assert "0.3s" in str(error)


def test_no_server_at_all_is_server(notion: FakeNotion) -> None:
    error = failure(lambda: connect(notion, base_url=refused_url()).fetch(HEX))

    assert error.kind == "server"
    assert "could not reach Notion" in str(error)


def test_the_token_never_shows_in_errors_or_logs(
    notion: FakeNotion, caplog: pytest.LogCaptureFixture
) -> None:
    """Not with a refused token, nor when a server echoes the token back in its error message,
    nor in a successful fetch: not in the error, the SDK's, httpx's or our own log records,
    nor in what was fetched."""
    for name in ("notion_client", "httpx", "httpcore", "thoughtforge"):
        caplog.set_level(logging.DEBUG, logger=name)
    page_id = notion.add_page("Secret", blocks=[paragraph("body")])
    notion.fail("pages.markdown", 403)

    refused = failure(lambda: connect(notion, token=BAD_TOKEN).fetch(page_id))
    refused_check = failure(lambda: connect(notion, token=BAD_TOKEN).check())
    fetched = connect(notion).fetch(page_id)
    notion.fail("pages.retrieve", 500, message=f"upstream said: Bearer {notion.token}")
    echoed = failure(lambda: connect(notion).fetch(page_id))

    assert refused.kind == refused_check.kind == "auth"
    assert echoed.kind == "server"
    assert "[token]" in str(echoed)
    written = [str(e) for e in (refused, refused_check, echoed)] + [
        repr(e) for e in (refused, refused_check, echoed)
    ]
    written += [str(arg) for e in (refused, refused_check, echoed) for arg in e.args]
    written += [e.detail for e in (refused, refused_check, echoed)]
    written.append(fetched.model_dump_json())
    written += [record.getMessage() for record in caplog.records]
    written.append(caplog.text)
    assert any(record.name.startswith("notion_client") for record in caplog.records)
    assert any(record.name.startswith("httpx") for record in caplog.records)
    for secret in (BAD_TOKEN, notion.token):
        assert not [line for line in written if secret in line]


# --- check --------------------------------------------------------------------------------------


def test_check_names_the_bot_and_workspace(notion: FakeNotion) -> None:
    expected = "token works (bot 'ThoughtForge test', workspace 'Test workspace')"
    assert connect(notion).check() == expected
    assert notion.requests_to("users.me")


def test_check_without_a_workspace_name(notion: FakeNotion) -> None:
    notion.workspace_name = None
    assert connect(notion).check() == "token works (bot 'ThoughtForge test')"


def test_check_with_a_refused_token_is_auth(notion: FakeNotion) -> None:
    error = failure(lambda: connect(notion, token=BAD_TOKEN).check())

    assert error.kind == "auth"
    assert error.status == 401
    assert error.resource == notion.url


@pytest.mark.parametrize("token", [None, ""])
def test_no_token_is_auth_without_a_request(notion: FakeNotion, token: str | None) -> None:
    connector = connect(notion, token=token)

    assert failure(connector.check).kind == "auth"
    assert failure(lambda: connector.fetch(HEX)).kind == "auth"
    assert notion.served == []
