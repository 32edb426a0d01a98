"""The operators, one module per family; importing this package registers them all."""

from livecert.harness.mutants.families import (  # noqa: F401  (each registers its operators)
    access,
    balances,
    bets,
    idempotency,
    identities,
    payouts,
    records,
    refunds,
    states,
    streams,
)
