"""The seeded faults that take a parameter (fault_values.py says why): a fault that pays wrong
only from some stake up, forgets an idempotency key after some delay, writes the bet record
wrong some rounds back. `livecert selftest --full` draws each parameter from its whole range.

Each branch that applies one is marked `# FAULT <name>` like the others and reads its value with
`faults.money(name)` or `faults.number(name)`.
"""

from __future__ import annotations

from livecert.reference.fault_values import Fault, FaultParameter

# a table's round history (history.py): the suite reads 13 finished rounds, 12 with a result,
# 2 a page (features/table/round_history.feature), so every depth below is reached
_HISTORY_DEPTH = "the table's round (1 its oldest) from which on the pages go wrong"
HISTORY: tuple[Fault, ...] = (
    Fault(
        "history-repeats-round",
        ("REG-RECALL-01",),
        "GET /v1/tables/{id}/rounds: a page whose cursor is the table's D-th finished round or "
        "a later one begins with that round again (an inclusive cursor)",
        parameter=FaultParameter(_HISTORY_DEPTH, "int", "1", "12", "5"),
    ),
    Fault(
        "history-skips-round",
        ("REG-RECALL-01",),
        "GET /v1/tables/{id}/rounds: a page whose cursor is the table's D-th finished round or "
        "a later one leaves out the round after the cursor",
        parameter=FaultParameter(_HISTORY_DEPTH, "int", "1", "12", "5"),
    ),
    Fault(
        "history-shows-wrong-result",
        ("REG-RECALL-01",),
        "GET /v1/tables/{id}/rounds shows the D-th newest round with a result with another "
        "result (its first die one higher, its first token turned over)",
        parameter=FaultParameter(
            "how many rounds with a result back (1 the newest)", "int", "1", "12", "5"
        ),
    ),
)

# an idempotency key over time and across players (idempotency.py): the suite re-sends a slip
# after drawn delays, the last always 5.5 s after its first answer (steps/idempotency.py), and
# another player sends a slip with the key at once; so every lifetime below is crossed
_KEY_LIFETIME = "how long (ms) after its first use the key is kept"
IDEMPOTENCY: tuple[Fault, ...] = (
    Fault(
        "idempotency-key-forgotten-after",
        ("REG-IDEMP-01",),
        "a slip's Idempotency-Key is kept in memory only, N ms after its first use: a slip "
        "re-sent later is taken as a new one (a second bet during betting, refused "
        "ROUND_STATE once betting closed)",
        parameter=FaultParameter(_KEY_LIFETIME, "int", "200", "5000", "1000"),
    ),
    Fault(
        "idempotency-key-per-table",
        ("CONTRACT-03", "REG-IDEMP-01"),
        "an Idempotency-Key is also kept for the whole table for N ms after its first use: "
        "another player's slip with the key is refused IDEMPOTENCY_CONFLICT (another slip: "
        "REG-IDEMP-01) or answered the first player's answer (the same slip: an answer naming "
        "another player, CONTRACT-03)",
        # from 1 s: the other player's slip follows at once, well inside it on a busy machine
        parameter=FaultParameter(_KEY_LIFETIME, "int", "1000", "5000", "2000"),
    ),
)

# a win's rounding (settlement.py): the Xoc Dia stakes feature rounds exact wins from 0.0096 to
# 1.845, and 1.845 (1.23 on TWO_TWO at 1.5:1) is rounded up by half-up, down by "down"; so every
# threshold below is crossed by a win the two rules round apart (Sic Bo's reaches 18.525)
ROUNDING: tuple[Fault, ...] = (
    Fault(
        "wins-from-an-amount-rounded-half-up",
        ("REG-SETTLE-01",),
        "a win whose exact amount is at least A is rounded half-up while the server declares "
        '"down" (down where it declares another rule); smaller wins by the declared rule',
        parameter=FaultParameter(
            "the least exact win rounded otherwise", "money", "0.01", "1.84", "0.50"
        ),
    ),
)

# a refund or a credit the wallet never gets (settlement.py): the record shows each bet right
# while the wallet is short (or long), from a stake up; the cancel, void and disconnection
# scenarios each hold a bet at the table's largest stake (steps/refunds.py), the reference's
# declared maximum of 50,000.00 (config.TABLE_LIMITS), so every threshold below is crossed
_LEAST_STAKE = "the least stake the fault touches"
WALLET: tuple[Fault, ...] = (
    Fault(
        "cancel-refund-uncredited",
        ("TBL-MAL-03", "REG-MONEY-01"),
        "the dealer's cancel shows every bet cancelled with its stake returned, but credits no "
        "wallet for a bet staked at or above S",
        parameter=FaultParameter(_LEAST_STAKE, "money", "0.01", "50000.00", "100.00"),
    ),
    Fault(
        "void-pays-winners",
        ("XD-VOID-01", "REG-MONEY-01"),
        "a Xoc Dia round void on its result (bowl lifted early, no shake) returns every stake "
        "and shows each bet void, but also credits the win of each bet staked at or above S "
        "that the revealed tokens win",
        parameter=FaultParameter(_LEAST_STAKE, "money", "0.01", "50000.00", "100.00"),
    ),
    Fault(
        "disconnected-win-uncredited",
        ("TBL-DISC-02", "REG-MONEY-01"),
        "at a Xoc Dia settlement a winning bet staked at or above S of a player disconnected "
        "then shows its win and return, but nothing is credited to the wallet for it",
        parameter=FaultParameter(_LEAST_STAKE, "money", "0.01", "50000.00", "100.00"),
    ),
)

# stakes from the whole range (features/table/money.feature, "Stakes from the whole range"): every
# paytable row wins at the table's maximum (50,000.00), both players' records are read over at least
# 7 finished rounds, and each refunded round holds 20 stakes whose cents are consecutive values
WHOLE_RANGE: tuple[Fault, ...] = (
    Fault(
        "row-pays-wrong-from-stake",
        ("XD-PAY-01", "REG-SETTLE-01"),
        "FOUR_RED (XD-PAY-01) pays 13:1 instead of 14:1 on a stake at or above T; from 1.01 up, "
        "so the sweep's stake of 1.00 (whose returns measure the RTP) is paid right",
        parameter=FaultParameter(
            "the least stake paid the wrong rate", "money", "1.01", "50000.00", "1000.00"
        ),
    ),
    Fault(
        "record-balance-wrong-rounds-back",
        ("REG-RECALL-01",),
        "GET /v1/player/bets shows the balance after the player's N-th finished round before "
        "their newest one 1.00 too high (the newest, which the suite used to check, is right)",
        parameter=FaultParameter(
            "how many finished rounds back from the newest", "int", "1", "6", "3"
        ),
    ),
    Fault(
        "record-wrong-above-stake",
        ("REG-RECALL-01",),
        "GET /v1/player/bets shows the balance after a round a cent too high where the player "
        "staked T or more in it",
        parameter=FaultParameter(
            "the least stake of a round recorded wrong", "money", "0.01", "50000.00", "2000.00"
        ),
    ),
    Fault(
        "refund-wrong-on-cents",
        ("TBL-MAL-03", "XD-VOID-01"),
        "a cancel or a void returns (and credits) a cent less than the stake where the stake's "
        "cents are a non-zero multiple of N",
        parameter=FaultParameter("N, the cents' divisor", "int", "2", "10", "7"),
    ),
)

RANGED: tuple[Fault, ...] = (*HISTORY, *IDEMPOTENCY, *ROUNDING, *WALLET, *WHOLE_RANGE)
