"""`livecert doctor`: check a target before a long run, and say what to fix.

Read-only by default: it reads the declarations (`GET /v1/info`), checks both tokens
(`GET /v1/whoami`) and compares what the target declares with what certification needs: the
contract version, the games, the rounding rule, the maximum RTP of the rules, and the optional
capabilities (and which clauses go untested without them). It creates nothing on the target.

With `probe`, it then plays one small round per game through every operation the adapter offers
(a player, a table, a round, one bet, the result, the round and the bet record read back) and
checks each answer reads as the harness needs it: a mapping that does not fit the target's
answers is found here, in seconds, not as thousands of findings against the target mid-run.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NoReturn, TypeVar

from livecert.adapters import (
    AdapterError,
    BetView,
    CredentialsError,
    PlayerHandle,
    Refused,
    RoundView,
    TargetAdapter,
    TargetError,
    TargetInfo,
)
from livecert.adapters.bounds import DEFAULT_BOUNDS, Bounds
from livecert.adapters.errors import MappingAnswerError, Unsupported
from livecert.adapters.mapping import MappingAdapter, MappingError
from livecert.adapters.mapping.document import ABSENCE_MEANS, LIVE_ROUND_OPERATIONS
from livecert.adapters.mapping.schema import OPERATION_NAMES
from livecert.adapters.registry import (
    AdapterIdentity,
    AdapterOptions,
    AdapterSelectionError,
    build_adapter,
)
from livecert.adapters.secrets import SECRETS
from livecert.contract import ContractViolation, load_contract
from livecert.harness.capabilities import ANOTHER_PATH, CAPABILITIES
from livecert.harness.dealer import open_round
from livecert.harness.embedded import EmbeddedServer, EmbeddedServerError
from livecert.harness.read_balances import ACCOUNTS_NEEDED
from livecert.harness.sweep import instant, offered_codes
from livecert.rules import ROUNDING_MODES, expected_settlement, load_paytable
from livecert.target_text import terminal_lines

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass
class Check:
    """One line of the doctor's answer: what was checked, how it went, what to do."""

    status: str
    what: str
    advice: str = ""


@dataclass
class Diagnosis:
    checks: list[Check] = field(default_factory=list)

    def add(self, status: str, what: str, advice: str = "") -> None:
        self.checks.append(Check(status, what, advice))

    @property
    def healthy(self) -> bool:
        return all(c.status != FAIL for c in self.checks)

    def lines(self) -> list[str]:
        out = []
        for check in self.checks:
            out.append(f"[{check.status:>4}] {check.what}")
            if check.advice:
                out.append(f"       -> {check.advice}")
        verdict = "ready to certify" if self.healthy else "fix the FAIL lines before certifying"
        # an answer quoted in a line may hold a token or a session: shown by its name
        return [SECRETS.mask(line) or "" for line in out] + ["", f"livecert doctor: {verdict}"]

    def text(self) -> str:
        """The lines for the terminal: the target's words in them (its name, its messages)
        shown visibly, each line one line."""
        return terminal_lines(self.lines())


def _declarations(info: TargetInfo, diagnosis: Diagnosis, speaks_contract: bool = True) -> None:
    contract = load_contract().version
    if not speaks_contract:
        diagnosis.add(OK, "the adapter speaks the vendor's own API: the contract does not apply")
    elif info.contract_version.split(".")[0] != contract.split(".")[0]:
        diagnosis.add(
            FAIL,
            f"contract version {info.contract_version}; this harness certifies {contract}",
            "serve the contract of livecert/contract/openapi.yaml (docs/contract.md)",
        )
    else:
        diagnosis.add(OK, f"contract version {info.contract_version} (harness {contract})")
    games = [g for g in info.games if g in ("sicbo", "xocdia")]
    if games:
        diagnosis.add(OK, f"games offered: {', '.join(games)}")
    else:
        diagnosis.add(FAIL, "no game the harness certifies is offered", "declare sicbo or xocdia")
    if info.rounding in ROUNDING_MODES:
        diagnosis.add(OK, f"rounding rule declared: {info.rounding}; minor unit {info.minor_unit}")
    else:
        diagnosis.add(
            FAIL, f"unknown rounding rule {info.rounding!r}", f"declare one of {ROUNDING_MODES}"
        )
    for game in games:
        stated = Decimal(load_paytable(game).declared_max_rtp_percent)
        declared = info.max_rtp.get(game)
        if declared is None:
            diagnosis.add(FAIL, f"{game}: no maximum RTP declared", f"declare {stated}")
        elif declared != stated:
            diagnosis.add(
                WARN,
                f"{game}: declared maximum RTP {declared}%, the rules state {stated}%",
                "the RTP clauses will fail unless the paytable really differs",
            )
        else:
            diagnosis.add(OK, f"{game}: declared maximum RTP {declared}% as the rules state")
    missing = [c for c in CAPABILITIES if c not in info.capabilities and c not in ANOTHER_PATH]
    declared = ", ".join(info.capabilities) or "none"
    if missing:
        untested = "; ".join(f"{c}: {CAPABILITIES[c]}" for c in missing)
        diagnosis.add(
            WARN,
            f"capabilities declared: {declared}; not declared: {', '.join(missing)}",
            f"these clauses will be reported not tested — {untested}",
        )
    else:
        diagnosis.add(OK, f"capabilities declared: {declared}")


