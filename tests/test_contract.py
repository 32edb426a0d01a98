"""The certification contract: it loads, its checker rejects what it must, its docs match."""

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from samples import BET, INFO

from livecert.contract import ContractViolation, load_contract
from livecert.reference import sicbo as reference_sicbo
from livecert.rules import load_paytable

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = load_contract()


def test_the_contract_is_versioned_and_has_the_operations_of_both_games() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", CONTRACT.version)
    assert CONTRACT.operation("POST", "/v1/rounds/abc/result").operation_id == "enterResult"
    assert CONTRACT.operation("DELETE", "/v1/bets/b1").operation_id == "withdrawBet"
    assert CONTRACT.operation("GET", "/v1/nowhere") is None
    entry = CONTRACT.spec["components"]["schemas"]["ResultEntry"]["oneOf"]
    assert {next(iter(e["required"])) for e in entry} == {"dice", "tokens"}


def test_a_valid_answer_passes() -> None:
    CONTRACT.check_response("GET", "/v1/info", 200, INFO)
    CONTRACT.check_response("POST", "/v1/rounds/r1/bets", 201, {"bets": [BET], "balance": "9.00"})
    CONTRACT.check_response(
        "POST", "/v1/rounds/r1/bets", 422, {"error": {"code": "INVALID_STAKE", "message": "zero"}}
    )


@pytest.mark.parametrize(
    ("method", "path", "status", "body", "says"),
    [
        ("GET", "/v1/info", 200, {**INFO, "max_rtp": {"sicbo": 97.22}}, "must be string"),
        ("GET", "/v1/info", 200, {k: v for k, v in INFO.items() if k != "rounding"}, "rounding"),
        (
            "POST",
            "/v1/rounds/r1/bets",
            201,
            {"bets": [{**BET, "stake": 1.0}], "balance": "1.00"},
            "must be string",
        ),
        (
            "POST",
            "/v1/rounds/r1/bets",
            201,
            {"bets": [{**BET, "status": "won"}], "balance": "1"},
            "must be one of",
        ),
        (
            "POST",
            "/v1/rounds/r1/bets",
            201,
            {"bets": [{**BET, "win": 1}], "balance": "1.00"},
            "win",
        ),
        (
            "POST",
            "/v1/rounds/r1/bets",
            201,
            {"bets": [{**BET, "outcome": "won"}], "balance": "1"},
            "outcome",
        ),
        (
            "POST",
            "/v1/rounds/r1/bets",
            201,
            {"bets": [{**BET, "stake": "1.00\n"}], "balance": "1.00"},
            r"bets\[0\]\.stake must match the pattern",
        ),
        (
            "GET",
            "/v1/info",
            200,
            {**INFO, "rounding": "sideways"},
            r"the body\.rounding must be one of",
        ),
        ("POST", "/v1/rounds/r1/bets", 422, {"detail": "nope"}, "error"),
        ("POST", "/v1/rounds/r1/bets", 202, {"bets": [], "balance": "1.00"}, "allows only"),
        ("GET", "/v1/nowhere", 200, {}, "no such operation"),
    ],
)
def test_a_broken_answer_is_a_violation_naming_the_operation(method, path, status, body, says):
    with pytest.raises(ContractViolation, match=says) as caught:
        CONTRACT.check_response(method, path, status, body)
    assert str(status) in str(caught.value)
    # an undocumented status or operation breaks CONTRACT-01, a body outside its schema CONTRACT-02
    wrong_status = says in ("allows only", "no such operation")
    assert caught.value.clause == ("CONTRACT-01" if wrong_status else "CONTRACT-02")


def test_a_violation_says_what_the_schema_wants_and_never_repeats_the_answer() -> None:
    """The message goes into the certificate: a token the target sent in the wrong shape (or a
    whole 110-bet round) must not be copied into it."""
    token = "tok-7f3a9c2e-never-in-a-report"
    created = {"player_id": "p1", "balance": "10.00", "connected": True, "token": [token]}
    with pytest.raises(ContractViolation) as caught:
        CONTRACT.check_response("POST", "/v1/players", 201, created)
    assert str(caught.value) == "createPlayer answered 201 but the body.token must be string"
    assert token not in str(caught.value)


def test_a_lone_surrogate_is_judged_like_any_other_character() -> None:
    """JSON's "\\ud800" is read by Python as a lone surrogate, which the validator cannot take as
    text: where the schema allows any string it is accepted, where it wants a pattern it is a
    violation, never a crash of the harness."""
    odd = json.loads('"x\\ud800"')
    CONTRACT.check_response("GET", "/v1/info", 200, {**INFO, odd: 1})  # an extra key: allowed
    with pytest.raises(ContractViolation, match=r"the body\.currency must match the pattern"):
        CONTRACT.check_response("GET", "/v1/info", 200, {**INFO, "currency": odd})


