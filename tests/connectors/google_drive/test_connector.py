"""The Google Drive connector, with the real google-api-python-client and google-auth talking
HTTP to `tests.fake_google.FakeGoogle`: the connector is pointed at it only through its config
(`base_url`) and the credential files' own `token_uri`, never patched."""

from __future__ import annotations

import io
import json
import logging
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from googleapiclient import model as googleapiclient_model
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from tests.capture_server import refused_url
from tests.fake_google import (
    CLIENT_ID,
    DRIVE_READONLY,
    GOOGLE_DOC,
    GOOGLE_FORM,
    GOOGLE_SHEET,
    GOOGLE_SLIDES,
    SERVICE_ACCOUNT_EMAIL,
    SHORTCUT,
    USER_EMAIL,
    FakeGoogle,
)
from thoughtforge.config import GoogleDriveConfig
from thoughtforge.connectors.google_drive import GoogleDriveConnector
from thoughtforge.connectors.google_drive import connector as drive_connector
from thoughtforge.connectors.google_drive.connector import MAX_DOWNLOAD_BYTES
from thoughtforge.connectors.google_drive.links import drive_id
from thoughtforge.errors import ConnectorError

DOC_ID = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"
SHEET_ID = "1sHeEtIdAbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
SLIDES_ID = "1sLiDeSiDaBcDeFgHiJkLmNoPqRsTuVwXyZ012345678"
PDF_ID = "1PdFfIlEiDaBcDeFgHiJkLmNoPqRsTu"
MD_ID = "1MdFiLeIdAbCdEfGhIjKlMnOpQrStUv"
FOLDER_ID = "1FoLdErIdAbCdEfGhIjKlMnOpQrStUv"
DOC_URL = f"https://docs.google.com/document/d/{DOC_ID}/edit?usp=sharing"
FOLDER_URL = f"https://drive.google.com/drive/folders/{FOLDER_ID}"


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    with FakeGoogle() as server:
        yield server


def drive(google: FakeGoogle, credentials: Path | None, **settings: Any) -> GoogleDriveConnector:
    config = GoogleDriveConfig(
        enabled=True,
        credentials_path=credentials,
        base_url=settings.pop("base_url", google.url),
        timeout_seconds=settings.pop("timeout_seconds", 5),
        **settings,
    )
    return GoogleDriveConnector(config)


@pytest.fixture
def connector(google: FakeGoogle, tmp_path: Path) -> GoogleDriveConnector:
    """Signed in with a service-account key whose `token_uri` is the fake."""
    return drive(google, google.service_account_file(tmp_path))


