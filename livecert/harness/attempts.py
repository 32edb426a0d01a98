"""An action the target should refuse, tried: what came back.

A target that *accepts* what it must refuse has broken the rule the scenario is about, whether or
not its acceptance also breaks the contract's shape (a die of 7 echoed in a result, a 200 where
the contract allows only 409). The acceptance is the finding; the shape is secondary.
"""

from collections.abc import Callable

from livecert.adapters import Refused
from livecert.contract import ContractViolation


def refusal(action: Callable[[], object]) -> Refused | None:
    """Run `action`; its Refused when the target refused, None when it accepted (a 2xx, even one
    whose body or status breaks the contract). Any other error propagates."""
    try:
        action()
    except Refused as refused:
        return refused
    except ContractViolation as violation:
        if not 200 <= violation.status < 300:
            raise
    return None