def test_an_answer_nested_past_the_validators_depth_is_still_judged() -> None:
    deep: object = 1
    for _ in range(300):
        deep = [deep]
    CONTRACT.check_response("GET", "/v1/info", 200, {**INFO, "x": deep})  # allowed, however deep
    broken = {k: v for k, v in INFO.items() if k != "games"} | {"x": deep}
    with pytest.raises(ContractViolation, match="breaks the contract's schema"):
        CONTRACT.check_response("GET", "/v1/info", 200, broken)


def test_a_violation_names_json_values_as_json() -> None:
    with pytest.raises(
        ContractViolation, match=r'must be one of \["win", "lose", "refund", null\]'
    ):
        CONTRACT.check_response(
            "POST", "/v1/rounds/r1/bets", 201, {"bets": [{**BET, "outcome": "won"}], "balance": "1"}
        )


def _doc_section(title: str) -> str:
    text = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    start = text.index(f"### {title}")
    end = text.find("\n#", start + 4)
    return text[start:] if end < 0 else text[start:end]


def test_the_sicbo_selection_table_in_the_docs_matches_the_oracle_and_the_reference() -> None:
    sicbo = _doc_section("Sic Bo (110 selections)")
    oracle_codes = {s.code for s in load_paytable("sicbo").selections}
    named = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", sicbo))
    concrete = {c for c in named if not re.search(r"_[a-z]", c)}
    assert concrete <= oracle_codes, sorted(concrete - oracle_codes)
    counts = [int(n) for n in re.findall(r"\| (\d+) \| SB-PAY", sicbo)]
    assert sum(counts) == 110 == len(oracle_codes)
    # the reference parses codes with its own code; both must accept exactly the same 110
    assert set(reference_sicbo.all_selections()) == oracle_codes


def test_the_xocdia_selection_table_in_the_docs_matches_the_oracle() -> None:
    xocdia = _doc_section("Xoc Dia (10 selections)")
    rows = re.findall(r"^\| `([A-Z_]+)` \| .+? \| (XD-PAY-\d\d) \| ([\d.]+):1 \|$", xocdia, re.M)
    table = load_paytable("xocdia")
    assert {code: (clause, Fraction(odds)) for code, clause, odds in rows} == {
        s.code: (s.clause, s.odds_by_count[1]) for s in table.selections
    }


