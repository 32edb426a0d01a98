"""A re-shake or a resume that reopens betting is the closed betting period's finding (RULES.md
D, "re-shakes": the betting period stays closed; SB-RND-04 for Sic Bo, the betting window
XD-RND-01 / SB-RND-01, and REG-COMMIT-01), never the re-shake's reason clause (SB-RND-05/06,
XD-RND-03/04) nor TBL-MAL-02: the re-shake and the resume were taken (issue 36).

The random sessions (features/table/money.feature) are left out: their blame is the money
machine's (livecert/harness/money_machine.py), judged by its own tests."""

from pathlib import Path
from types import SimpleNamespace

from cli_support import certify_through

from livecert.harness.embedded import EmbeddedServer
from livecert.harness.round_clauses import RESHAKE
from livecert.suite.steps.rounds import reshake_clauses

REASONS = ("SB-RND-05", "SB-RND-06", "XD-RND-03", "XD-RND-04")
BROKEN = ("REG-COMMIT-01", "SB-RND-01", "SB-RND-04", "XD-RND-01")


def test_a_bet_after_a_re_shake_names_no_reason_clause() -> None:
    for game in ("sicbo", "xocdia"):
        clauses = reshake_clauses(SimpleNamespace(game=game))
        assert "REG-COMMIT-01" in clauses
        assert not set(clauses) & set(RESHAKE.values()), (game, clauses)


def test_betting_reopened_fails_only_the_closed_betting_period_s_clauses(tmp_path: Path) -> None:
    faults = ("reshake-reopens-betting", "resume-reopens-betting")
    with EmbeddedServer(faults=faults) as server:
        status, cert, output = certify_through(
            tmp_path / "report",
            server.url,
            server,
            "all",
            ",".join((*BROKEN, *REASONS, "TBL-MAL-02")),
            "--",
            "-k",
            "not Random",
        )
    rows = cert["clauses"]
    failed = sorted(c for c, row in rows.items() if row["status"] == "failed")
    assert (status, failed, cert["harness_errors"]) == (1, list(BROKEN), []), output
    assert {rows[c]["status"] for c in (*REASONS, "TBL-MAL-02")} == {"passed"}
    assert "the betting period reopened" in rows["XD-RND-01"]["checks"]["first_failure"]
    assert "resuming it reopened betting" in rows["SB-RND-01"]["checks"]["first_failure"]