def _mapping_checks(adapter: MappingAdapter, identity: AdapterIdentity, diagnosis: Diagnosis):
    diagnosis.add(OK, f"mapping file {identity.source} is valid (sha256 {identity.sha256})")
    absent = [name for name in OPERATION_NAMES if adapter.mapping.operation(name) is None]
    by_meaning: dict[str, list[str]] = {}
    for name in absent:
        by_meaning.setdefault(ABSENCE_MEANS.get(name, ""), []).append(name)
    skipped = "scenarios that need them are skipped as not testable through this adapter"
    for means, names in by_meaning.items():
        diagnosis.add(
            WARN,
            f"the mapping has no operation {', '.join(names)}",
            f"{means}; {skipped}" if means else skipped,
        )
    _accounts_check(adapter, diagnosis)
    for game, table in adapter.mapping.selections.items():
        missing = [ours for ours, _, theirs in table.rows if theirs is None]
        if missing:
            diagnosis.add(
                WARN,
                f"{game}: selections the target does not offer: {', '.join(missing)}",
                "their scenarios are not testable; their clauses are reported not tested",
            )


def _accounts_check(adapter: MappingAdapter, diagnosis: Diagnosis) -> None:
    """How many pre-provisioned accounts the mapping lists against how many a run needs."""
    spec = adapter.mapping.data.get("accounts")
    if not spec:
        return
    listed = len(adapter.mapping.accounts)
    live = all(adapter.mapping.operation(op) for op in LIVE_ROUND_OPERATIONS)
    needed = ACCOUNTS_NEEDED["live" if live else "instant"]
    logins = spec.get("logins_at_once", 1)
    what = (
        f"accounts: {listed} listed in {spec['env']}; a run needs {needed} at once (the "
        f"scenario with the most players); one account may hold {logins} login(s) at once"
    )
    if listed >= needed:
        diagnosis.add(OK, what)
        return
    diagnosis.add(
        WARN,
        what,
        f"the scenarios with more players than {listed} are not testable: list at least "
        f"{needed} accounts, each holding at least 1,000,000.01 (the largest balance a "
        "scenario asks for: a scenario asking more of an account is not testable); every "
        "balance is read, never set",
    )


# -- the probe: one small round through every operation, each answer read as the harness does --

PROBE_BALANCE = Decimal(100)
PROBE_STAKE = Decimal(1)
# per game: the selections the probe bets on, in order of preference (the first the target
# offers), and the result it enters: dice in no sorted order, tokens of both colours
PROBE_PLAY: dict[str, tuple[tuple[str, ...], tuple]] = {
    "sicbo": (("BIG", "SMALL", "ODD", "EVEN"), (6, 5, 4)),
    "xocdia": (("ODD", "EVEN", "BIG", "SMALL"), ("r", "w", "r", "r")),
}
OUTCOMES = ("win", "lose", "refund")
ANSWERS_ADVICE = (
    "the mapping does not fit this answer: fix the path or shape it names (docs/mapping.md, "
    '"Answers"), or check what the target answers there'
)
T = TypeVar("T")


class _Stop(Exception):
    """The probe of one game cannot go on (the line that says why is written)."""


