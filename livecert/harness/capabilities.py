"""The optional abilities a target declares in `/v1/info` (`capabilities`), and what each lets
the harness test. A scenario tagged `@needs-<capability>` is skipped, with this reason, on a
target that does not declare it: its clauses are then reported not tested, never passed."""

CAPABILITIES: dict[str, str] = {
    "pause": "the dealer pauses and resumes a round (malfunction: TBL-MAL-01..03)",
    "statistics": "the table's chart of the last results (SB-STAT-01)",
    "disconnect": "a player's connection can be dropped and restored (TBL-DISC-01..03)",
    "reshake": "the dealer records a re-shake or a rearrangement (SB-RND-04, XD-RND-02..04)",
    "idempotency": "a bet slip sent twice with one Idempotency-Key is applied once (REG-IDEMP-01)",
    "batch-bets": "one bet slip holds several bets, taken or refused whole (a slip with one bad "
    "bet among good ones; a slip over the balance spread over several bets)",
    "round-history": "the table's finished rounds read a page at a time: the outcome history "
    "the fairness battery tests (REG-FAIR-01, REG-FAIR-02)",
    "instant-round": "one request takes a slip, plays the round with the result the lab forces "
    "and settles it (the instant-round duties: REG-INPUT-01, REG-BAL-01, REG-MONEY-01, "
    "REG-ACCESS-01, REG-IDEMP-01)",
}
NEEDS_PREFIX = "needs-"
# abilities the lab gives the harness, where the target declares nothing: a scenario tagged
# @needs-<name> runs only where the lab gave it, else it is not tested with this reason
LAB_ABILITIES: dict[str, str] = {
    "restart": "no restart hook: give --restart-hook COMMAND or map a restart_target operation",
}
# abilities of a live round: a target without one cannot show them whatever it declares
LIVE_ROUND_ABILITIES = frozenset({"pause", "disconnect", "reshake", "restart"})
# a second path to duties the live round proves too: not declaring it leaves no clause untested
ANOTHER_PATH = frozenset({"instant-round"})


def skip_reason(missing: list[str], needed: list[str], no_live_round: str | None) -> str | None:
    """Why a scenario needing the abilities `needed` cannot run (None: it can): those the target
    does not declare, and, for a live round's abilities, that it has no live round at all
    (`no_live_round`, the adapter's reason), both where both hold."""
    live = no_live_round if LIVE_ROUND_ABILITIES & set(needed) else None
    if not missing:
        return None
    reason = missing_reason(*missing)
    return f"{reason}; and {live}" if live else reason


def missing_reason(capability: str, *more: str) -> str:
    """Why a scenario needing `capability` (and `more`) was not run: every one it lacks."""
    given = [LAB_ABILITIES[c] for c in (capability, *more) if c in LAB_ABILITIES]
    lacking = [c for c in (capability, *more) if c not in LAB_ABILITIES]
    if not lacking:
        return "; ".join(given)
    if given:
        return "; ".join([missing_reason(*lacking), *given])
    if len(lacking) == 1:
        what = CAPABILITIES.get(capability, "an optional ability")
        return (
            f"not testable on this target: it does not declare the capability '{capability}' "
            f"({what})"
        )
    named = ", ".join(f"'{c}' ({CAPABILITIES.get(c, 'an optional ability')})" for c in lacking)
    return f"not testable on this target: it does not declare the capabilities {named}"
