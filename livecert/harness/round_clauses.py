"""Which clause each of a round's moves belongs to, so every check and every refused action
names the same clause wherever the harness meets it (the steps, the scene, the money machine)."""

COMMIT = "REG-COMMIT-01"  # a bet is committed before the outcome; one received after is refused
SETTLE = "REG-SETTLE-01"
WINDOW = {"sicbo": "SB-RND-01", "xocdia": "XD-RND-01"}  # bets only during the betting period
RESULT = {"sicbo": "SB-RND-03", "xocdia": "XD-RND-01"}  # the dealer enters (reveals) the result
RESHAKE = {
    "dice-overlap": "SB-RND-05",
    "die-not-flat": "SB-RND-05",
    "too-few-tumbles": "SB-RND-06",
    "items-fell": "XD-RND-03",
    "standing-token": "XD-RND-04",
}
LIMIT = "REG-LIMIT-01"  # a stake within the declared limits, or at one, is taken
SEVERAL_BETS = "SB-RND-02"  # a player may place several bets, of several types, in one round
WINNINGS_PAID = {"sicbo": "SB-RND-03"}  # "the result is determined and winnings are paid"
# Duties every round shows in passing: a check that names no clause its scenario is tagged with
# is judged on these among its clauses (harness/checks.py), wherever it runs
IN_PASSING = (SETTLE, COMMIT)
PAUSE, RESUME, CANCEL = "TBL-MAL-01", "TBL-MAL-02", "TBL-MAL-03"
