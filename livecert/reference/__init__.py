"""The livecert reference implementation: a compliant Sic Bo server serving the contract.

It is deliberately independent of the rest of livecert (no rules, no contract, no oracle import),
so that the harness certifying it and the server being certified cannot share a mistake.
"""

__version__ = "0.1.0"
