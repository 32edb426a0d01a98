"""The optional abilities a target declares in `/v1/info` (`capabilities`), and what each lets
the harness test. A scenario tagged `@needs-<capability>` is skipped, with this reason, on a
target that does not declare it: its clauses are then reported not tested, never passed."""

CAPABILITIES: dict[str, str] = {
    "pause": "the dealer pauses and resumes a round (malfunction: TBL-MAL-01..03)",
    "statistics": "the table's chart of the last results (SB-STAT-01)",
    "disconnect": "a player's connection can be dropped and restored (TBL-DISC-01..03)",
    "reshake": "the dealer records a re-shake or a rearrangement (SB-RND-04, XD-RND-02..04)",
    "idempotency": "a bet slip sent twice with one Idempotency-Key is applied once (REG-IDEMP-01)",
    "batch-bets": "one bet slip holds several bets",
    "instant-round": "one request takes a slip, plays the round with the result the lab forces "
    "and settles it (the instant-round duties: REG-INPUT-01, REG-BAL-01, REG-MONEY-01, "
    "REG-ACCESS-01, REG-IDEMP-01)",
}
NEEDS_PREFIX = "needs-"
# a second path to duties the live round proves too: not declaring it leaves no clause untested
ANOTHER_PATH = frozenset({"instant-round"})


def missing_reason(capability: str, *more: str) -> str:
    """Why a scenario needing `capability` (and `more`) was not run: every one it lacks."""
    lacking = [capability, *more]
    if len(lacking) == 1:
        what = CAPABILITIES.get(capability, "an optional ability")
        return (
            f"not testable on this target: it does not declare the capability '{capability}' "
            f"({what})"
        )
    named = ", ".join(f"'{c}' ({CAPABILITIES.get(c, 'an optional ability')})" for c in lacking)
    return f"not testable on this target: it does not declare the capabilities {named}"
