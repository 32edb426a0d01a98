"""A pytest plugin for tests/test_workers.py: the worker that runs one chosen scenario dies in
it (os._exit), as a worker killed by the machine would."""

import os

import pytest

DIES_IN = "test_a_xoc_dia_bet_after_the_countdown_ran_out"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    if hasattr(item.config, "workerinput") and item.name == DIES_IN:
        os._exit(1)
