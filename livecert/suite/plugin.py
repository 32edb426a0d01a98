"""The pytest plugin of livecert (entry point `pytest11`): inert until the features are run.

In any pytest session of a virtualenv holding livecert it registers the suite's command-line
options (`--target-url`, `--adapter`, ...) and nothing else: no hook, no fixture, no check. The
suite itself (fixtures, step definitions and their hooks) is loaded by the features' own
`conftest.py` when the features are collected, as by

    pytest --pyargs livecert.suite.features --target-url URL ...

Options must be known before the command line is parsed, which a conftest loaded during
collection is too late for; hence this split.
"""

import pytest

OPTIONS = "livecert.suite.fixtures.options"


def pytest_addoption(parser: pytest.Parser) -> None:
    # imported as the plugin the features' conftest names it as, asserts rewritten (else pytest
    # warns that it cannot rewrite a module already imported)
    pytest.register_assert_rewrite(OPTIONS)
    from livecert.suite.fixtures.options import add_options  # only when pytest asks

    add_options(parser)
