"""Check a target's answers against the certification contract (openapi.yaml).

The harness validates every response the canonical adapter receives, so a vendor learns of a
missing field or a float where money belongs at the request that produced it, not later as a
confusing settlement mismatch.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import fastjsonschema
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
        self._validators: dict[str, Callable[[Any], Any]] = {}

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

    def _validator(self, ref: str) -> Callable[[Any], Any]:
        """A compiled validator for one component schema (compiled once: responses are many)."""
        if ref not in self._validators:
            schema = {"$ref": ref, "components": self.spec["components"]}
            self._validators[ref] = fastjsonschema.compile(schema, use_formats=True)
        return self._validators[ref]

    def check_response(self, method: str, path: str, status: int, body: Any) -> None:
        """Raise ContractViolation when `body` is not what the contract promises for `status`."""
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
            return
        try:
            self._validator(ref)(body)
        except fastjsonschema.JsonSchemaValueException as error:
            detail = error.message.replace("data", "the body", 1)
            raise ContractViolation(op.operation_id, status, detail) from None


@cache
def load_contract() -> Contract:
    """The certification contract shipped with livecert."""
    text = resources.files("livecert.contract").joinpath("openapi.yaml").read_text("utf-8")
    # libyaml's safe loader when PyYAML has it: the same documents, ten times faster (every
    # certify run loads the contract in three processes)
    return Contract(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
