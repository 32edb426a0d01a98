"""The suite's long-lived objects are frozen out of the garbage collector's full sweeps
(livecert/suite/fixtures/memory.py): once the suite is collected, and again every FREEZE_EVERY
scenarios. A run of plain tests with the plugin shows both, as each test sees the count of
frozen objects."""

import subprocess
import sys
import textwrap
from pathlib import Path

from livecert.suite.fixtures.memory import FREEZE_EVERY

ROOT = Path(__file__).resolve().parent.parent


def test_the_collected_suite_is_frozen_and_refrozen_as_scenarios_finish(tmp_path: Path) -> None:
    count = FREEZE_EVERY + 5
    (tmp_path / "test_frozen.py").write_text(
        textwrap.dedent(
            f"""
            import gc
            import pytest

            SEEN = []

            @pytest.mark.parametrize("index", range({count}))
            def test_one(index):
                SEEN.append(gc.get_freeze_count())
                if index == {count} - 1:
                    print("FROZEN", SEEN[0], SEEN[{FREEZE_EVERY} - 1], SEEN[{FREEZE_EVERY}])
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "livecert.suite.fixtures.memory",
         "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    first, before, after = (int(n) for n in done.stdout.split("FROZEN ")[1].split()[:3])
    assert first > 0  # frozen once the tests were collected
    assert before <= first  # nothing added (frozen objects freed since are gone from it)
    assert after > before  # then frozen again, with what the run made meanwhile
