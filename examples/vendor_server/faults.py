"""The vendor's own seeded faults: each breaks one rule the way a vendor integration would.

They live in the vendor's layer (code table, settlement hook, wallet formatting), not in the
engine, so the same certification run that finds the reference's faults must find these too.
"""

from .instant import INSTANT_FAULTS

FAULTS = {
    "sum10-booked-as-sum11": "the code table books SUM10 as a bet on Total 11 (SB-PAY-08)",
    "two-two-takes-big-small": "Big and Small lose on two white two red instead of being "
    "returned (XD-PAY-09, XD-PAY-10)",
    "wallet-drops-cents": "the wallet shows the credit without its cents, so balances stop adding "
    "up (REG-MONEY-01)",
    **INSTANT_FAULTS,
}
