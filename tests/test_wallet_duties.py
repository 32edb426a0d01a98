"""Refund and disconnection duties judged on the wallet as well as the record (issue 36): a
cancel whose refund never reaches the wallet fails TBL-MAL-03, a void that also pays the winners
fails XD-VOID-01, a disconnected player's win never credited fails TBL-DISC-02 (each besides
REG-MONEY-01), though every bet shows the right amount; and each at any stake, a cent to the
table's largest (the faults' whole ranges), with no other clause blamed.

One certify run per end of the ranges, the three faults together: each clause's failed
scenarios say which fault it was (a cancel fault blaming the disconnection would show
TBL-DISC-02 failed in the cancelled round of the disconnection feature)."""

from pathlib import Path

import pytest
from cli_support import certify_through

from livecert.harness.embedded import EmbeddedServer

FAULTS = ("cancel-refund-uncredited", "void-pays-winners", "disconnected-win-uncredited")
CLAUSES = ("REG-MONEY-01", "TBL-DISC-02", "TBL-MAL-03", "XD-VOID-01")
SETTLED_OFFLINE = (
    "Xoc Dia: a player who disconnects: The player disconnects after betting ends and "
    "reconnects after the result"
)
BETTING_OFFLINE = (
    "Xoc Dia: a player who disconnects: The player disconnects while betting is still open"
)


@pytest.mark.parametrize(("end", "offline"), [("0.01", "player"), ("50000.00", "H")])
def test_wallet_faults_fail_their_clauses_at_both_ends_of_their_range(
    tmp_path: Path, end: str, offline: str
) -> None:
    with EmbeddedServer(faults=tuple(f"{name}={end}" for name in FAULTS)) as server:
        status, cert, output = certify_through(
            tmp_path / "report",
            server.url,
            server,
            "xocdia",
            ",".join(CLAUSES),
            "--",
            "-k",
            "not Random and not moment",
        )
    rows = cert["clauses"]
    failed = sorted(c for c, row in rows.items() if row["status"] == "failed")
    assert (status, failed, cert["harness_errors"]) == (1, list(CLAUSES), []), output
    # the refund's clause on the wallet, not only REG-MONEY-01
    assert "short of its start" in rows["TBL-MAL-03"]["checks"]["first_failure"]
    assert all("cancel" in s for s in rows["TBL-MAL-03"]["failed_scenarios"])
    assert "above its start" in rows["XD-VOID-01"]["checks"]["first_failure"]
    assert all("void and cancelled" in s for s in rows["XD-VOID-01"]["failed_scenarios"])
    # the disconnection blamed only where a disconnected player won, never in a cancelled round
    assert set(rows["TBL-DISC-02"]["failed_scenarios"]) <= {SETTLED_OFFLINE, BETTING_OFFLINE}
    assert rows["TBL-DISC-02"]["checks"]["first_failure"].startswith(f"{offline}'s balance is")
