"""Code mode's stuck rules: same task failing twice, the same failing tests three cycles."""

from __future__ import annotations

from thoughtforge.plugins.code.stuck import Stuck, StuckTracker


def test_the_same_task_failing_twice_in_a_row_is_stuck_on_that_task() -> None:
    tracker = StuckTracker()
    assert tracker.agent_failed("implement parser") is None
    stuck = tracker.agent_failed("implement parser")
    assert stuck is not None
    assert (stuck.rule, stuck.task) == ("agent_failures", "implement parser")
    assert "'implement parser'" in stuck.reason
    assert "2 times in a row" in stuck.reason


def test_another_task_in_between_breaks_the_run() -> None:
    tracker = StuckTracker()
    assert tracker.agent_failed("implement parser") is None
    assert tracker.agent_failed("fix test_cli") is None
    assert tracker.agent_failed("implement parser") is None
    assert tracker.agent_failed("implement parser") is not None


def test_a_success_in_between_breaks_the_run() -> None:
    tracker = StuckTracker()
    tracker.agent_failed("implement parser")
    tracker.agent_succeeded("implement parser")
    assert tracker.agent_failed("implement parser") is None
    tracker.agent_succeeded("fix test_cli")
    assert tracker.agent_failed("implement parser") is None


def test_the_same_failing_set_three_cycles_running_is_stuck_naming_the_tests() -> None:
    tracker = StuckTracker()
    failing = ["tests/test_a.py::test_one", "tests/test_b.py::test_two"]
    assert tracker.tests_failed(failing) is None
    assert tracker.tests_failed(failing) is None
    stuck = tracker.tests_failed(failing)
    assert stuck is not None
    assert (stuck.rule, stuck.tests) == ("test_failures", sorted(failing))
    assert "3 consecutive" in stuck.reason
    assert all(name in stuck.reason for name in failing)


def test_the_set_is_compared_regardless_of_order_and_repeats() -> None:
    tracker = StuckTracker()
    tracker.tests_failed(["b", "a"])
    tracker.tests_failed(["a", "b", "a"])
    assert tracker.tests_failed(["a", "b"]) is not None


def test_rotating_failures_never_trigger() -> None:
    tracker = StuckTracker()
    rotation = [["a"], ["b"], ["a", "b"], ["a"], ["b"], ["a", "b"]]
    assert all(tracker.tests_failed(failing) is None for failing in rotation)


def test_names_are_compared_as_exact_strings() -> None:
    tracker = StuckTracker()
    tracker.tests_failed(["test_one"])
    tracker.tests_failed(["test_one"])
    assert tracker.tests_failed(["Test_one"]) is None


def test_a_green_run_or_a_different_set_starts_the_count_again() -> None:
    tracker = StuckTracker()
    tracker.tests_failed(["a"])
    tracker.tests_failed(["a"])
    tracker.tests_passed()
    assert tracker.tests_failed(["a"]) is None
    tracker.tests_failed(["a"])
    tracker.tests_failed(["a", "c"])
    assert tracker.tests_failed(["a"]) is None


def test_unnamed_failures_count_as_the_same_empty_set() -> None:
    tracker = StuckTracker()
    tracker.tests_failed([])
    tracker.tests_failed([])
    stuck = tracker.tests_failed([])
    assert stuck is not None
    assert "named none" in stuck.reason


def test_a_long_list_of_tests_is_shortened_in_the_reason_only() -> None:
    tracker = StuckTracker()
    failing = [f"test_{n:02}" for n in range(25)]
    for _ in range(3):
        stuck = tracker.tests_failed(failing)
    assert stuck is not None
    assert stuck.tests == failing
    assert "test_09 and 15 more" in stuck.reason
    assert "test_10" not in stuck.reason


def test_human_input_restarts_the_counts_from_zero() -> None:
    tracker = StuckTracker()
    tracker.agent_failed("implement parser")
    assert tracker.agent_failed("implement parser") is not None
    tracker.reset("implement parser")
    assert tracker.agent_failed("implement parser") is None
    assert tracker.agent_failed("implement parser") is not None

    for _ in range(3):
        tracker.tests_failed(["a"])
    tracker.reset("fix failing tests")
    assert tracker.tests_failed(["a"]) is None
    assert tracker.tests_failed(["a"]) is None
    assert tracker.tests_failed(["a"]) is not None


def test_input_for_another_task_leaves_the_current_run_alone() -> None:
    tracker = StuckTracker()
    tracker.agent_failed("implement parser")
    tracker.reset("fix test_cli")
    assert tracker.agent_failed("implement parser") is not None


def test_the_counts_survive_a_round_trip_through_json() -> None:
    tracker = StuckTracker()
    tracker.agent_failed("implement parser")
    tracker.tests_failed(["b", "a"])
    tracker.tests_failed(["a", "b"])
    restored = StuckTracker.model_validate_json(tracker.model_dump_json())
    assert restored == tracker
    assert restored.agent_failed("implement parser") is not None
    stuck = restored.tests_failed(["a", "b"])
    assert stuck is not None
    assert Stuck.model_validate_json(stuck.model_dump_json()) == stuck
