"""Answer mutants for method validation (`livecert certify --validate`): see registry.py."""

from livecert.harness.mutants.registry import (
    Mutant,
    MutantError,
    Operator,
    TargetShape,
    all_operators,
    operators_for,
    parse_mutant,
)

__all__ = [
    "Mutant",
    "MutantError",
    "Operator",
    "TargetShape",
    "all_operators",
    "operators_for",
    "parse_mutant",
]
