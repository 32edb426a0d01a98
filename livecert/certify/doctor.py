"""`livecert doctor`: check a target before a long run, and say what to fix.

Read-only by default: it reads the declarations (`GET /v1/info`), checks both tokens
(`GET /v1/whoami`) and compares what the target declares with what certification needs: the
contract version, the games, the rounding rule, the maximum RTP of the rules, and the optional
capabilities (and which clauses go untested without them). It creates nothing on the target.

With `probe`, it then plays one small round per game through every operation the adapter offers
(a player, a table, a round, one bet, the result, the round and the bet record read back) and
checks each answer reads as the harness needs it: a mapping that does not fit the target's
answers is found here, in seconds, not as thousands of findings against the target mid-run.

The probe's round is played in probe.py; the answer, one line per check, is diagnosis.py's.
"""

import contextlib
import socket
import time
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from livecert.adapters import CredentialsError, TargetError, TargetInfo
from livecert.adapters.bounds import DEFAULT_BOUNDS, Bounds
from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.mapping import MappingAdapter, MappingError
from livecert.adapters.mapping.document import ABSENCE_MEANS, LIVE_ROUND_OPERATIONS
from livecert.adapters.mapping.schema import OPERATION_NAMES
from livecert.adapters.registry import (
    AdapterIdentity,
    AdapterOptions,
    AdapterSelectionError,
    build_adapter,
)
from livecert.certify.diagnosis import FAIL, OK, WARN, Check, Diagnosis
from livecert.certify.probe import ANSWERS_ADVICE, _probe
from livecert.certify.workers import advised_workers, processes_for
from livecert.contract import ContractViolation, load_contract
from livecert.harness.capabilities import ANOTHER_PATH, CAPABILITIES
from livecert.harness.embedded import EmbeddedServer, EmbeddedServerError
from livecert.harness.read_balances import ACCOUNTS_NEEDED
from livecert.rules import ROUNDING_MODES, load_paytable

# what the CLI and the tests read here: the answer's lines live in diagnosis.py
__all__ = [
    "FAIL",
    "OK",
    "WARN",
    "Bounds",
    "Check",
    "Diagnosis",
    "diagnose",
    "diagnose_reference",
]


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
        if declared is None:  # not the rules' number copied: the table's own, if it has one
            diagnosis.add(
                WARN,
                f"{game}: no maximum RTP declared: the check of a declared maximum "
                "(REG-RTP-01) will be not testable",
                "declare the maximum RTP the table publishes, if it publishes one",
            )
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


# requests of a whole certification of both games against the reference (`livecert certify`,
# the summary's "requests:" line, measured at 7,831 on version 0.1.0), all one after another
FULL_RUN_REQUESTS = 7_831
ROUND_TRIP_READS = 5  # GET /v1/info again, read-only, to measure the round trip


def _round_trip(adapter: Any, diagnosis: Diagnosis) -> None:
    """The target's round trip (the median of the doctor's requests and a few more reads of
    its declarations) and what it means for a whole run, whose requests go one at a time."""
    with contextlib.suppress(TargetError, ContractViolation, MappingAnswerError):
        for _ in range(ROUND_TRIP_READS):
            adapter.info()
    recorder = getattr(adapter, "recorder", None)  # a plugin adapter may keep no evidence
    latency = recorder.latency() if recorder is not None else {"requests": 0}
    if not latency["requests"]:
        return
    median = latency["median_ms"]
    minutes = FULL_RUN_REQUESTS * median / 1000 / 60
    diagnosis.add(
        OK,
        f"round trip: median {median} ms, p95 {latency['p95_ms']} ms over "
        f"{latency['requests']} requests; a whole certification of both games sends about "
        f"{FULL_RUN_REQUESTS:,} one after another, about {minutes:.1f} minutes of waiting at "
        "this round trip",
    )
    workers = advised_workers(median)
    processes = processes_for(workers, median)
    diagnosis.add(
        OK,
        f"advice: --workers {workers} (tables in play at once, in {processes} processes; "
        "`auto` chooses the same from the round trip)"
        if workers > 1
        else "advice: --workers 1: at this round trip the harness's own work is the bound, "
        "so overlapping requests would not shorten the run",
    )
    connect_ms = connect_time(getattr(adapter, "base_url", None))
    slow = slow_answers(median, connect_ms)
    if slow:
        diagnosis.add(WARN, slow, NAGLE_ADVICE)


SLOW_FACTOR = 4  # a median this many times the connection's round trip, and
SLOW_MARGIN_MS = 20.0  # this much above it, is the target's own slowness, not the network's
NAGLE_ADVICE = (
    "if each answer takes about 40 ms, the server likely writes it in pieces with Nagle's "
    "algorithm on while this machine delays its ACK: set TCP_NODELAY on the server's sockets"
)


def connect_time(url: str | None, tries: int = 3) -> float | None:
    """The fastest of a few TCP connections to the target's host, in ms: the network's round
    trip (the handshake), without the server's work; None when it cannot be measured."""
    if not url:
        return None
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    times = []
    for _ in range(tries):
        started = time.perf_counter()
        try:
            with socket.create_connection((parts.hostname or "", port), timeout=5):
                times.append((time.perf_counter() - started) * 1000)
        except OSError:
            return None
    return min(times)


def slow_answers(median_ms: float, connect_ms: float | None) -> str | None:
    """What to say of a target whose answers take much longer than the network's round trip
    (its own slowness: a run waits on it, request after request), or None."""
    if connect_ms is None:
        return None
    if median_ms < SLOW_FACTOR * connect_ms or median_ms - connect_ms < SLOW_MARGIN_MS:
        return None
    return (
        f"slow to answer: a request takes {median_ms:g} ms (median) though connecting takes "
        f"{connect_ms:.1f} ms: the time is the server's, not the network's"
    )


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
        _round_trip(adapter, diagnosis)
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
