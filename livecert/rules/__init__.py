"""The settlement oracle: the rules of the games as data, and exact settlement from it.

The bottom layer of livecert. It imports nothing else of the project and nothing of any
implementation, so a bug in a game server can never certify itself through shared code.
"""

from livecert.rules.catalogue import Clause, load_catalogue, rules_documents
from livecert.rules.money import ROUNDING_MODES, MoneyError, parse_money, round_to_minor
from livecert.rules.paytable import Paytable, PaytableError, Selection, load_paytable
from livecert.rules.rtp import all_outcomes, as_percent, theoretical_rtp, theoretical_rtps
from livecert.rules.settlement import (
    ExpectedSettlement,
    OutcomeError,
    Settlement,
    expected_settlement,
    settle,
)

__all__ = [
    "ROUNDING_MODES",
    "Clause",
    "ExpectedSettlement",
    "MoneyError",
    "OutcomeError",
    "Paytable",
    "PaytableError",
    "Selection",
    "Settlement",
    "all_outcomes",
    "as_percent",
    "expected_settlement",
    "load_catalogue",
    "load_paytable",
    "parse_money",
    "round_to_minor",
    "rules_documents",
    "settle",
    "theoretical_rtp",
    "theoretical_rtps",
]
