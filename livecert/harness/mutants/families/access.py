"""Access operators: a request the target refused to the wrong credentials shown done.

REG-ACCESS-01: a player acts only for themselves, and a dealer's or operator's action needs
their credentials. The access scenarios send each action with another role's or player's
credentials (or none, or a forged or ended token) through copies of the adapter; a target that
let one through is the fault. A read whose answer the step looks into (a round's bets) is left
as refused: showing it done would need an answer the target never gave.
"""

from livecert.adapters.errors import Refused
from livecert.harness.mutants.mutation import Mutation
from livecert.harness.mutants.registry import clauses_in, operator

ACCESS = "REG-ACCESS-01"
READ_INTO = ("get_round",)  # the steps read an answer of these: not shown done


@operator(
    "access-granted",
    family="access",
    summary="an action refused to credentials that may not take it shown done (a player "
    "closing betting, no token reading a balance)",
    validates=clauses_in(ACCESS),
)
class AccessGranted(Mutation):
    def refused_to_another(self, operation: str, refusal: Refused) -> bool:
        if operation in READ_INTO:
            return False
        self.altered(f"{operation}, refused to those credentials ({refusal}), shown done")
        return True
