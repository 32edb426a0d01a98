"""The casino's own paytable and settlement, in integer cents (rounding down)."""

SICBO_FIXED = {"small": ("small", 1), "big": ("big", 1), "odd": ("odd", 1), "even": ("even", 1)}
TOTAL_ODDS = {4: 60, 5: 30, 6: 18, 7: 12, 8: 8, 9: 7, 10: 6, 11: 6, 12: 7, 13: 8, 14: 12,
              15: 18, 16: 30, 17: 60}  # fmt: skip
# Xoc Dia: code -> (red counts that win, odds as (numerator, denominator), red counts refunded)
XOCDIA = {
    "chan": ({0, 2, 4}, (96, 100), set()),
    "le": ({1, 3}, (96, 100), set()),
    "tai": ({3, 4}, (96, 100), {2}),
    "xiu": ({0, 1}, (96, 100), {2}),
    "4do": ({4}, (14, 1), set()),
    "4trang": ({0}, (14, 1), set()),
    "3do": ({3}, (28, 10), set()),
    "3trang": ({1}, (28, 10), set()),
    "2do2trang": ({2}, (15, 10), set()),
    "4mau": ({0, 4}, (65, 10), set()),
}


def sicbo_codes() -> set[str]:
    codes = set(SICBO_FIXED) | {"anytriple"}
    codes |= {f"total{t}" for t in TOTAL_ODDS}
    codes |= {f"{kind}{n}" for kind in ("single", "triple", "pair") for n in range(1, 7)}
    codes |= {f"combo{a}{b}" for a in range(1, 7) for b in range(a + 1, 7)}
    return codes


CODES = {"sicbo": sicbo_codes(), "xocdia": set(XOCDIA)}


def _sicbo_odds(code: str, dice: list[int], faults: frozenset[str]) -> int | None:
    """The odds x (x:1) a winning Sic Bo bet pays, or None when it loses."""
    total, triple = sum(dice), len(set(dice)) == 1
    if code in SICBO_FIXED:
        wins = {
            "small": 4 <= total <= 10,
            "big": 11 <= total <= 17,
            "odd": total % 2 == 1,
            "even": total % 2 == 0,
        }[code]
        return 1 if wins and not triple else None
    if code == "anytriple":
        return 30 if triple else None
    if code.startswith("total"):
        t = int(code[5:])
        if total != t:
            return None
        return 5 if t == 10 and "total10-pays-5" in faults else TOTAL_ODDS[t]
    if code.startswith("single"):
        shown = dice.count(int(code[6:]))
        return shown or None
    if code.startswith("triple"):
        return 180 if triple and dice[0] == int(code[6:]) else None
    if code.startswith("pair"):
        return 10 if dice.count(int(code[4:])) >= 2 else None
    if code.startswith("combo"):
        a, b = int(code[5]), int(code[6])
        return 5 if a in dice and b in dice else None
    return None


def _times(num: int, den: int) -> str:
    """Odds num/den as the casino writes them after "x": 1, 0.96, 2.8, 6.5."""
    whole, part = divmod(num * 100 // den, 100)
    return f"{whole}" if not part else f"{whole}.{part:02d}".rstrip("0")


def settle(game: str, code: str, outcome: list, stake: int, faults: frozenset[str]):
    """(result word, the odds written "x0.96" or "", cents returned) of one bet: a win
    returns the stake and the stake times the odds, rounded down to the cent."""
    if game == "sicbo":
        odds = _sicbo_odds(code, outcome, faults)
        if odds is None:
            return "Lost", "", 0
        return "Won", f"x{odds}", stake * (odds + 1)
    red = outcome.count("R")
    if code == "4mau" and "four-colour-never-paid" in faults:  # FAULT four-colour-never-paid
        return "Lost", "", 0
    wins, (num, den), refunds = XOCDIA[code]
    if red in refunds:
        return "Push", "", stake
    if red not in wins:
        return "Lost", "", 0
    return "Won", f"x{_times(num, den)}", stake + stake * num // den
