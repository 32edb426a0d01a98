"""Check a target's answers against the certification contract (openapi.yaml).

The harness validates every response the canonical adapter receives, so a vendor learns of a
missing field or a float where money belongs at the request that produced it, not later as a
confusing settlement mismatch.
"""

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs
import yaml

from livecert.contract.clauses import CONTRACT_BODY, CONTRACT_STATUS


class ContractViolation(Exception):
    """A target's response does not match the certification contract."""

    def __init__(
        self, operation: str, status: int, message: str, clause: str = CONTRACT_BODY
    ) -> None:
        super().__init__(f"{operation} answered {status} but {message}")
        self.operation = operation
        self.status = status
        self.detail = message
        self.clause = clause  # CONTRACT-01 (status) or CONTRACT-02 (body)


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    operation_id: str
    pattern: re.Pattern[str]
    responses: dict[str, Any]


class Contract:
    """The parsed contract: operations by path, and a validator per response schema."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.version: str = spec["info"]["version"]
        # the largest request body a target must take; a larger one is refused (413)
        self.max_body_bytes: int = spec["info"]["x-max-body-bytes"]
        self._operations: list[Operation] = []
        for template, item in spec["paths"].items():
            pattern = re.compile("^" + re.sub(r"\{[^/}]+\}", "[^/]+", template) + "$")
            for method in ("get", "post", "put", "delete", "patch"):
                if method in item:
                    op = item[method]
                    self._operations.append(
                        Operation(
                            method.upper(), template, op["operationId"], pattern, op["responses"]
                        )
                    )
        self._validators: dict[str, Any] = {}

    def operation(self, method: str, path: str) -> Operation | None:
        for op in self._operations:
            if op.method == method.upper() and op.pattern.match(path):
                return op
        return None

    def _response_schema_ref(self, op: Operation, status: int) -> str | None:
        response = op.responses.get(str(status)) or op.responses.get("default")
        if response is None:
            return None
        if "$ref" in response:
            name = response["$ref"].rsplit("/", 1)[-1]
            response = self.spec["components"]["responses"][name]
        content = response.get("content", {}).get("application/json")
        if content is None:
            return None
        schema = content["schema"]
        return schema.get("$ref", "")

    def _validator(self, ref: str) -> Any:
        """A compiled validator for one component schema (compiled once: responses are many).

        OpenAPI 3.1's schemas are JSON Schema 2020-12, which jsonschema-rs implements (formats
        asserted: a date-time is RFC 3339's, its offset with a colon); it validates a 110-bet
        round about nine times faster than fastjsonschema's generated code (drafts 4 to 7)."""
        if ref not in self._validators:
            schema = {"$ref": ref, "components": self.spec["components"]}
            self._validators[ref] = jsonschema_rs.Draft202012Validator(
                schema, validate_formats=True
            )
        return self._validators[ref]

    def check_response(self, method: str, path: str, status: int, body: Any) -> tuple[str, ...]:
        """Raise ContractViolation when `body` is not what the contract promises for `status`;
        else the clauses the answer was checked for and held: its status (CONTRACT-01), and
        its body where the contract gives that answer a schema (CONTRACT-02)."""
        op = self.operation(method, path)
        if op is None:
            raise ContractViolation(
                f"{method} {path}", status, "the contract has no such operation", CONTRACT_STATUS
            )
        if str(status) not in op.responses and not 400 <= status < 500:
            raise ContractViolation(
                op.operation_id,
                status,
                f"the contract allows only {sorted(k for k in op.responses if k != 'default')}",
                CONTRACT_STATUS,
            )
        ref = self._response_schema_ref(op, status)
        if not ref:
            return (CONTRACT_STATUS,)
        problem = _problem(self._validator(ref), body)
        if problem is not None:
            raise ContractViolation(op.operation_id, status, problem)
        return (CONTRACT_STATUS, CONTRACT_BODY)

    def body_problems(
        self, method: str, path: str, status: int, body: Any
    ) -> list[tuple[tuple[str | int, ...], str]]:
        """Every place `body` breaks the schema for `status` (not only the first), each with
        what the schema wants there: what a reader keeping the rest of an answer leaves out."""
        op = self.operation(method, path)
        ref = self._response_schema_ref(op, status) if op is not None else None
        if not ref:
            return []
        return [
            (tuple(error.instance_path), schema_problem(error))
            for error in self._validator(ref).iter_errors(body)
        ]


def _problem(validator: Any, body: Any) -> str | None:
    """What is wrong with `body` by the schema, or None when nothing is."""
    try:
        validator.validate(body)
    except jsonschema_rs.ValidationError as error:
        return schema_problem(error)
    except UnicodeEncodeError:
        # a lone surrogate (JSON's "\ud800", which Python's json reads as it is): jsonschema-rs
        # cannot read it as text. The body is judged with U+FFFD in its place: every pattern,
        # enum and format of the contract is ASCII, so the verdict is the same
        return _problem(validator, _scrubbed(body))
    except ValueError:
        # broken more than 256 levels deep, where jsonschema-rs cannot build its error
        if not validator.is_valid(body):
            return "the body breaks the contract's schema too deep inside for the place to be named"
    return None


def _scrubbed(value: Any) -> Any:
    """`value` with every lone surrogate in its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_scrubbed(k): _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    return value


def _where(path: Any) -> str:
    """`the body.bets[5].stake`: where in the answer the problem is."""
    return "the body" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def schema_problem(error: Any) -> str:
    """What the schema wants at the place it was broken, from the schema's side: the answer's
    own values are left out (one may be a player's token, or a whole 110-bet round); only the
    names of its keys show, as the place and as keys the schema does not allow."""
    kind = error.kind
    wanted = {
        "type": lambda: f"must be {' or '.join(kind.types)}",
        "required": lambda: f"must contain {kind.property!r}",
        "enum": lambda: f"must be one of {json.dumps(kind.options)}",
        "const": lambda: f"must be {json.dumps(kind.value)}",
        "pattern": lambda: f"must match the pattern {kind.pattern}",
        "format": lambda: f"must be a {kind.format}",
        "additionalProperties": lambda: f"must not contain {', '.join(map(repr, kind.unexpected))}",
        "oneOf": lambda: "must match exactly one of the schemas its `oneOf` lists",
        "anyOf": lambda: "must match one of the schemas its `anyOf` lists",
    }.get(kind.name)
    # any other keyword by name only: some (propertyNames, unevaluatedProperties) carry the
    # answer's own values in what jsonschema-rs says of them
    said = wanted() if wanted else f"breaks the schema's `{kind.name}`"
    return f"{_where(error.instance_path)} {said}"


@cache
def load_contract() -> Contract:
    """The certification contract shipped with livecert."""
    text = resources.files("livecert.contract").joinpath("openapi.yaml").read_text("utf-8")
    # libyaml's safe loader when PyYAML has it: the same documents, ten times faster (every
    # certify run loads the contract in three processes)
    return Contract(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
