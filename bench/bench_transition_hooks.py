"""What the board and the channels add to a phase change, with the real Vibe Kanban 0.0.71.

Three ways to make the same transition (distilling ⇄ human_review, back and forth):
- `null`: no board, no channel (the floor);
- `announced`: what entry points install, the card update and an ntfy + a webhook notification
  handed to the courier (the pipeline's path);
- `direct`: the same board and channels called in the transition itself, as it would be without
  the courier (what the pipeline would wait for).

Run: pytest bench/bench_transition_hooks.py --benchmark-only -p no:cacheprovider -o addopts=''
(needs `.ci/install-vibe-kanban`.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from pytest_benchmark.fixture import BenchmarkFixture

from tests.capture_server import CaptureServer
from tests.conftest import config_data
from tests.vibe_kanban import VibeKanban, free_port
from thoughtforge.adapters.announce import announce_transitions, board_for
from thoughtforge.adapters.courier import courier
from thoughtforge.adapters.notify import ChannelNotifier
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.hooks import TransitionHooks, install_hooks, installed_hooks
from thoughtforge.core.project import Project
from thoughtforge.core.transition import transition
from thoughtforge.models import Phase


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[VibeKanban, str]]:
    board = VibeKanban(tmp_path_factory.mktemp("vk"), port=free_port())
    with CaptureServer() as channels:
        yield board, channels.url
    board.stop()


@pytest.fixture
def setup(
    tmp_path: Path, services: tuple[VibeKanban, str]
) -> Iterator[tuple[Path, Project, Callable[[], None]]]:
    board, channels = services
    data = config_data(
        tmp_path,
        vibekanban={"enabled": True, "url": board.url, "project_name": f"bench {tmp_path.name}"},
        notifications={
            "enabled": True,
            "channels": [
                {"type": "ntfy", "url": channels, "topic": "bench"},
                {"type": "webhook", "url": f"{channels}/hook"},
            ],
        },
    )
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    config = load_config(path)
    project = create_project(config)
    transition(project, Phase.DISTILLING, hooks=TransitionHooks())
    previous = installed_hooks()

    def flip() -> None:
        now = project.status().phase
        transition(project, Phase.HUMAN_REVIEW if now is Phase.DISTILLING else Phase.DISTILLING)

    yield path, project, flip
    courier.drain()
    install_hooks(previous)


def test_null(benchmark: BenchmarkFixture, setup: tuple[Path, Project, Callable[[], None]]) -> None:
    install_hooks(TransitionHooks())
    benchmark.pedantic(setup[2], rounds=60, iterations=1)


def test_announced(
    benchmark: BenchmarkFixture, setup: tuple[Path, Project, Callable[[], None]]
) -> None:
    path, _, flip = setup
    announce_transitions(path, load_config(path))
    benchmark.pedantic(flip, rounds=60, iterations=1)
    assert courier.drain(60)


def test_direct(
    benchmark: BenchmarkFixture, setup: tuple[Path, Project, Callable[[], None]]
) -> None:
    path, _, flip = setup
    config = load_config(path)
    install_hooks(
        TransitionHooks(
            notifier=ChannelNotifier(lambda: config.notifications), board=board_for(path, config)
        )
    )
    benchmark.pedantic(flip, rounds=60, iterations=1)
