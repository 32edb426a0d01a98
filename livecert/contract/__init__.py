"""The certification contract: the OpenAPI document vendors serve and its response validator.

Bottom layer: imports nothing else of livecert.
"""

from livecert.contract.validator import Contract, ContractViolation, load_contract

__all__ = ["Contract", "ContractViolation", "load_contract"]
