"""The vendor's bet codes and their meaning in the engine's selection names."""

import re

SICBO_FIXED = {
    "BIG": "BIG",
    "SMALL": "SMALL",
    "ODD": "ODD",
    "EVEN": "EVEN",
    "TRIPLE": "ANY_TRIPLE",
    "ALLODD": "ALL_ODD",
    "ALLEVEN": "ALL_EVEN",
    "ODD2EVEN1": "TWO_ODD_ONE_EVEN",
    "EVEN2ODD1": "TWO_EVEN_ONE_ODD",
}
XOCDIA_FIXED = {
    "R4": "FOUR_RED",
    "W1R3": "ONE_WHITE_THREE_RED",
    "W2R2": "TWO_TWO",
    "W3R1": "THREE_WHITE_ONE_RED",
    "W4": "FOUR_WHITE",
    "SAME4": "FOUR_OF_A_COLOUR",
    "LE": "ODD",
    "CHAN": "EVEN",
    "TAI": "BIG",
    "XIU": "SMALL",
}
# vendor pattern -> engine template; the digits are copied in order
SICBO_PATTERNS = (
    (re.compile(r"SUM(\d{1,2})"), "TOTAL_{}"),
    (re.compile(r"N(\d)"), "NUMBER_{}"),
    (re.compile(r"TRIPLE(\d)"), "TRIPLE_{}"),
    (re.compile(r"PAIR(\d)"), "PAIR_{}"),
    (re.compile(r"COMBO(\d)(\d)"), "DOUBLE_{}_{}"),
    (re.compile(r"SINGLES(\d)(\d)(\d)"), "THREE_SINGLES_{}_{}_{}"),
    (re.compile(r"DSINGLE(\d)(\d)(\d)"), "DOUBLE_SINGLE_{}_{}_{}"),
    (re.compile(r"FOUR(\d)(\d)(\d)(\d)"), "FOUR_NUMBERS_{}_{}_{}_{}"),
)


def engine_selection(game: str, code: str) -> str | None:
    """The engine's name for a vendor code, or None when the code means nothing here."""
    if game == "xocdia":
        return XOCDIA_FIXED.get(code)
    if code in SICBO_FIXED:
        return SICBO_FIXED[code]
    for pattern, template in SICBO_PATTERNS:
        found = pattern.fullmatch(code)
        if found:
            return template.format(*found.groups())
    return None


def vendor_code(game: str, selection: str) -> str:
    """The vendor's code for an engine selection (for answers)."""
    fixed = XOCDIA_FIXED if game == "xocdia" else SICBO_FIXED
    for code, name in fixed.items():
        if name == selection:
            return code
    digits = re.findall(r"\d+", selection)
    for pattern, template in SICBO_PATTERNS:
        if template.format(*digits) == selection and template.count("{}") == len(digits):
            return pattern.pattern.split("(")[0] + "".join(digits)
    return selection