def pdf_bytes(text: str | None) -> bytes:
    """A real one-page PDF showing `text` in Helvetica (None: a blank page, as a scan has)."""
    writer = PdfWriter()
    page = writer.add_blank_page(300, 200)
    if text is not None:
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
        )
        content = DecodedStreamObject()
        content.set_data(f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def fail_with(connector: GoogleDriveConnector, url: str) -> ConnectorError:
    with pytest.raises(ConnectorError) as caught:
        connector.fetch(url)
    return caught.value


# -- what each kind of file becomes ---------------------------------------------------------


def test_a_google_doc_is_its_markdown_export(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(DOC_ID, "Wedding plan", GOOGLE_DOC, "# Wedding plan\n\n- 60 guests\n")

    fetched = connector.fetch(DOC_URL)

    [document] = fetched.documents
    assert document.title == "Wedding plan"
    assert document.text == "# Wedding plan\n\n- 60 guests\n"
    assert document.source_url == f"https://docs.google.com/document/d/{DOC_ID}/edit"
    assert fetched.skipped == []
    get, export = google.requests
    assert get.path == f"/drive/v3/files/{DOC_ID}"
    assert get.query["supportsAllDrives"] == "true"
    assert set(get.query["fields"].split(",")) >= {"id", "name", "mimeType", "size"}
    assert export.path == f"/drive/v3/files/{DOC_ID}/export"
    assert export.query["mimeType"] == "text/markdown"
    # One service-account grant, signed with the key, for the read-only scope; every API call
    # carried the token it gave.
    [grant] = google.token_requests
    assert grant["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    [token] = google.issued_tokens
    assert {r.headers["Authorization"] for r in google.requests} == {f"Bearer {token}"}


def test_images_a_doc_export_embeds_are_reduced_to_markers(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    blob = "iVBORw0KGgo" + "A" * 5000
    exported = (
        "# Venue\n\n![][image1]\n\nThe barn.\n\n![Map](data:image/png;base64,"
        f"{blob})\n\n![logo][site]\n\n[image1]: <data:image/png;base64,{blob}>\n\n"
        "[site]: https://example.com/logo.png\n"
    )
    google.add_file(DOC_ID, "Venue", GOOGLE_DOC, exported)

    [document] = connector.fetch(DOC_ID).documents

    assert blob not in document.text
    assert document.text == (
        "# Venue\n\n[image]\n\nThe barn.\n\n[image: Map]\n\n![logo][site]\n\n\n"
        "[site]: https://example.com/logo.png\n"
    )


def test_a_sheet_is_its_csv_export_in_a_fence(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(SHEET_ID, "Budget", GOOGLE_SHEET, "item,cost\nvenue,5000\nband,```1200\n")

    [document] = connector.fetch(
        f"https://docs.google.com/spreadsheets/d/{SHEET_ID}/edit"
    ).documents

    assert google.requests[-1].query["mimeType"] == "text/csv"
    assert "first sheet only" in document.text
    fence = "````"  # longer than the run of backticks inside a cell
    assert f"{fence}csv\nitem,cost\nvenue,5000\nband,```1200\n{fence}\n" in document.text
    assert document.source_url == f"https://docs.google.com/spreadsheets/d/{SHEET_ID}/edit"


def test_slides_are_their_plain_text_export(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(SLIDES_ID, "Pitch", GOOGLE_SLIDES, "Slide one\n\nSlide two\n")

    [document] = connector.fetch(f"https://docs.google.com/presentation/d/{SLIDES_ID}/").documents

    assert google.requests[-1].query["mimeType"] == "text/plain"
    assert document.text == "Slide one\n\nSlide two\n"


def test_an_uploaded_markdown_file_is_downloaded_as_it_is(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(MD_ID, "notes.md", "text/markdown", "\ufeff# Notes\n\nçà va\n".encode())

    [document] = connector.fetch(f"https://drive.google.com/file/d/{MD_ID}/view").documents

    assert document.title == "notes.md"
    assert document.text == "# Notes\n\nçà va\n"
    assert google.requests[-1].query["alt"] == "media"
    assert document.source_url == f"https://drive.google.com/file/d/{MD_ID}/view"


def test_a_pdf_is_its_extracted_text(google: FakeGoogle, connector: GoogleDriveConnector) -> None:
    data = pdf_bytes("Rain plan: the barn holds 80")
    assert PdfReader(io.BytesIO(data)).pages[0].extract_text() == "Rain plan: the barn holds 80"
    google.add_file(PDF_ID, "venue.pdf", "application/pdf", data)

    [document] = connector.fetch(PDF_ID).documents

    assert document.title == "venue.pdf"
    assert document.text.strip() == "Rain plan: the barn holds 80"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (pdf_bytes(None), "a PDF without a text layer, such as a scan"),
        (b"%PDF-1.7\nnot really", "a PDF that cannot be read"),
    ],
)
def test_a_pdf_without_readable_text_is_left_out(
    google: FakeGoogle, connector: GoogleDriveConnector, data: bytes, why: str
) -> None:
    google.add_file(PDF_ID, "scan.pdf", "application/pdf", data)

    fetched = connector.fetch(PDF_ID)

    assert fetched.documents == []
    assert fetched.skipped == [f'"scan.pdf" ({why})']


def test_a_shortcut_is_followed_to_its_target(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(MD_ID, "Plan (shortcut)", SHORTCUT, target_id=DOC_ID)
    google.add_file(PDF_ID, "Dangling", SHORTCUT)
    google.add_file(DOC_ID, "Plan", GOOGLE_DOC, "# Plan")

    [document] = connector.fetch(MD_ID).documents

    assert (document.title, document.source_url) == (
        "Plan",
        f"https://docs.google.com/document/d/{DOC_ID}/edit",
    )
    assert connector.fetch(PDF_ID).skipped == ['"Dangling" (a shortcut without a target)']


def test_a_file_without_a_text_form_is_left_out_not_failed(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(MD_ID, "photo.jpg", "image/jpeg", b"\xff\xd8\xff")
    google.add_file(DOC_ID, "RSVP", GOOGLE_FORM)

    assert connector.fetch(MD_ID).skipped == [
        '"photo.jpg" (image/jpeg: not a text, PDF or Docs file)'
    ]
    assert connector.fetch(DOC_ID).skipped == [
        '"RSVP" (a Google form file: Drive has no text export for it)'
    ]
    assert all(r.query.get("alt") != "media" for r in google.requests)


# -- size limits ----------------------------------------------------------------------------


def test_an_export_over_the_api_limit_alone_is_too_large(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(DOC_ID, "Huge plan", GOOGLE_DOC, "x", export_too_large=True)

    error = fail_with(connector, DOC_URL)

    assert error.kind == "too_large"
    assert error.status == 403
    assert error.resource == DOC_URL
    assert str(error) == (
        f'google_drive: {DOC_URL}: "Huge plan" is over the Drive API\'s 10 MB export limit'
    )
    assert not error.transient


def test_an_upload_over_the_size_limit_alone_is_too_large_and_not_downloaded(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(MD_ID, "dump.txt", "text/plain", "small", size=MAX_DOWNLOAD_BYTES + 1)

    error = fail_with(connector, MD_ID)

    assert error.kind == "too_large"
    assert "over the 10 MB download limit" in str(error)
    assert [r.query.get("alt") for r in google.requests] == ["json"]


# -- folders --------------------------------------------------------------------------------


def test_a_folder_pulls_every_page_and_names_what_it_leaves_out(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.page_size = 2
    google.add_folder(FOLDER_ID, "Wedding")
    files: list[tuple[str, str, bytes | str, dict[str, Any]]] = [
        ("A plan", GOOGLE_DOC, "# A", {}),
        ("B budget", GOOGLE_SHEET, "a,b", {}),
        ("C big", GOOGLE_DOC, "x", {"export_too_large": True}),
        ("D photo.png", "image/png", b"\x89PNG", {}),
        ("E notes.md", "text/markdown", "# E", {}),
        ("G gone", GOOGLE_DOC, "x", {"trashed": True}),
        ("H huge.txt", "text/plain", "x", {"size": MAX_DOWNLOAD_BYTES * 3}),
        ("I broken", GOOGLE_DOC, "x", {}),
        ("J venue", "application/pdf", pdf_bytes("Venue text"), {}),
        ("K link", SHORTCUT, "", {"target_id": SLIDES_ID}),
    ]
    for name, mime_type, content, extra in files:
        file_id = "1" + name[0].lower() * 30
        google.add_file(file_id, name, mime_type, content, parent=FOLDER_ID, **extra)
    google.add_folder("1" + "f" * 30, "F archive", parent=FOLDER_ID)
    google.fail("1" + "i" * 30, 500)
    google.add_file(SLIDES_ID, "Pitch deck", GOOGLE_SLIDES, "Slide one")
    google.add_file("1zzzzzzzzzzzzzzzzzzzzzzzzzzzz", "elsewhere", GOOGLE_DOC, "no")

    fetched = connector.fetch(FOLDER_URL + "?usp=drive_link")

    assert [(d.title, d.text.strip()) for d in fetched.documents] == [
        ("A plan", "# A"),
        ("B budget", "Exported from Google Sheets (first sheet only).\n\n```csv\na,b\n```"),
        ("E notes.md", "# E"),
        ("J venue", "Venue text"),
        ("Pitch deck", "Slide one"),
    ]
    assert fetched.skipped == [
        '"C big" (over the Drive API\'s 10 MB export limit)',
        '"D photo.png" (image/png: not a text, PDF or Docs file)',
        '"F archive" (a subfolder: pull it by its own link)',
        '"H huge.txt" (30.0 MB, over the 10 MB download limit)',
        '"I broken" (the Drive API failed with 500 (Internal Error))',
    ]
    lists = [r for r in google.requests if r.path == "/drive/v3/files"]
    assert len(lists) == 5  # 10 files not in the trash, 2 a page
    assert lists[0].query["q"] == f"'{FOLDER_ID}' in parents and trashed=false"
    assert "pageToken" not in lists[0].query
    assert all("pageToken" in r.query for r in lists[1:])
    assert lists[0].query["includeItemsFromAllDrives"] == "true"
    assert "nextPageToken" in lists[0].query["fields"]


def test_a_folder_pulls_at_most_so_many_files(
    google: FakeGoogle, connector: GoogleDriveConnector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drive_connector, "MAX_FOLDER_FILES", 2)
    google.add_folder(FOLDER_ID, "Wedding")
    for letter in "abcd":
        google.add_file(f"1{letter * 30}", letter, GOOGLE_DOC, letter, parent=FOLDER_ID)

    fetched = connector.fetch(FOLDER_ID)

    assert [d.title for d in fetched.documents] == ["a", "b"]
    assert fetched.skipped == ['2 more files in "Wedding" (at most 2 are pulled from one folder)']


@pytest.mark.parametrize(("status", "kind"), [(429, "rate_limited"), (401, "auth")])
def test_a_rate_limit_or_refused_credentials_stop_the_whole_folder(
    google: FakeGoogle, connector: GoogleDriveConnector, status: int, kind: str
) -> None:
    google.add_folder(FOLDER_ID, "Wedding")
    google.add_file(DOC_ID, "A plan", GOOGLE_DOC, "# A", parent=FOLDER_ID)
    google.add_file(SHEET_ID, "B budget", GOOGLE_SHEET, "a,b", parent=FOLDER_ID)
    google.fail(DOC_ID, status)

    error = fail_with(connector, FOLDER_URL)

    assert (error.kind, error.resource) == (kind, FOLDER_URL)
    assert not any(SHEET_ID in r.path for r in google.requests)  # no use going on


# -- failures by kind -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "reason", "kind"),
    [
        (401, None, "auth"),
        (403, "accessNotConfigured", "auth"),
        (403, "insufficientPermissions", "auth"),
        (404, None, "not_found"),
        (403, None, "not_found"),
        (403, "appNotAuthorizedToFile", "not_found"),
        (429, None, "rate_limited"),
        (403, "rateLimitExceeded", "rate_limited"),
        (403, "userRateLimitExceeded", "rate_limited"),
        (500, None, "server"),
        (503, None, "server"),
    ],
)
def test_api_failures_become_connector_errors_by_kind(
    google: FakeGoogle,
    connector: GoogleDriveConnector,
    status: int,
    reason: str | None,
    kind: str,
) -> None:
    google.add_file(DOC_ID, "Plan", GOOGLE_DOC, "# Plan")
    google.fail(DOC_ID, status, reason)

    error = fail_with(connector, DOC_URL)

    assert (error.connector, error.resource, error.kind, error.status) == (
        "google_drive",
        DOC_URL,
        kind,
        status,
    )
    assert error.transient == (kind in {"rate_limited", "server"})


def test_not_found_names_the_account_it_is_not_shared_with(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    error = fail_with(connector, DOC_URL)  # the fake has no such file

    assert error.kind == "not_found"
    assert str(error) == (
        f"google_drive: {DOC_URL}: not found, or not shared with the service account "
        f"{SERVICE_ACCOUNT_EMAIL}"
    )


def test_a_401_is_retried_with_fresh_tokens_before_it_is_an_auth_failure(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.fail(None, 401)

    error = fail_with(connector, DOC_URL)

    assert error.kind == "auth"
    assert "Google refused the credentials" in str(error)
    assert len(google.token_requests) == 3  # google-auth-httplib2 refreshes twice on a 401


def test_an_expired_access_token_is_replaced_without_the_caller_noticing(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    google.add_file(DOC_ID, "Plan", GOOGLE_DOC, "# Plan")
    connector.fetch(DOC_URL)
    google.revoke_tokens()

    assert connector.fetch(DOC_ID).documents[0].text == "# Plan"
    assert len(google.issued_tokens) == 2


def test_no_answer_within_the_timeout_is_a_timeout(google: FakeGoogle, tmp_path: Path) -> None:
    google.add_file(DOC_ID, "Plan", GOOGLE_DOC, "# Plan")
    google.delay(10)
    slow = drive(google, google.service_account_file(tmp_path), timeout_seconds=0.3)

    started = time.monotonic()
    error = fail_with(slow, DOC_URL)

    assert time.monotonic() - started < 5
    assert (error.kind, error.transient) == ("timeout", True)
    assert str(error) == f"google_drive: {DOC_URL}: no answer within 0.3 s"


def test_an_api_nobody_answers_at_is_a_server_failure(google: FakeGoogle, tmp_path: Path) -> None:
    connector = drive(google, google.service_account_file(tmp_path), base_url=refused_url())

    error = fail_with(connector, DOC_URL)

    assert (error.kind, error.transient) == ("server", True)
    assert "could not reach Google" in str(error)


def test_a_key_google_does_not_know_fails_the_token_exchange(
    google: FakeGoogle, tmp_path: Path
) -> None:
    info = google.service_account_info()
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    info["private_key"] = other_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    path = tmp_path / "stolen.json"
    path.write_text(json.dumps(info))

    error = fail_with(drive(google, path), DOC_URL)

    assert error.kind == "auth"
    assert str(error) == (
        f"google_drive: {DOC_URL}: the token exchange at {google.token_uri} was refused "
        "(invalid_grant: Invalid JWT Signature.)"
    )
    assert google.requests == []  # no API call without a token


# -- credential files -----------------------------------------------------------------------

SECRET = "SUPERSECRET-do-not-show-0123456789"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (f"private_key: {SECRET}\n", "is not a JSON credentials file"),
        (json.dumps([SECRET]), "is not a JSON credentials file"),
        ("", "is not a JSON credentials file"),
        (b"\xff\xfe" + SECRET.encode("utf-16-le"), "is not a JSON credentials file"),
        (
            json.dumps({"type": "service_account", "client_email": "a@b", "token_uri": SECRET}),
            "(service_account) lacks private_key",
        ),
        (
            json.dumps({"type": "authorized_user", "client_id": "x", "client_secret": SECRET}),
            "(authorized_user) lacks refresh_token",
        ),
        (
            json.dumps({"type": SECRET, "private_key": SECRET}),
            'has no usable "type"',
        ),
        (
            json.dumps({"type": "external_account", "subject_token": SECRET}),
            'has "type": "external_account"',
        ),
        (
            json.dumps({"installed": {"client_id": "x", "client_secret": SECRET}}),
            "is an OAuth client id file, not a token",
        ),
        (
            json.dumps(
                {
                    "type": "service_account",
                    "client_email": "a@b",
                    "token_uri": "http://127.0.0.1:9/token",
                    "private_key": f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END",
                }
            ),
            "the private key in",
        ),
    ],
)
def test_a_bad_credential_file_is_an_auth_failure_that_shows_none_of_it(
    google: FakeGoogle, tmp_path: Path, content: str | bytes, expected: str
) -> None:
    path = tmp_path / "credentials.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)

    error = fail_with(drive(google, path), DOC_URL)

    assert error.kind == "auth"
    assert expected in str(error)
    assert str(path) in str(error)
    assert SECRET not in exception_text(error)
    assert google.token_requests == [] and google.requests == []


def test_a_missing_credential_file_or_setting_is_an_auth_failure(
    google: FakeGoogle, tmp_path: Path
) -> None:
    missing = fail_with(drive(google, tmp_path / "nowhere.json"), DOC_URL)
    unset = fail_with(drive(google, None), DOC_URL)

    assert missing.kind == unset.kind == "auth"
    assert "No such file or directory" in str(missing)
    assert "credentials_path is not set" in str(unset)


def test_an_authorized_user_token_file_is_refreshed_at_its_token_uri(
    google: FakeGoogle, tmp_path: Path
) -> None:
    google.about_user = {**google.about_user, "emailAddress": USER_EMAIL}
    google.add_file(DOC_ID, "Plan", GOOGLE_DOC, "# Plan")
    connector = drive(google, google.authorized_user_file(tmp_path))

    assert connector.fetch(DOC_URL).documents[0].text == "# Plan"
    assert connector.check() == f"credentials work (user {USER_EMAIL})"

    [grant] = google.token_requests
    assert grant["grant_type"] == "refresh_token"
    assert grant["client_id"] == CLIENT_ID
    assert grant["refresh_token"] == google.refresh_token
    assert grant["scope"] == DRIVE_READONLY


def test_a_revoked_refresh_token_is_an_auth_failure(google: FakeGoogle, tmp_path: Path) -> None:
    path = google.authorized_user_file(tmp_path)
    google.refresh_token = "1//0something-else"

    error = fail_with(drive(google, path), DOC_URL)

    assert error.kind == "auth"
    assert "(invalid_grant: Token has been expired or revoked.)" in str(error)
    assert "not shared with the signed-in account" not in str(error)


# -- doctor ---------------------------------------------------------------------------------


def test_check_names_the_service_account(
    google: FakeGoogle, connector: GoogleDriveConnector
) -> None:
    assert connector.check() == f"credentials work (service account {SERVICE_ACCOUNT_EMAIL})"
    [about] = google.requests
    assert (about.path, about.query["fields"]) == ("/drive/v3/about", "user")


def test_check_fails_with_the_reason(google: FakeGoogle, tmp_path: Path) -> None:
    good = drive(google, google.service_account_file(tmp_path))
    google.fail(None, 403, "accessNotConfigured", "Google Drive API has not been used in project")
    bad_file = tmp_path / "bad.json"
    bad_file.write_text("{}")

    with pytest.raises(ConnectorError) as refused:
        good.check()
    with pytest.raises(ConnectorError) as unreadable:
        drive(google, bad_file).check()

    assert refused.value.kind == "auth"
    assert "the credentials cannot use the Drive API (Google Drive API has not been used" in str(
        refused.value
    )
    assert (unreadable.value.kind, unreadable.value.resource) == ("auth", str(bad_file))


# -- links ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        (f"https://docs.google.com/document/d/{DOC_ID}/edit", DOC_ID),
        (f"https://docs.google.com/document/d/{DOC_ID}/edit?tab=t.0#heading=h.x", DOC_ID),
        (f"https://docs.google.com/document/u/1/d/{DOC_ID}/edit", DOC_ID),
        (f"https://docs.google.com/document/d/{DOC_ID}", DOC_ID),
        (f"https://docs.google.com/spreadsheets/d/{SHEET_ID}/edit#gid=0", SHEET_ID),
        (f"https://docs.google.com/presentation/d/{SLIDES_ID}/edit#slide=id.p", SLIDES_ID),
        (f"https://drive.google.com/file/d/{PDF_ID}/view?usp=sharing", PDF_ID),
        (f"https://drive.google.com/open?id={PDF_ID}", PDF_ID),
        (f"https://drive.google.com/uc?id={PDF_ID}&export=download", PDF_ID),
        (f"https://drive.google.com/drive/folders/{FOLDER_ID}", FOLDER_ID),
        (f"https://drive.google.com/drive/folders/{FOLDER_ID}?usp=sharing", FOLDER_ID),
        (f"https://drive.google.com/drive/u/0/folders/{FOLDER_ID}", FOLDER_ID),
        (f"docs.google.com/document/d/{DOC_ID}/edit", DOC_ID),
        (f"  {DOC_ID}  ", DOC_ID),
        (FOLDER_ID, FOLDER_ID),
        ("0AEm0KhdmLcsVUk9PVA", "0AEm0KhdmLcsVUk9PVA"),  # a shared drive's 19-character id
        ("https://drive.google.com/drive/my-drive", None),
        ("https://docs.google.com/document/d/e/2PACX-1vTshort/pub", None),
        ("https://docs.google.com/", None),
        ("https://drive.google.com/open?id=", None),
        ("0123456789abcdef0123456789abcdef", None),  # a Notion page id
        ("01234567-89ab-cdef-0123-456789abcdef", None),  # the same, as a UUID
        ("Plan-0123456789abcdef0123456789abcdef", None),  # a Notion slug and id
        ("short_id", None),
        ("not an id at all", None),
    ],
)
def test_links_and_bare_ids_give_the_drive_id(link: str, expected: str | None) -> None:
    assert drive_id(link) == expected


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        (DOC_URL, True),
        (FOLDER_URL, True),
        ("https://drive.google.com/drive/my-drive", True),  # its own host: told, not ignored
        ("http://docs.google.com/document/d/x", True),
        (DOC_ID, True),
        ("https://www.notion.so/Plan-0123456789abcdef0123456789abcdef", False),
        ("0123456789abcdef0123456789abcdef", False),
        ("https://example.com/document/d/" + DOC_ID, False),
        ("https://docs.google.com.evil.example/document/d/" + DOC_ID, False),
        ("hello", False),
    ],
)
def test_matches_claims_drive_hosts_and_drive_ids(
    connector: GoogleDriveConnector, text: str, claimed: bool
) -> None:
    assert connector.matches(text) is claimed


@pytest.mark.parametrize(
    "link",
    [
        "https://drive.google.com/drive/my-drive",
        "https://docs.google.com/document/d/e/2PACX-1vTshort/pub",
        "https://docs.google.com/document/d/abc/edit",
    ],
)
def test_a_drive_link_without_an_id_is_malformed_and_not_tried(
    google: FakeGoogle, connector: GoogleDriveConnector, link: str
) -> None:
    error = fail_with(connector, link)

    assert (error.kind, error.resource, error.transient) == ("malformed_url", link, False)
    assert google.requests == [] and google.token_requests == []


def test_base_url_may_name_the_drive_path_itself(google: FakeGoogle, tmp_path: Path) -> None:
    google.add_file(DOC_ID, "Plan", GOOGLE_DOC, "# Plan")
    connector = drive(
        google, google.service_account_file(tmp_path), base_url=f"{google.url}/drive/v3"
    )

    assert connector.fetch(DOC_ID).documents[0].text == "# Plan"
    assert google.requests[0].path == f"/drive/v3/files/{DOC_ID}"


# -- secrets --------------------------------------------------------------------------------


class _Everything(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(f"{record.name} {record.getMessage()} {record.__dict__!r}")


def exception_text(error: BaseException) -> str:
    """All an error shows and carries: its message, args, attributes, traceback, and the same
    of every exception chained to it (shown or not)."""
    parts, seen = [], set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts += [str(current), repr(current.args), repr(vars(current))]
        parts += traceback.format_exception(current)
        current = current.__cause__ or current.__context__
    return "\n".join(parts)


@pytest.fixture
def everything_logged(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> Any:
    """Every record of every logger the client stack uses, at DEBUG, with googleapiclient's
    own request/response dump switched on."""
    handler = _Everything()
    names = ["", "google", "google.auth", "googleapiclient", "google_auth_httplib2", "urllib3"]
    loggers = [logging.getLogger(name) for name in names]
    saved = [(logger.level, logger.propagate) for logger in loggers]
    caplog.set_level(logging.DEBUG)
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
    monkeypatch.setattr(googleapiclient_model, "dump_request_response", True)
    yield handler
    for logger, (level, propagate) in zip(loggers, saved, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


def test_no_secret_reaches_a_log_line_or_an_error(
    google: FakeGoogle, tmp_path: Path, everything_logged: _Everything
) -> None:
    google.add_file(DOC_ID, "Plan", GOOGLE_DOC, "# Plan")
    google.add_file(SHEET_ID, "Budget", GOOGLE_SHEET, "a,b")
    service_account = drive(google, google.service_account_file(tmp_path))
    user_dir = tmp_path / "user"
    user_dir.mkdir()
    user = drive(google, google.authorized_user_file(user_dir))
    shown: list[str] = []

    def attempt(connector: GoogleDriveConnector, url: str) -> None:
        try:
            shown.append(repr(connector.fetch(url)))
        except ConnectorError as error:
            shown.append(exception_text(error))

    attempt(service_account, DOC_URL)  # a token exchange, then the API
    attempt(user, SHEET_ID)  # a refresh-token exchange
    google.revoke_tokens()
    attempt(service_account, DOC_URL)  # a 401, a new token, a retry
    google.fail(SHEET_ID, 404)
    attempt(user, SHEET_ID)
    google.fail(None, 401)
    attempt(service_account, DOC_URL)  # refused throughout
    google.token_error = (400, {"error": "invalid_grant", "error_description": "Bad Request"})
    attempt(drive(google, google.service_account_file(tmp_path)), DOC_URL)
    # A token endpoint that echoes what it was sent must not get it shown either.
    echo = next(r for r in google.token_requests if r["grant_type"] == "refresh_token")
    google.token_error = (400, {"error": "invalid_request", "error_description": json.dumps(echo)})
    attempt(drive(google, google.authorized_user_file(user_dir)), DOC_URL)

    secrets = google.secrets()
    assert len(google.issued_tokens) >= 4 and any("assertion" in r for r in google.token_requests)
    logged = everything_logged.texts
    assert any("URL being requested" in text for text in logged)  # the capture works
    assert any("Making request: POST" in text for text in logged)
    for text in logged + shown:
        for secret in secrets:
            assert secret not in text
    assert "[redacted]" in shown[-1]
