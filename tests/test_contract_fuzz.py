"""Schemathesis over the contract against the reference, in-process through ASGI: every check,
every phase (examples, coverage, fuzzing, stateful), a fixed seed and a bounded number of examples.

The contract's YAML is the only description Schemathesis gets; the reference serves no schema of
its own. Each role's token is sent by the operation's tag (operator, dealer, player; a table read
as the dealer). One allowance, stated in docs/contract.md ("Refusals by operation"): a request
valid by the schemas may still be refused with 422 where the value depends on the server, game or
round (a selection of the other game, a stake under the minor unit), so `positive_data_acceptance`
takes 422 besides its defaults, and `negative_data_rejection` counts 413 (a body over the stated
size) as the rejection it is; every other check runs as Schemathesis ships it.

The bounds are settable for a longer local run: LIVECERT_FUZZ_EXAMPLES (default 8) and
LIVECERT_FUZZ_STEPS (the stateful phase's steps, default 16).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import schemathesis
from fastapi.testclient import TestClient
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events, from_schema

from livecert.reference.app import create_app
from livecert.reference.config import Config

CONTRACT = Path(__file__).resolve().parent.parent / "livecert" / "contract" / "openapi.yaml"
SEED = 20261202
EXAMPLES = int(os.environ.get("LIVECERT_FUZZ_EXAMPLES", "8"))
STEPS = int(os.environ.get("LIVECERT_FUZZ_STEPS", "16"))
OPERATOR, DEALER = "fuzz-operator-token", "fuzz-dealer-token"
ACCEPTED = ["2xx", "401", "403", "404", "409", "422", "5xx"]  # 5xx: not_a_server_error's to judge
# Schemathesis's own list of rejections, and 413: a body over the stated size is refused with it
REJECTED = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
REJECTED += ["5xx"]


def _run(app: Any, tokens: dict[str, str]) -> tuple[list[str], dict[str, int]]:
    """Run every phase; answer the failures (one line each, with a curl to reproduce them) and
    the number of requests each phase sent."""
    config = SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            "generation": {"max-examples": EXAMPLES, "database": "none"},
            "phases": {"stateful": {"max-steps": STEPS}},
            "checks": {
                "enabled": True,
                "positive_data_acceptance": {"expected-statuses": ACCEPTED},
                "negative_data_rejection": {"expected-statuses": REJECTED},
            },
        }
    )
    schema = schemathesis.openapi.from_path(CONTRACT, config=config)
    schema.app = app

    @schema.auth(refresh_interval=None)
    class Roles:
        def get(self, case: Any, _ctx: Any) -> str | None:
            tags = case.operation.tags or []
            return tokens.get(tags[0]) if tags else None

        def set(self, case: Any, token: str, _ctx: Any) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}

    failures: list[str] = []
    sent: dict[str, int] = {}
    for event in from_schema(schema).execute():
        if isinstance(event, events.FatalError | events.NonFatalError):
            failures.append(f"{type(event).__name__}: {event}")
        if not isinstance(event, events.ScenarioFinished):
            continue
        sent[event.phase.value] = sent.get(event.phase.value, 0) + len(event.recorder.interactions)
        for checks in event.recorder.checks.values():
            for check in checks:
                if check.failure_info is not None:
                    failure = check.failure_info.failure
                    failures.append(
                        f"{event.label}: {check.name}: {failure.title}: {failure.message}\n"
                        f"    {check.failure_info.code_sample[:1500]}"
                    )
    return sorted(set(failures)), sent


def test_schemathesis_finds_no_failure_in_the_reference(tmp_path: Path) -> None:
    app = create_app(
        Config(db_path=str(tmp_path / "fuzz.sqlite3"), operator_token=OPERATOR, dealer_token=DEALER)
    )
    with TestClient(app) as client:
        answer = client.post(
            "/v1/players",
            json={"balance": "1000.00"},
            headers={"Authorization": f"Bearer {OPERATOR}"},
        )
        player = answer.json()["token"]
    tokens = {"operator": OPERATOR, "dealer": DEALER, "table": DEALER, "player": player}
    try:
        failures, sent = _run(app, tokens)
    finally:
        app.state.store.close()
    assert not failures, "\n".join(failures)
    assert sent.get("stateful", 0) > 0, f"the stateful phase sent nothing: {sent}"
    assert sent.get("fuzzing", 0) > 0 and sent.get("coverage", 0) > 0, sent
