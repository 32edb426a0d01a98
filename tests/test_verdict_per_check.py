"""A clause passes only where a check for it ran and held, end to end on a real target.

The false pass of 0.1.0: a vendor that does not offer some selections and settles some sweep rolls
wrong came out with the unoffered selections' clauses *passed*, credited by the failed rolls'
scenarios. Here the vendor example server (examples/vendor_server) leaves out Two white two red
and Four of a colour (its mapping marks them not offered) and settles Big and Small wrong on the
two-two rolls (its seeded fault).
"""

import os
import sys
from pathlib import Path

import pytest
import yaml
from cli_support import certify
from vendor_support import MAPPING, certify_mapping, vendor_server

from livecert.certify.runner import unexplained_stop

PAYOUTS = [f"XD-PAY-{n:02d}" for n in range(1, 11)]
NOT_OFFERED = {"TWO_TWO": "XD-PAY-03", "FOUR_OF_A_COLOUR": "XD-PAY-06"}


def certify_payouts(tmp_path: Path, data: dict, *faults: str) -> tuple[int, dict, str]:
    """Certify the vendor's Xoc Dia payouts through the mapping `data` (with `faults` on)."""
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with vendor_server(*faults) as (url, env):
        clauses = ",".join([*PAYOUTS, "REG-SETTLE-01"])
        return certify_mapping(
            tmp_path, mapping, url, env, "--game", "xocdia", "--clauses", clauses
        )


def test_unoffered_selections_stay_untested_and_only_the_broken_rows_fail(tmp_path: Path) -> None:
    data = yaml.safe_load(MAPPING.read_text(encoding="utf-8"))
    for code in NOT_OFFERED:
        data["selections"]["xocdia"][code] = None
    status, cert, output = certify_payouts(tmp_path, data, "two-two-takes-big-small")
    assert (status, cert["verdict"]) == (1, "non-compliant"), output[-3000:]
    rows = cert["clauses"]
    failed = {c for c, row in rows.items() if row["status"] == "failed"}
    assert failed == {"XD-PAY-09", "XD-PAY-10", "REG-SETTLE-01"}
    for code, clause in NOT_OFFERED.items():
        assert rows[clause]["status"] == "not-tested", clause
        reason = rows[clause]["reason"]
        assert "does not offer" in reason and code in reason, reason
        assert rows[clause]["checks"]["ran"] == 0
    offered = set(PAYOUTS) - failed - set(NOT_OFFERED.values())
    for clause in offered:
        assert rows[clause]["status"] == "passed", clause
        assert rows[clause]["checks"]["held"] == rows[clause]["checks"]["ran"] > 0
    # in the sweep, Big failed on exactly the six two-two results, and held on the other ten
    big = rows["XD-PAY-09"]
    swept = [n for n in big["checks"]["in_scenarios"] if "every selection" in n.lower()]
    assert len(swept) == 16
    failed_sweeps = [n for n in big["failed_scenarios"] if "every selection" in n.lower()]
    assert len(failed_sweeps) == 6
    assert all(sorted(n.split("on ")[-1].split()) == ["r", "r", "w", "w"] for n in failed_sweeps)


def test_a_mapping_that_misreads_the_answers_is_incomplete_never_a_finding(tmp_path: Path) -> None:
    """The bet shape reads the outcome where the vendor does not write it: 0.1.0 turned that into
    thousands of settlement "mismatches" and failed clauses; it is the mapping's mistake."""
    data = yaml.safe_load(MAPPING.read_text(encoding="utf-8"))
    data["shapes"]["bet"]["outcome"] = {"path": "result_of_bet", "values": "bet_outcome"}
    status, cert, output = certify_payouts(tmp_path, data)
    assert (status, cert["verdict"]) == (2, "incomplete"), output[-3000:]
    assert not [c for c, row in cert["clauses"].items() if row["status"] == "failed"]
    assert cert["harness_errors"], output[-3000:]
    first = cert["harness_errors"][0]
    assert "mapping error" in first and "result_of_bet" in first, first
    assert cert["summary"].get("error", 0) == 1  # the run stopped at the first such answer


STOPPING_PLUGIN = '''
"""Stop the test run after its first scenario, as a harness defect (an exception in a hook:
pytest's internal error), a Ctrl-C or the machine (a kill) would."""

import os

finished = []


def pytest_runtest_logfinish(nodeid, location):
    finished.append(nodeid)
    if len(finished) == 1:
        {stop}
'''


@pytest.mark.parametrize(
    ("stop", "exit_status", "words"),
    [
        ('raise RuntimeError("a defect")', 3, "the test run crashed (pytest's internal error"),
        ("raise KeyboardInterrupt()", 2, "the test run was interrupted (status 2"),
        ("os.kill(os.getpid(), 9)", -9, "the test run was killed by signal 9"),
    ],
)
def test_a_stopped_test_run_is_incomplete_whatever_passed_before(
    tmp_path: Path, stop: str, exit_status: int, words: str
) -> None:
    """The first scenario of SB-RND-04 passes it, then the run stops: its other scenarios never
    ran, so the clause is not certified (0.1.0 said compliant after a crash: status 3 was taken
    as a finished run)."""
    (tmp_path / "stopping_plugin.py").write_text(
        STOPPING_PLUGIN.format(stop=stop), encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    args = ("--no-html", "--game", "sicbo", "--clauses", "SB-RND-04", "--", "-p")
    status, cert, output = certify(tmp_path / "report", *args, "stopping_plugin", env=env)
    assert cert["run"]["pytest_exit_status"] == exit_status, output[-3000:]
    assert (status, cert["verdict"]) == (2, "incomplete"), output[-3000:]
    assert words in cert["harness_errors"][0]
    assert cert["verdict_reasons"][0].startswith("harness error: the test run ")


@pytest.mark.parametrize(
    ("records", "crashed"),
    [
        ([{"type": "target_error", "stage": "preflight", "message": "cannot connect"}], False),
        ([{"type": "run_cut", "stage": "preflight", "message": "the run's end"}], False),
        ([{"type": "target_error", "message": "answered 500 mid-run"}], True),
        ([], True),
    ],
)
def test_status_3_is_a_crash_unless_the_run_stopped_itself_before_the_first_scenario(
    records: list[dict], crashed: bool
) -> None:
    """A target unreachable at the start ends the run with status 3 by design, said as a
    target error: blaming the harness too would put a false harness error in the verdict."""
    assert (unexplained_stop(3, records) is not None) == crashed
