"""Images for an HTTP agent that can see: the fake OpenAI server receives them as image content
parts with the distillation's prompt (a vision agent), or receives none (a non-vision agent);
what is not an image, too large, or a link is refused as other resources are."""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP
from tests.fake_openai import FakeOpenAI, Reply
from tests.phases.conftest import distillation
from thoughtforge.adapters.agents import AgentCall, http_agent, invoke_agent
from thoughtforge.adapters.agents.image_parts import image_tokens, image_type
from thoughtforge.config import Config, OpenAIAgentSpec
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat
from thoughtforge.errors import AgentFailure, PromptTooLarge
from thoughtforge.phases import intake


def png(width: int = 640, height: int = 480, size: int = 200) -> bytes:
    """A PNG's signature and header; the rest is filler (the server never decodes it)."""
    head = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", width, height)
    return head + b"\x08\x02\x00\x00\x00" + b"\x00" * max(0, size - len(head) - 5)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setattr(http_agent, "RETRY_BASE_SECONDS", 0.0)
    with FakeOpenAI() as fake:
        yield fake


def _agent(config: Config, url: str, **settings: object) -> None:
    values = {"type": "openai", "base_url": f"{url}/v1", "model": "eyes", **settings}
    config.agents.available["eyes"] = OpenAIAgentSpec.model_validate(values)


def _project_with_images(config: Config, tmp_path: Path) -> tuple[Project, bytes]:
    project = create_project(config, brain_dump=BRAIN_DUMP, agent="eyes")
    resources = project.dir / "resources"
    sketch = png()
    (resources / "whiteboard.png").write_bytes(sketch)
    (resources / "notes.png").write_text("not an image at all")
    (resources / "huge.png").write_bytes(png(size=6_000_000))
    (resources / "poster.png").write_bytes(png(size=50_000_000))
    outside = tmp_path / "outside.png"
    outside.write_bytes(png(width=10, height=10))
    (resources / "linked.png").symlink_to(outside)
    return project, sketch


def _image_parts(body: dict[str, object]) -> list[dict[str, object]]:
    [message] = body["messages"]  # type: ignore[misc]
    content = message["content"]
    if isinstance(content, str):
        return []
    return [part for part in content if part["type"] == "image_url"]


def test_a_vision_agent_gets_the_image_as_a_content_part_and_bad_images_are_skipped(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _agent(config, server.url, vision=True)
    server.script(Reply(distillation()))
    project, sketch = _project_with_images(config, tmp_path)
    intake.distill(project, config)
    [part] = _image_parts(server.bodies[-1])
    encoded = base64.b64encode(sketch).decode()
    assert part["image_url"] == {"url": f"data:image/png;base64,{encoded}"}
    [text] = [p for p in server.bodies[-1]["messages"][0]["content"] if p["type"] == "text"]
    assert "attached to this message" in text["text"] and "- whiteboard.png" in text["text"]
    notices = [m.content for m in read_chat(project.dir) if m.role == "system"]
    assert any("'notes.png' is not a PNG, JPEG, GIF or WebP image" in n for n in notices)
    assert any("'huge.png' is over the agent's image limit" in n for n in notices)
    assert "File 'poster.png' exceeds size limit and was skipped." in notices
    assert not any("linked.png" in n for n in notices), "a link out is never read, as ever"


def test_a_non_vision_agent_sends_text_only_as_before(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _agent(config, server.url)
    server.script(Reply(distillation()))
    project, _ = _project_with_images(config, tmp_path)
    intake.distill(project, config)
    assert isinstance(server.bodies[-1]["messages"][0]["content"], str)
    assert not _image_parts(server.bodies[-1])
    notices = [m.content for m in read_chat(project.dir) if m.role == "system"]
    assert any(
        "'whiteboard.png' is an image and the agent cannot read images" in n for n in notices
    )


def test_a_server_that_refuses_images_is_told_naming_the_vision_setting(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _agent(config, server.url, vision=True)
    server.script(Reply(status=400, error="Invalid content type: image_url is not supported"))
    (tmp_path / "sketch.png").write_bytes(png())
    call = AgentCall(
        step="brain-dump-intake",
        project_dir=tmp_path,
        phase="distilling",
        images=(tmp_path / "sketch.png",),
    )
    with pytest.raises(AgentFailure) as failed:
        invoke_agent(config, "eyes", "What is on the whiteboard?", call)
    assert "agents.available.eyes.vision to false" in str(failed.value)
    assert "image_url is not supported" in str(failed.value)


def test_the_images_count_against_the_context_window(
    config: Config, tmp_path: Path, server: FakeOpenAI
) -> None:
    _agent(config, server.url, vision=True, context_window_tokens=800, max_tokens=100)
    big = png(4096, 4096)
    (tmp_path / "big.png").write_bytes(big)
    assert image_tokens(big, "image/png") == 85 + 170 * 4
    plain = AgentCall(step="x", project_dir=tmp_path, phase="distilling")
    assert invoke_agent(config, "eyes", "hello", plain) == "ok"
    with pytest.raises(PromptTooLarge):
        invoke_agent(
            config, "eyes", "hello", plain.model_copy(update={"images": (tmp_path / "big.png",)})
        )


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (png(), "image/png"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 20, "image/jpeg"),
        (b"GIF89a" + b"\x00" * 20, "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x00" * 20, "image/webp"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", None),
        (b"%PDF-1.7", None),
    ],
)
def test_an_image_is_known_by_its_bytes(data: bytes, mime: str | None) -> None:
    assert image_type(data) == mime
