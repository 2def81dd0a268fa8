"""What an agent tool waits for from `thoughtforge mcp`, and what images cost an HTTP agent.

- `stdio_start`: spawning `thoughtforge mcp` over stdio until its tools are listed (what an agent
  tool pays each time it starts the server).
- `stdio_start_beside_minimal`: the same, alternating with `minimal_mcp_server.py` (one tool, the
  same SDK), so a loaded machine weighs on both: the medians and their ratio (the aim: at most
  1.3), with the machine's load average while they ran.
- `list_projects`: one `list_projects` call over stdio with 20 projects.
- `image_part`: a 1 MB PNG read, checked by its bytes and made an image content part.
- `tool_list_bytes`: the bytes of the tool list as JSON, what a host keeps in its model's context
  (printed, and kept in the benchmark's extra_info).

Run: pytest bench/bench_mcp.py --benchmark-only -p no:cacheprovider -o addopts=''
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

import anyio
import pytest
import yaml
from mcp import Client, StdioServerParameters
from pytest_benchmark.fixture import BenchmarkFixture

from tests.conftest import BRAIN_DUMP, REPO_ROOT, config_data
from thoughtforge.adapters.agents.image_parts import image_part, load_image
from thoughtforge.config import OpenAIAgentSpec, load_config
from thoughtforge.core.creation import create_project


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config_data(tmp_path, concurrency={"max_parallel_runs": 50})))
    return path


def _server(config_file: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "thoughtforge", "--config", str(config_file), "mcp"],
        env={"PYTHONPATH": str(REPO_ROOT), "HOME": str(config_file.parent)},
    )


def test_stdio_start(benchmark: BenchmarkFixture, config_file: Path) -> None:
    async def start() -> int:
        async with Client(_server(config_file)) as client:
            return len((await client.list_tools()).tools)

    tools = benchmark.pedantic(lambda: anyio.run(start), rounds=3, iterations=1)
    assert tools >= 10


def _minimal_server() -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(Path(__file__).with_name("minimal_mcp_server.py"))],
        env={"HOME": str(Path(__file__).parent)},
    )


def test_stdio_start_beside_minimal(benchmark: BenchmarkFixture, config_file: Path) -> None:
    async def seconds_to_list(server: StdioServerParameters) -> float:
        started = anyio.current_time()
        async with Client(server) as client:
            assert (await client.list_tools()).tools
        return anyio.current_time() - started

    ours: list[float] = []
    minimal: list[float] = []

    def both() -> None:
        ours.append(anyio.run(seconds_to_list, _server(config_file)))
        minimal.append(anyio.run(seconds_to_list, _minimal_server()))

    load_before = os.getloadavg()[0]
    benchmark.pedantic(both, rounds=7, iterations=1, warmup_rounds=1)
    load = (load_before + os.getloadavg()[0]) / 2
    ours, minimal = ours[1:], minimal[1:]  # the warm-up round
    ours_median, minimal_median = sorted(ours)[len(ours) // 2], sorted(minimal)[len(minimal) // 2]
    benchmark.extra_info.update(
        thoughtforge_seconds_median=round(ours_median, 3),
        minimal_seconds_median=round(minimal_median, 3),
        ratio=round(ours_median / minimal_median, 2),
        load_average=round(load, 1),
    )
    print(
        f"\nthoughtforge mcp {ours_median:.2f}s, minimal {minimal_median:.2f}s, "
        f"ratio {ours_median / minimal_median:.2f} (1-minute load average {load:.1f})"
    )


def test_list_projects(benchmark: BenchmarkFixture, config_file: Path) -> None:
    config = load_config(config_file)
    for _ in range(20):
        create_project(config, brain_dump=BRAIN_DUMP)

    async def listing() -> None:
        async with Client(_server(config_file)) as client:
            for _ in range(3):
                await client.call_tool("list_projects", {})  # warm
            times = []
            for _ in range(20):
                started = anyio.current_time()
                result = await client.call_tool("list_projects", {})
                times.append(anyio.current_time() - started)
                assert not result.is_error
            benchmark.extra_info["call_seconds_median"] = sorted(times)[10]

    benchmark.pedantic(lambda: anyio.run(listing), rounds=1, iterations=1)


def test_image_part(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    head = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", 1600, 1200)
    path = tmp_path / "sketch.png"
    path.write_bytes(head + b"\x00" * 1_000_000)
    spec = OpenAIAgentSpec.model_validate(
        {"type": "openai", "base_url": "http://127.0.0.1:1/v1", "model": "m", "vision": True}
    )
    part = benchmark(lambda: image_part(*load_image(path, path.name, spec)))
    assert part["image_url"]["url"].startswith("data:image/png;base64,")


def test_tool_list_bytes(config_file: Path, benchmark: BenchmarkFixture) -> None:
    import asyncio
    import json

    from thoughtforge.mcp_server.transports import build_server

    server = build_server(config_file, load_config(config_file))

    def listed() -> int:
        tools = asyncio.run(server.list_tools())
        shown = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
        return len(json.dumps(shown))

    size = benchmark(listed)
    benchmark.extra_info["bytes"] = size
    print(f"\ntool list: {size:,} bytes")
