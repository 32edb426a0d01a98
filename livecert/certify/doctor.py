"""`livecert doctor`: check a target before a long run, and say what to fix.

Read-only: it reads the declarations (`GET /v1/info`), checks both tokens (`GET /v1/whoami`) and
compares what the target declares with what certification needs: the contract version, the
games, the rounding rule, the maximum RTP of the rules, and the optional capabilities (and which
clauses go untested without them). It creates nothing on the target.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from livecert.adapters import CredentialsError, HttpAdapter, TargetError, TargetInfo
from livecert.contract import ContractViolation, load_contract
from livecert.harness.capabilities import CAPABILITIES
from livecert.harness.embedded import EmbeddedServer, EmbeddedServerError
from livecert.rules import ROUNDING_MODES, load_paytable

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
        return [*out, "", f"livecert doctor: {verdict}"]


def _declarations(info: TargetInfo, diagnosis: Diagnosis) -> None:
    contract = load_contract().version
    if info.contract_version.split(".")[0] != contract.split(".")[0]:
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
    missing = [c for c in CAPABILITIES if c not in info.capabilities]
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


def diagnose(url: str, operator_token: str, dealer_token: str, timeout: float) -> Diagnosis:
    """Every check against the target at `url`; never raises for what the target does."""
    diagnosis = Diagnosis()
    adapter = HttpAdapter(url, operator_token, dealer_token, timeout=(min(5.0, timeout), timeout))
    try:
        try:
            info = adapter.info()
        except TargetError as error:
            diagnosis.add(
                FAIL,
                f"GET {url}/v1/info: {error.detail}",
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
        diagnosis.add(OK, f"reached {url}: {info.name} {info.version}")
        try:
            adapter.check_credentials()
            diagnosis.add(OK, "operator and dealer tokens accepted, each with its role")
        except CredentialsError as error:
            diagnosis.add(FAIL, error.detail, "create the tokens on the target; see the README")
        except (TargetError, ContractViolation) as error:
            diagnosis.add(FAIL, f"GET /v1/whoami: {error}", "serve /v1/whoami as the contract says")
        _declarations(info, diagnosis)
    finally:
        adapter.close()
    return diagnosis


def diagnose_reference(timeout: float) -> Diagnosis:
    """The doctor run on the embedded reference server (what a healthy target looks like)."""
    server = EmbeddedServer()
    try:
        server.start()
    except EmbeddedServerError as error:
        diagnosis = Diagnosis()
        diagnosis.add(FAIL, f"the embedded reference server did not start: {error}")
        return diagnosis
    try:
        return diagnose(server.url, server.operator_token, server.dealer_token, timeout)
    finally:
        server.stop()
