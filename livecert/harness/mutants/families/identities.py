"""Identity operators: an answer that names another round than the one asked.

A target (or a proxy, or a cache keyed wrong) that answers a round's read with another round's
id must not be certified on what it showed for the round the harness played. The identity guard
compares every answer's ids with the request's (livecert/harness/identity.py): through the
certification contract that is CONTRACT-03's finding; through a mapping or a plugin the read's
own duty, REG-RECALL-01 ("the record of a round shows its ID"). So the operator aims at the one
the target's shape is judged on. A round the harness assembled from a live table's stream
(`echoed`) names what the harness asked, never an answer's id: it is left as it was.
"""

from dataclasses import replace

from livecert.adapters.model import RoundView
from livecert.contract import CONTRACT_IDENTITY
from livecert.harness.identity import READ_DUTY
from livecert.harness.mutants.mutation import Mutation
from livecert.harness.mutants.registry import TargetShape, clauses_in, operator


def judged_on(clause: str, shape: TargetShape) -> bool:
    """CONTRACT-03 where the target speaks the contract; the read's duty where it does not."""
    return shape.contract == (clause == CONTRACT_IDENTITY)


@operator(
    "round-id-swapped",
    family="identities",
    summary="a round's read answers with another round's id (the last other round read, or "
    "'<id>-x' before there is one)",
    validates=clauses_in(CONTRACT_IDENTITY, READ_DUTY),
    # through the contract, every scenario compares ids: the reads of REG-RECALL-01's are enough
    scope=lambda clause: (READ_DUTY,),
    applies=judged_on,
)
class RoundIdSwapped(Mutation):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.last_read: str | None = None  # the round the previous read was of

    def round(self, operation: str, view: RoundView) -> RoundView:
        if operation != "get_round" or view.echoed:
            return view
        with self.lock:
            other = self.last_read
            self.last_read = view.round_id
        shown = other if other is not None and other != view.round_id else f"{view.round_id}-x"
        self.altered(f"a read of round {view.round_id} answered as round {shown}")
        return replace(view, round_id=shown)