class _Probe:
    """One game's probe: every check one line; the first failure ends it (_Stop)."""

    def __init__(
        self, adapter: TargetAdapter, info: TargetInfo, game: str, diagnosis: Diagnosis
    ) -> None:
        self.adapter, self.info, self.game, self.diagnosis = adapter, info, game, diagnosis
        unit = Decimal(1).scaleb(-info.minor_unit)
        self.balance, self.stake = PROBE_BALANCE.quantize(unit), PROBE_STAKE.quantize(unit)
        self.preferred, self.outcome = PROBE_PLAY[game]
        self.shown = "-".join(str(o) for o in self.outcome)
        self.returned: Decimal | None = None  # what the settled bet reads it returned
        self.code = ""  # the selection the probe bets on: the first the target offers

    def add(self, status: str, what: str, advice: str = "") -> None:
        self.diagnosis.add(status, f"probe {self.game}: {what}", advice)

    def fail(self, what: str, advice: str) -> NoReturn:
        self.add(FAIL, what, advice)
        raise _Stop

    def check(self, ok: bool, what: str, problem: str, advice: str, quiet: bool = False) -> None:
        """An OK line for `what` (none if `quiet`: a later line says it), or a FAIL line with
        the problem and what to fix."""
        if not ok:
            self.fail(problem, advice)
        if not quiet:
            self.add(OK, what)

    def step(self, what: str, action: Callable[[], T]) -> T:
        """`action`'s answer; when it raises, the line that says why, and _Stop."""
        try:
            return action()
        except (AdapterError, ContractViolation, MappingError) as error:
            self.failed(what, error)

    def failed(self, what: str, error: Exception) -> NoReturn:
        """A FAIL line for `error` with what to fix (a warning for what the adapter cannot
        express: not probed), and _Stop."""
        if isinstance(error, MappingAnswerError):
            self.fail(str(error), ANSWERS_ADVICE)
        if isinstance(error, MappingError):
            self.fail(f"{what}: {'; '.join(error.problems)}", "fix the mapping file")
        if isinstance(error, Unsupported):
            self.add(WARN, f"{what}: not probed: {error.reason}")
            raise _Stop
        if isinstance(error, Refused):
            advice = "check the request the adapter sends and the credentials of its role"
            self.fail(f"{what}: refused ({error.status} {error.code}): {error.message}", advice)
        if isinstance(error, ContractViolation):
            advice = "see livecert/contract/openapi.yaml"
            self.fail(f"{what}: the answer does not match the contract: {error.detail}", advice)
        detail = error.detail if isinstance(error, TargetError) else str(error)
        self.fail(f"{what}: {detail}", "check that the target runs and answers")

    def run(self) -> None:
        adapter, game = self.adapter, self.game
        player = self.step("create a player", lambda: adapter.create_player(self.balance))
        shown = self.step("read the balance", lambda: adapter.balance(player))
        self.check(
            bool(player.player_id) and shown == self.balance,
            f"created player {player.player_id}; the balance reads back {shown}",
            f"player {player.player_id!r} was created with {self.balance}; it reads {shown}",
            "check create_player's player_id and the money format of the balance (money, or "
            "the field's own money)",
        )
        table = self.step("create a table", lambda: adapter.create_table(game))
        codes = offered_codes(adapter, load_paytable(game))
        code = next((c for c in self.preferred if c in codes), codes[0] if codes else None)
        if code is None:
            self.add(WARN, "not probed further: the target offers no selection of this game")
            return
        self.code = code
        try:
            opened = open_round(adapter, game, table)
        except Unsupported as error:
            if not instant(adapter, self.info):
                self.failed("open a round", error)
            play = adapter.play_round  # type: ignore[attr-defined]  # instant() checked it
            what = "play an instant round"
            view = self.step(what, lambda: play(player, table, [(code, self.stake)], self.outcome))
            self.settled(view, what, next((b for b in view.bets if b.selection == code), None))
            self.record(player, view.round_id)
            return
        except (AdapterError, ContractViolation, MappingError) as error:
            self.failed("open a round", error)
        self.live(player, opened, code)

    def live(self, player: PlayerHandle, opened: RoundView, code: str) -> None:
        adapter, round_id = self.adapter, opened.round_id
        self.state(opened, "betting", "open a round")
        what = f"place {self.stake} on {code}"
        placed = self.step(what, lambda: adapter.place_bets(player, round_id, [(code, self.stake)]))
        self.bet(placed[0] if len(placed) == 1 else None, what, "open")
        self.state(self.step("close betting", lambda: adapter.close_betting(round_id)), "closed")
        entered = self.step(
            "enter the result", lambda: adapter.enter_result(round_id, self.outcome)
        )
        self.state(entered, "settled", f"enter {self.shown}")
        for reader, label in ((None, "read the round"), (player, "read the round as the player")):
            view = self.step(label, lambda reader=reader: adapter.get_round(round_id, reader))
            self.settled(
                view, label, next((b for b in view.bets if b.bet_id == placed[0].bet_id), None)
            )
        self.record(player, round_id)

    def state(
        self, view: RoundView, wanted: str, what: str = "close betting", quiet: bool = False
    ) -> None:
        self.check(
            bool(view.round_id) and view.state == wanted,
            f"{what}: round {view.round_id} reads {wanted}",
            f"{what}: round {view.round_id!r} reads state {view.state!r}, not {wanted!r}",
            "translate the target's states into ours with a value table (values)",
            quiet,
        )

    def bet(self, bet: BetView | None, what: str, status: str, quiet: bool = False) -> BetView:
        """Check the bet reads back as placed (its id, our selection code, the stake) with
        `status`; answer it."""
        code = self.code
        self.check(
            bet is not None
            and bool(bet.bet_id)
            and (bet.selection, bet.stake, bet.status) == (code, self.stake, status),
            f"{what}: bet {bet and bet.bet_id} reads {code}, {self.stake}, {status}",
            f"{what}: the bet reads {bet and (bet.bet_id, bet.selection, bet.stake, bet.status)}"
            f"; the probe placed {self.stake} on {code} and expects it {status}",
            "check the bet shape (bet_id, selection and the selections table, stake and its "
            "money format, status and its value table) and where the answer's bets are",
            quiet,
        )
        assert bet is not None
        return bet

    def settled(self, view: RoundView, what: str, bet: BetView | None) -> None:
        """Check a settled round reads back whole: its state, the result entered, the bet with
        its outcome and amounts. A settlement other than the rules' is only a warning: the run
        judges the target, the probe the mapping."""
        self.state(view, "settled", what, quiet=True)
        if self.game == "sicbo":
            expected: dict = {"dice": list(self.outcome), "total": sum(self.outcome)}
        else:
            red = self.outcome.count("r")
            expected = {"tokens": list(self.outcome), "red": red, "white": 4 - red}
        self.check(
            view.result == expected,
            f"{what}: round {view.round_id} reads settled, with the result entered ({self.shown})",
            f"{what}: the result reads {view.result}; the probe entered {expected}",
            "check the round shape's result (its dice, total or tokens) and outcomes "
            "(dice_order, red, white)",
        )
        code = self.code
        bet = self.bet(bet, what, "settled", quiet=True)
        self.check(
            bet.outcome in OUTCOMES and None not in (bet.win, bet.returned),
            f"{what}: bet {bet.bet_id} reads {code}, {self.stake}, settled: {bet.outcome}, win "
            f"{bet.win}, returned {bet.returned}",
            f"{what}: the bet reads outcome {bet.outcome!r}, win {bet.win}, returned "
            f"{bet.returned}",
            "map the bet shape's outcome (win, lose or refund) and one of win, returned, net",
        )
        info = self.info
        due = expected_settlement(
            load_paytable(self.game), code, self.outcome, self.stake, info.minor_unit, info.rounding
        )
        if (bet.outcome, bet.returned) != (due.outcome, due.returned):
            self.add(
                WARN,
                f"{what}: the rules settle {code} on {self.shown} as {due.outcome} returning "
                f"{due.returned}; the bet reads {bet.outcome} returning {bet.returned}",
                "if the target is right, check the mapping's outcome values and what its "
                "amounts mean (win, returned or net); the run will judge the target",
            )
        self.returned = bet.returned

    def record(self, player: PlayerHandle, round_id: str) -> None:
        record = self.step("read the bet record", lambda: self.adapter.bet_record(player, round_id))
        bets = [b for b in record.bets if b.round_id == round_id]
        shown = record.round(round_id)
        self.check(
            bool(bets)
            and shown is not None
            and (shown.staked, shown.balance_before) == (self.stake, self.balance),
            "the bet record reads back the bet, its stake and the balance before",
            f"the bet record reads {len(bets)} bet(s) of round {round_id} and {shown}; the probe "
            f"staked {self.stake} there from a balance of {self.balance}",
            "check the bet_record answer: its bets, its rounds (the record_round shape) and "
            "their money formats",
        )
        after = self.step("read the balance", lambda: self.adapter.balance(player))
        due = self.balance - self.stake + (self.returned or 0)
        if self.returned is not None and after != due:
            self.add(
                WARN,
                f"the balance reads {after} after the round, not {due}",
                "check the balance's money format; the run will judge the target",
            )