def test_the_contract_states_the_limits_the_reference_keeps() -> None:
    """The body size and each string's maxLength in the YAML are those the reference refuses
    past (docs/contract.md, "Request bodies"); the errors' code list names BODY_TOO_LARGE."""
    from livecert.reference import body, service

    schemas = CONTRACT.spec["components"]["schemas"]
    assert CONTRACT.max_body_bytes == body.MAX_BODY_BYTES == 65_536
    stated = {
        "PlayerCreate.name": schemas["PlayerCreate"]["properties"]["name"]["maxLength"],
        "TableCreate.name": schemas["TableCreate"]["properties"]["name"]["maxLength"],
        "Reason.reason": schemas["Reason"]["properties"]["reason"]["maxLength"],
        "Reshake.note": schemas["Reshake"]["properties"]["note"]["maxLength"],
        "DealerEvent.note": schemas["DealerEvent"]["properties"]["note"]["maxLength"],
        "BetRequest.selection": schemas["BetRequest"]["properties"]["selection"]["maxLength"],
        "BetRequest.stake": schemas["BetRequest"]["properties"]["stake"]["maxLength"],
    }
    kept = {
        "PlayerCreate.name": service.MAX_NAME,
        "TableCreate.name": service.MAX_NAME,
        "Reason.reason": service.MAX_TEXT,
        "Reshake.note": service.MAX_TEXT,
        "DealerEvent.note": service.MAX_TEXT,
        "BetRequest.selection": service.MAX_SELECTION,
        "BetRequest.stake": service.MAX_STAKE,
    }
    assert stated == kept
    assert (
        "BODY_TOO_LARGE"
        in schemas["Error"]["properties"]["error"]["properties"]["code"]["description"]
    )
    assert "413 `BODY_TOO_LARGE`" in (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")


def test_every_amount_takes_as_many_decimals_as_the_largest_minor_unit_and_no_more() -> None:
    """Money's pattern says what a server may take: at most `minor_unit` decimals, which is at
    most six (docs/contract.md, "Money and rounding"); a stake and an opening balance too."""
    schemas = CONTRACT.spec["components"]["schemas"]
    largest = schemas["Info"]["properties"]["minor_unit"]["maximum"]
    patterns = {
        "Money": schemas["Money"]["pattern"],
        "NullableMoney": schemas["NullableMoney"]["pattern"],
        "BetRequest.stake": schemas["BetRequest"]["properties"]["stake"]["pattern"],
        "PlayerCreate.balance": schemas["PlayerCreate"]["properties"]["balance"]["pattern"],
    }
    for where, pattern in patterns.items():
        taken = "1." + "5" * largest
        assert re.fullmatch(pattern.strip("^$"), taken), (where, taken)
        assert not re.fullmatch(pattern.strip("^$"), taken + "5"), where
    bet = {**BET, "stake": "1.0000001"}
    with pytest.raises(ContractViolation, match=r"bets\[0\]\.stake must match the pattern"):
        CONTRACT.check_response("POST", "/v1/rounds/r1/bets", 201, {"bets": [bet], "balance": "1"})


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's when there, as load_contract), but a mapping naming one key
    twice is an error: PyYAML alone keeps the last value silently (the contract once lost two
    operations' links that way)."""


def _unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)
CONTRACT_YAML = ROOT / "livecert" / "contract" / "openapi.yaml"


def test_the_strict_loader_refuses_a_key_named_twice() -> None:
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key 'links'"):
        yaml.load("ok:\n  links: {a: 1}\n  links: {b: 2}\n", Loader=_UniqueKeyLoader)
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key 'a'"):
        yaml.load("{a: 1, a: 2}", Loader=_UniqueKeyLoader)


def test_the_contract_names_no_key_twice() -> None:
    strict = yaml.load(CONTRACT_YAML.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    assert strict == CONTRACT.spec


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow local `$ref`s ("#/components/...") to the node they name."""
    while "$ref" in node:
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _required_field(spec: dict[str, Any], schema: dict[str, Any], pointer: list[str]) -> bool:
    """Whether every answer valid by `schema` has the field at `pointer` (a JSON pointer's parts;
    a number steps into an array's items)."""
    schema = _resolve(spec, schema)
    if not pointer:
        return True
    if "allOf" in schema:
        return any(_required_field(spec, part, pointer) for part in schema["allOf"])
    head, rest = pointer[0], pointer[1:]
    if head.isdigit():
        return schema.get("type") == "array" and _required_field(spec, schema["items"], rest)
    return (
        head in schema.get("required", [])
        and head in schema.get("properties", {})
        and _required_field(spec, schema["properties"][head], rest)
    )


def _operations(spec: dict[str, Any]) -> dict[str, tuple[dict[str, Any], set[str]]]:
    """Each operation by its operationId, with the names of its parameters (path-level ones too)."""
    found = {}
    for item in spec["paths"].values():
        shared = item.get("parameters", [])
        for method, operation in item.items():
            if method == "parameters":
                continue
            params = [_resolve(spec, p) for p in shared + operation.get("parameters", [])]
            found[operation["operationId"]] = (operation, {p["name"] for p in params})
    return found


def _links(spec: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any], dict[str, Any]]]:
    """Every link: the operation and status that carry it, its name, itself and the response."""
    found = []
    for item in spec["paths"].values():
        for method, operation in item.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                response = _resolve(spec, response)
                for name, link in response.get("links", {}).items():
                    found.append((operation["operationId"], status, name, link, response))
    return found


def test_every_link_names_an_operation_its_parameters_and_a_field_of_the_answer() -> None:
    """The OpenAPI links the stateful fuzzing follows (tests/test_contract_fuzz.py): each names an
    existing operation, parameters that operation has, and takes each value from a field every
    answer of the linking response carries."""
    spec = CONTRACT.spec
    operations = _operations(spec)
    links = _links(spec)
    problems = []
    for source, status, name, link, response in links:
        where = f"{source} {status} link {name}"
        if link["operationId"] not in operations:
            problems.append(f"{where}: no operation {link['operationId']!r}")
            continue
        target, params = operations[link["operationId"]]
        if "requestBody" in link and "requestBody" not in target:
            problems.append(f"{where}: {link['operationId']} takes no request body")
        schema = response["content"]["application/json"]["schema"]
        for param, expression in link.get("parameters", {}).items():
            if param.split(".")[-1] not in params:
                problems.append(f"{where}: {link['operationId']} has no parameter {param!r}")
            if not expression.startswith("$response.body#/"):
                problems.append(f"{where}: {param} from {expression!r}, not the answer's body")
            elif not _required_field(
                spec, schema, expression.removeprefix("$response.body#/").split("/")
            ):
                problems.append(f"{where}: the answer has no field {expression!r}")
    assert not problems, "\n".join(problems)
    # the round's life as the contract links it: opened, then closed or paused, then finished
    linked = {(source, link["operationId"]) for source, _, _, link, _ in links}
    assert {
        ("createTable", "openRound"),
        ("openRound", "closeBetting"),
        ("openRound", "pauseRound"),
        ("closeBetting", "enterResult"),
        ("closeBetting", "recordReshake"),
        ("pauseRound", "resumeRound"),
        ("pauseRound", "cancelRound"),
        ("placeBets", "withdrawBet"),
    } <= linked, sorted(linked)
