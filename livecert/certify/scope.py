"""What this version of the harness certifies: the clauses its features prove, per game.

A clause in scope must be proven by at least one scenario of the run, or the verdict is
`incomplete`. A clause of the catalogue outside the scope is listed in the certificate as not
tested, with the reason, and does not count towards the verdict: the certificate says plainly
what was and was not certified. tests/test_scope.py keeps this list and the feature tags in step.
"""

SICBO_PAYOUTS = tuple(f"SB-PAY-{n:02d}" for n in range(1, 17))
XOCDIA_PAYOUTS = tuple(f"XD-PAY-{n:02d}" for n in range(1, 11))
XOCDIA_ROUNDS = ("XD-RND-01", "XD-RND-02", "XD-RND-03", "XD-RND-04", "XD-VOID-01", "XD-VOID-02")

IN_SCOPE: dict[str, tuple[str, ...]] = {
    "sicbo": ("SB-GEN-01", *SICBO_PAYOUTS, "SB-RTP-01", "REG-SETTLE-01", "REG-RTP-01"),
    "xocdia": (
        "XD-GEN-01",
        *XOCDIA_ROUNDS,
        *XOCDIA_PAYOUTS,
        "XD-RTP-01",
        "REG-SETTLE-01",
        "REG-RTP-01",
    ),
}

GAME_SECTIONS = {"sicbo": ("A",), "xocdia": ("B",)}
SHARED_SECTIONS = ("C", "F")
GAMES = tuple(IN_SCOPE)
OUT_OF_SCOPE_REASON = "not covered by this harness version (no scenario proves it yet)"
NOT_CERTIFIABLE = {"DOC-LANG-01": "about the documents themselves, not the implementation"}


def clauses_in_scope(games: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(c for g in games for c in IN_SCOPE[g]))


def sections_for(games: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(s for g in games for s in GAME_SECTIONS[g]) + SHARED_SECTIONS
