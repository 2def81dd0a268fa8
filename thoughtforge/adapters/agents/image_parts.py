"""Images for an HTTP agent that can see (`type: openai` with `vision: true`): each resource image
goes with the prompt as an OpenAI chat content part,
`{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}`.

An image is known by its bytes, never its name: PNG, JPEG, GIF or WebP, or it is refused (a
`.png` that is a text file, say). Over the agent's `max_image_bytes`, or larger than its
`max_image_side`, it is downscaled when Pillow is installed and `max_image_side` is set, and
refused otherwise, in words naming the setting. It is read without following a link, and decoded
only when its header gives a size within `MAX_DECODE_PIXELS` (a 49 kB PNG can claim 20000 ×
20000 pixels, which Pillow would refuse only after the cost, by raising).

Each image counts against the context window as OpenAI prices it: 85 tokens, plus 170 for each
512-pixel tile of the image scaled to fit 2048 × 2048 with its short side at most 768.
"""

from __future__ import annotations

import base64
import io
import math
import os
import struct
from pathlib import Path
from typing import Any

from thoughtforge.config import AgentSpec, OpenAIAgentSpec

IMAGE_TOKENS_BASE = 85
IMAGE_TOKENS_PER_TILE = 170
MAX_DECODE_PIXELS = 40_000_000
"""The most pixels an image may have to be decoded for downscaling (an 8000 × 5000 photo)."""
UNKNOWN_SIZE = (1024, 1024)
"""Assumed for an image whose header gives no size (it costs like a 1024-pixel square)."""
_REFUSAL_WORDS = ("image", "content type", "content_type", "image_url", "multimodal", "vision")


class ImageRefused(Exception):
    """Why an image cannot go to the agent, in words for the person."""


def sends_images(spec: AgentSpec) -> bool:
    """Whether this agent gets images as content parts (a command agent gets their paths)."""
    return isinstance(spec, OpenAIAgentSpec) and spec.vision


def image_type(data: bytes) -> str | None:
    """The image's media type by its magic bytes, or None when it is none of the four."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def load_image(path: Path, name: str, spec: OpenAIAgentSpec) -> tuple[bytes, str]:
    """The image's bytes (downscaled if needed and possible) and media type; `ImageRefused`."""
    data = _read_no_link(path, name, spec.max_image_bytes * 8)
    mime = image_type(data)
    if mime is None:
        raise ImageRefused(f"File '{name}' is not a PNG, JPEG, GIF or WebP image (by its bytes)")
    size = image_size(data, mime)
    width, height = size or UNKNOWN_SIZE
    too_wide = spec.max_image_side is not None and max(width, height) > spec.max_image_side
    if len(data) > spec.max_image_bytes or too_wide:
        _refuse_to_decode(name, size)
        data, mime = _downscaled(data, name, spec)
    return data, mime


def _refuse_to_decode(name: str, size: tuple[int, int] | None) -> None:
    """`ImageRefused` unless the header gives a size worth decoding."""
    if size is None:
        raise ImageRefused(f"File '{name}' gives no size in its header, so it is not decoded")
    width, height = size
    if width * height > MAX_DECODE_PIXELS:
        raise ImageRefused(
            f"File '{name}' claims {width:,} × {height:,} pixels, more than can be decoded "
            f"safely ({MAX_DECODE_PIXELS:,})"
        )


def image_part(data: bytes, mime: str) -> dict[str, Any]:
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}


def user_content(prompt: str, images: list[tuple[bytes, str]]) -> str | list[dict[str, Any]]:
    """The user message's content: the prompt alone, or the prompt then each image."""
    if not images:
        return prompt
    return [{"type": "text", "text": prompt}, *(image_part(data, mime) for data, mime in images)]


def attached_tokens(spec: AgentSpec, paths: list[Path]) -> int:
    """What the images sent with a prompt take of the agent's window (0 when none are sent)."""
    if not (paths and isinstance(spec, OpenAIAgentSpec) and spec.vision):
        return 0
    total = 0
    for path in paths:
        try:
            total += image_tokens(*load_image(path, path.name, spec))
        except ImageRefused:
            continue  # not sent either
    return total


def image_tokens(data: bytes, mime: str) -> int:
    width, height = image_size(data, mime) or UNKNOWN_SIZE
    scale = min(1.0, 2048 / max(width, height))
    fitted_width, fitted_height = width * scale, height * scale
    scale = min(1.0, 768 / min(fitted_width, fitted_height))
    tiles = math.ceil(fitted_width * scale / 512) * math.ceil(fitted_height * scale / 512)
    return IMAGE_TOKENS_BASE + IMAGE_TOKENS_PER_TILE * tiles


def image_size(data: bytes, mime: str) -> tuple[int, int] | None:
    """Width and height from the header, or None when it cannot be read there."""
    try:
        if mime == "image/png":
            return struct.unpack(">II", data[16:24])
        if mime == "image/gif":
            return struct.unpack("<HH", data[6:10])
        if mime == "image/webp":
            return _webp_size(data)
        return _jpeg_size(data)
    except struct.error:
        return None


def refusal_of_images(failure: str, name: str) -> str | None:
    """A server's 4xx that refuses images, worded to name the setting; None for another."""
    lowered = failure.lower()
    if not lowered.startswith("http 4") or not any(w in lowered for w in _REFUSAL_WORDS):
        return None
    return (
        f"the server refused the images ({failure}); if its model cannot see, set "
        f"agents.available.{name}.vision to false"
    )


def _read_no_link(path: Path, name: str, limit: int) -> bytes:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise ImageRefused(f"File '{name}' could not be read ({exc.strerror})") from None
    with os.fdopen(descriptor, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ImageRefused(
            f"File '{name}' is far over the agent's max_image_bytes ({spec_limit_text(limit)})"
        )
    return data


def spec_limit_text(limit: int) -> str:
    return f"{limit // 8:,} bytes"


def _downscaled(data: bytes, name: str, spec: OpenAIAgentSpec) -> tuple[bytes, str]:
    """The image shrunk to `max_image_side` with Pillow, as PNG (JPEG for a photo)."""
    side = spec.max_image_side
    try:
        from PIL import Image  # optional: only to downscale
    except ImportError:
        side = None
    if side is None:
        raise ImageRefused(
            f"File '{name}' is over the agent's image limit (max_image_bytes "
            f"{spec.max_image_bytes:,}, max_image_side {spec.max_image_side}) and could not be "
            "downscaled (that takes max_image_side and Pillow installed)"
        )
    out = io.BytesIO()
    try:
        with Image.open(io.BytesIO(data)) as image:
            _refuse_to_decode(name, image.size)  # Pillow's reading of the header, too
            image.thumbnail((side, side))
            photo = image.mode in ("RGB", "L") and image.format == "JPEG"
            image.save(out, format="JPEG" if photo else "PNG")
    except ImageRefused:
        raise
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on a corrupt image or bomb
        raise ImageRefused(f"File '{name}' could not be decoded ({type(exc).__name__})") from None
    shrunk = out.getvalue()
    if len(shrunk) > spec.max_image_bytes:
        raise ImageRefused(
            f"File '{name}' is still over max_image_bytes ({spec.max_image_bytes:,}) at "
            f"{side} pixels"
        )
    return shrunk, "image/jpeg" if photo else "image/png"


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """From the first start-of-frame marker."""
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        length = struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None
