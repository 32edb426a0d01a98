"""The seeded faults that take a parameter (fault_values.py says why): a fault that pays wrong
only from some stake up, forgets an idempotency key after some delay, writes the bet record
wrong some rounds back. `livecert selftest --full` draws each parameter from its whole range.

Each branch that applies one is marked `# FAULT <name>` like the others and reads its value with
`faults.money(name)` or `faults.number(name)`.
"""

from __future__ import annotations

from livecert.reference.fault_values import Fault

RANGED: tuple[Fault, ...] = ()
