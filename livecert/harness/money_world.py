"""What a money session drives and keeps: the world, its clauses, its players' stakes, and how
several machines' worlds are told as one (money_machine.py plays the sessions).

The players draw their stakes from the whole range the table takes (whole_range.py): from its
least stake (a minor unit where none is declared) to its declared maximum (DEFAULT_MAX where none
is), half of the draws among the small stakes (up to 100 units) where a win's fraction of a minor
unit matters. P1 starts with 50.00, so that most of its stakes are refused for the balance
(REG-BAL-01); P2 and P3 with three times the maximum, so that large stakes are taken, settled,
cancelled and void.
"""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal

from livecert.adapters.base import TargetAdapter
from livecert.adapters.errors import Refused
from livecert.adapters.model import PlayerHandle, TableLimits, TargetInfo
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure
from livecert.harness.round_clauses import CANCEL
from livecert.harness.whole_range import stake_bounds

START = Decimal("50.00")  # P1's start: most stakes are above it
SMALL_TOP = 100  # whole units: the top of the small stakes drawn half of the time
PLAYERS = ("P1", "P2", "P3")
RESHAKES = {
    "sicbo": ("dice-overlap", "die-not-flat", "too-few-tumbles"),
    "xocdia": ("items-fell", "standing-token"),
}


MONEY, BALANCE, SETTLE, RECALL, RESUME = (
    "REG-MONEY-01",
    "REG-BAL-01",
    "REG-SETTLE-01",
    "REG-RECALL-01",
    "TBL-MAL-02",
)


REFUND_CLAUSE = {"cancel": CANCEL, "void": "XD-VOID-01"}
DISCONNECTION = "TBL-DISC-02"


class MoneyBroken(ClauseFailure):
    """The target disagrees with the model; `clauses` are the duties the step that saw it checks
    (a balance off by a stake is REG-MONEY-01, a bet lost on resuming TBL-MAL-02, ...)."""

    def __init__(self, message: str, clauses: tuple[str, ...] = (MONEY,)) -> None:
        super().__init__(message, clauses)


@dataclass
class MachineWorld:
    """What the machine drives, and the log of what it did (for the evidence)."""

    adapter: TargetAdapter
    info: TargetInfo
    game: str
    table_id: str
    steps: list[str] = field(default_factory=list)
    rounds: int = 0
    bets: int = 0
    failure: Exception | None = None  # the first failure; the session stops there
    resumes_with_bets: int = 0  # resumes checked with open bets (TBL-MAL-02 evidence)
    settled_bets: int = 0  # bets checked against the oracle at a result (REG-SETTLE-01)
    ledger: CheckLedger = field(default_factory=lambda: CheckLedger(()))  # the scenario's checks
    unexpected_refusals: int = 0
    reads_at_once: int = 1  # the balances after a step read at the same time (--workers)

    def balances(self, handles: dict[str, PlayerHandle]) -> dict[str, Decimal]:
        """Every player's balance now: one after another, or all at once (independent reads of
        a state no request is changing; the chain of a session waits one round trip for them)."""
        if self.reads_at_once <= 1 or len(handles) <= 1:
            return {name: self.adapter.balance(handle) for name, handle in handles.items()}
        workers = min(self.reads_at_once, len(handles))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="livecert-read") as pool:
            read = dict(zip(handles, pool.map(self.adapter.balance, handles.values()), strict=True))
        return read

    def refused(self, refused: Refused, clauses: tuple[str, ...], what: str) -> None:
        """A refusal the model did not expect: the refused action's finding; the session goes
        on (the action undone on both sides), judging money from the balances."""
        self.unexpected_refusals += 1
        self.ledger.failed(clauses, f"{what} was refused: {refused}")
        self.steps.append(f"{what}: refused unexpectedly ({refused}); the session goes on")


def stake_range(limits: TableLimits | None, minor_unit: int) -> tuple[int, int]:
    """The stakes the players draw, in minor units: the whole range the table takes."""
    return stake_bounds(limits, minor_unit)


def starts(limits: TableLimits | None, minor_unit: int) -> dict[str, Decimal]:
    """Each player's start: P1 50.00, the others three times the largest stake."""
    _least, most = stake_range(limits, minor_unit)
    big = Decimal(3 * most).scaleb(-minor_unit)
    return {name: START if name == "P1" else max(START, big) for name in PLAYERS}


def session_shares(sessions: int, machines: int) -> list[int]:
    """`sessions` shared out among at most `machines` machines, as evenly as can be (none
    empty): 8 over 3 is [3, 3, 2]."""
    count = max(1, min(machines, sessions))
    return [sessions // count + (1 if i < sessions % count else 0) for i in range(count)]


def merged(worlds: list[MachineWorld]) -> MachineWorld:
    """What several machines of one scenario did, together (their counts and their steps,
    each step named by its machine when there are several)."""
    if len(worlds) == 1:
        return worlds[0]
    first = worlds[0]
    whole = MachineWorld(first.adapter, first.info, first.game, first.table_id)
    for index, world in enumerate(worlds, 1):
        whole.steps += [f"[machine {index}] {step}" for step in world.steps]
        whole.rounds += world.rounds
        whole.bets += world.bets
        whole.resumes_with_bets += world.resumes_with_bets
        whole.settled_bets += world.settled_bets
        whole.unexpected_refusals += world.unexpected_refusals
    return whole


def unproven_duties(world: MachineWorld) -> dict[str, str]:
    """The duties a session tags but did not exercise this time, with why (never `passed`)."""
    unproven = {}
    if world.resumes_with_bets == 0:
        unproven[RESUME] = "the random sessions never resumed a paused round holding bets" + (
            "" if "pause" in world.info.capabilities else " (the target declares no pause)"
        )
    if world.settled_bets == 0:
        unproven[SETTLE] = "the random sessions settled no bet"
    if world.bets == 0:
        unproven[RECALL] = "the random sessions placed no bet to recall"
    return unproven
