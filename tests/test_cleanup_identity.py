"""An answer naming another round, met while a scenario cleans up (the harness cancels the round
the scenario left open), is the target's finding on the identity clause (CONTRACT-03 through the
canonical adapter), as anywhere else: not a harness error, and the scenario keeps its verdict."""

import re
from pathlib import Path

from cli_support import certify_through
from rewriting_proxy import rewriting_proxy

from livecert.harness.embedded import EmbeddedServer

CANCEL = re.compile(r"^/v1/rounds/[^/]+/cancel$")


class CleanUpCancelsBent:
    """A proxy's hooks bending the answer to each cancel the harness's clean-up sends (its
    reason says so) to name another round: a gateway mixing up answers, met at clean-up."""

    def __init__(self) -> None:
        self.clean_ups: set[str] = set()

    def note(self, method: str, path: str, body: bytes) -> bool:
        if method == "POST" and CANCEL.match(path) and b"scenario clean-up" in body:
            self.clean_ups.add(path)
        return False  # never refused: forwarded

    def rewrite(self, method: str, path: str, status: int, body: object) -> object:
        if path not in self.clean_ups or status >= 300 or not isinstance(body, dict):
            return body
        return {**body, "round_id": f"{body.get('round_id')}-elsewhere"}


def test_a_clean_up_answer_naming_another_round_is_the_targets_finding(tmp_path: Path) -> None:
    # the impossible results are refused and their rounds left open: the clean-up cancels them
    bent = CleanUpCancelsBent()
    with (
        EmbeddedServer() as server,
        rewriting_proxy(server.url, bent.rewrite, bent.note) as url,
    ):
        status, cert, output = certify_through(
            tmp_path / "report", url, server, "xocdia", "XD-GEN-01,CONTRACT-03"
        )
    assert (status, cert["verdict"]) == (1, "non-compliant"), output[-3000:]
    assert not cert["harness_errors"], cert["harness_errors"]
    failed = {c for c, row in cert["clauses"].items() if row["status"] == "failed"}
    assert failed == {"CONTRACT-03"}
    assert cert["clauses"]["XD-GEN-01"]["status"] == "passed"  # judged by its scenarios
    blamed = cert["clauses"]["CONTRACT-03"]["failed_scenarios"]
    assert blamed and all(name.startswith("the clean-up of ") for name in blamed), blamed
    violation = cert["contract_violations"][0]
    assert violation["clause"] == "CONTRACT-03" and "-elsewhere" in violation["message"]
