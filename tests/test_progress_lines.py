"""The lines the suite prints the moment a test ends (tests/conftest.py): a CI run stopped by
its time limit must still have said which tests failed and which took the time."""

from types import SimpleNamespace

from tests.conftest import SLOW_TEST_SECONDS, _said_at_once


def report(when="call", outcome="passed", duration=0.5, nodeid="tests/x.py::test_y"):
    return SimpleNamespace(
        when=when, failed=outcome == "failed", duration=duration, nodeid=nodeid
    )


def test_a_failure_is_named_with_its_duration():
    assert _said_at_once(report(outcome="failed", duration=301.25)) == (
        "FAILED tests/x.py::test_y after 301.2 s"
    )


def test_a_failure_outside_the_test_body_names_its_phase():
    assert _said_at_once(report(when="setup", outcome="failed", duration=2.0)) == (
        "FAILED tests/x.py::test_y (in setup) after 2.0 s"
    )


def test_a_slow_pass_is_named_and_a_quick_one_is_not():
    assert _said_at_once(report(duration=SLOW_TEST_SECONDS + 1)) == (
        f"SLOW tests/x.py::test_y: {SLOW_TEST_SECONDS + 1:.1f} s"
    )
    assert _said_at_once(report(duration=SLOW_TEST_SECONDS - 1)) is None
    # a slow fixture's teardown is not the test's own time
    assert _said_at_once(report(when="teardown", duration=SLOW_TEST_SECONDS + 1)) is None