def _probe(adapter: TargetAdapter, info: TargetInfo, diagnosis: Diagnosis) -> None:
    """Play one small round per game the target offers, each answer checked as it reads."""
    for game in [g for g in info.games if g in PROBE_PLAY]:
        try:
            _Probe(adapter, info, game, diagnosis).run()
        except _Stop:
            continue


def diagnose(
    url: str | None,
    operator_token: str | None,
    dealer_token: str | None,
    timeout: float,
    adapter_choice: str | None = None,
    probe: bool = False,
    bounds: Bounds = DEFAULT_BOUNDS,
) -> Diagnosis:
    """Every check against the target at `url` through the chosen adapter (the canonical one by
    default), and with `probe` one small round played per game, each request within `bounds`
    as in a run; never raises for what the target or the mapping file does."""
    diagnosis = Diagnosis()
    timeouts = (min(5.0, timeout), timeout)
    options = AdapterOptions(url, operator_token, dealer_token, timeouts, bounds)
    try:
        adapter, identity = build_adapter(adapter_choice, options)
    except MappingError as error:
        for problem in error.problems:
            diagnosis.add(
                FAIL, f"{error.source}: {problem}", "fix the mapping file (docs/mapping.md)"
            )
        return diagnosis
    except AdapterSelectionError as error:
        diagnosis.add(FAIL, str(error), "see `livecert doctor --help`")
        return diagnosis
    url = adapter.base_url
    try:
        if isinstance(adapter, MappingAdapter):
            _mapping_checks(adapter, identity, diagnosis)
        try:
            info = adapter.info()
        except TargetError as error:
            where = f"GET {url}/v1/info" if identity.checks_contract else error.operation
            diagnosis.add(
                FAIL,
                f"{where}: {error.detail}",
                "check the URL, that the server runs and answers JSON, and any proxy or firewall",
            )
            return diagnosis
        except ContractViolation as error:
            diagnosis.add(
                FAIL,
                f"GET /v1/info does not match the contract: {error.detail}",
                "see the Info schema in livecert/contract/openapi.yaml",
            )
            return diagnosis
        except MappingAnswerError as error:
            diagnosis.add(FAIL, str(error), ANSWERS_ADVICE)
            return diagnosis
        diagnosis.add(OK, f"reached {url}: {info.name} {info.version}")
        try:
            adapter.check_credentials()
            accepted = (
                "operator and dealer tokens accepted, each with its role"
                if identity.checks_contract
                else "the mapping's logins and credentials are accepted"
            )
            diagnosis.add(OK, accepted)
        except CredentialsError as error:
            advice = (
                "create the tokens on the target; see the README"
                if identity.checks_contract
                else "check the variables the mapping's sessions use"
            )
            diagnosis.add(FAIL, f"{error.operation}: {error.detail}", advice)
        except (TargetError, ContractViolation) as error:
            diagnosis.add(FAIL, f"checking the credentials: {error}", "see docs/contract.md")
        _declarations(info, diagnosis, identity.checks_contract)
        if probe and diagnosis.healthy:
            _probe(adapter, info, diagnosis)
        elif probe:
            diagnosis.add(WARN, "the probe was not run: fix the FAIL lines above first")
    finally:
        adapter.close()
    return diagnosis


def diagnose_reference(
    timeout: float, probe: bool = False, bounds: Bounds = DEFAULT_BOUNDS
) -> Diagnosis:
    """The doctor run on the embedded reference server (what a healthy target looks like)."""
    server = EmbeddedServer()
    try:
        server.start()
    except EmbeddedServerError as error:
        diagnosis = Diagnosis()
        diagnosis.add(FAIL, f"the embedded reference server did not start: {error}")
        return diagnosis
    try:
        tokens = (server.operator_token, server.dealer_token)
        return diagnose(server.url, *tokens, timeout, probe=probe, bounds=bounds)
    finally:
        server.stop()
