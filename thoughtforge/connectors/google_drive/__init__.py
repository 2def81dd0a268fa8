"""Google Drive: Docs, Sheets, Slides, uploaded text files and PDFs, and folders of them, pulled
as Markdown through the Drive v3 API (`google-api-python-client`, read-only scope).

What each kind of file becomes:

* a Google Doc: its Markdown export (`files.export`, `text/markdown`), with the images it
  embeds as base64 `data:` URIs reduced to `[image]` markers;
* a Google Sheet: its CSV export (Drive exports the first sheet only) in a ```csv fence;
* Google Slides: the plain-text export;
* an uploaded `.md`, `.txt` or other `text/*` file: its bytes as UTF-8 (a `.csv` in a fence);
* an uploaded PDF: the text pypdf extracts from it (none, as in a scan: left out);
* a folder: every file directly in it (all pages of `files.list`), each as above. A subfolder,
  a file of a type without a text form, one over the size limits or one that fails on its own
  is left out and named in `Fetched.skipped`; a refused credential or a rate limit stops the
  whole folder, since every other file would fail the same way.

Drive refuses to export more than 10 MB (403 `exportSizeLimitExceeded`); uploaded files over
`MAX_DOWNLOAD_BYTES` (by the `size` Drive reports) are not downloaded. Either is `too_large` for
a file pulled on its own, a skipped entry in a folder.

`credentials_path` is a service-account key or an authorized-user token file, told apart by its
`type`; each is exchanged for an access token at the file's own `token_uri`. `base_url` is the
API root in place of `https://www.googleapis.com/` (a proxy, or the tests' local server). Nothing
secret (the key, client secret, refresh token, access token or signed assertion) is put in an
error or a log line: details are built here from the API's own error message, scrubbed of them.
"""

from thoughtforge.connectors.google_drive.connector import GoogleDriveConnector

__all__ = ["GoogleDriveConnector"]
