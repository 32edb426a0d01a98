"""The certification contract: the OpenAPI document vendors serve and its response validator.

Bottom layer: imports nothing else of livecert.
"""

from livecert.contract.clauses import (
    CONTRACT_BODY,
    CONTRACT_CLAUSES,
    CONTRACT_IDENTITY,
    CONTRACT_STATUS,
)
from livecert.contract.validator import Contract, ContractViolation, load_contract

__all__ = [
    "CONTRACT_BODY",
    "CONTRACT_CLAUSES",
    "CONTRACT_IDENTITY",
    "CONTRACT_STATUS",
    "Contract",
    "ContractViolation",
    "load_contract",
]
