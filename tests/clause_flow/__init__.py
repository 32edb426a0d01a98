"""Which clauses each step of each scenario can name in a check, found statically.

A check names its clauses in a call of a CheckLedger (`checks.check(ok, CLAUSES, ...)`,
`checks.held(CLAUSES, ...)`, `checks.failed(CLAUSES, ...)`) or in a ClauseFailure the step
raises (the evidence hook books it). This package binds every pickle of every feature (the
Gherkin compiler's: Examples expanded, Background, Rule and Feature tags inherited) to the step
functions of steps/*.py as pytest-bdd would (`parsers.re` fullmatch or the exact text), and runs
each step function through a small abstract interpreter of its AST: concrete where it can be
(the step's own arguments from its text, the scenario's game and tags, module constants, the
paytable), a set of possibilities where it cannot, following calls into steps/, fixtures/ and
livecert/harness/ transitively. Modelled explicitly (see `_special_call` and `_attribute`):
- `scene.game` is the feature's game, `scene.tags` the scenario's clause tags, so a clause
  chosen from the tags (`c for c in X if c in scene.tags`) is understood, not whitelisted;
- a scene attribute (`scene.refused_by`, `scene.late_bet_clauses`) holds what the scenario's
  own steps assign it, or its default where none does (a plain one, like `scene.phase`, is
  compared by value: `scene.phase == "paused"` is false where no step pauses);
- `paytable(game)` where the game is not known is the scenario's game (a scenario plays one);
  a settlement row's `.clauses` (`SettlementRow`, `check_bet`) is its row and REG-SETTLE-01;
- an oracle settlement's `.clauses` (`scene.expected(placed)`) is the paytable row of a bet the
  scenario placed (`Scene.place` / `Scene.try_place` with its label); a row of a round whose
  selections the harness draws from the whole paytable (the sweep, the money machine, instant
  sessions, limit probes) is any row of the game;
- a Hypothesis rule's argument `x=st.sampled_from(E)` takes the values of E;
- a check or failure made `judge_untagged=True` (an action the rules allow, refused; the
  round's state: judged wherever it is met) or marked `booked` (its checks were booked where
  they ran) names nothing here; a check whose sure clauses include a duty judged in passing
  (`round_clauses.IN_PASSING`) is judged in any scenario, as CheckLedger does.
- an object of a project class (`RangeWorld(...)`) has its methods followed; a class defined in
  a function (a Hypothesis state machine) runs its rules with `self` the instance, a method on
  `self` followed with the arguments of its call, `self.x` any value a method gives it;
- a step that sets `scene.game` has the scenario followed once per game it may play.
Where a check's clauses stay unknown, or a `check`/`failed` call's receiver cannot be named, the
sink is reported as unresolved.

Limits. The interpreter is flow-insensitive (an assignment adds to what a name may hold; both
branches of an `if` and a loop run zero or one time are all kept): it may report a check judged
nowhere on a path no run takes, never the reverse. A scene attribute is any value the
scenario's steps give it, also where read before the writing step: there it holds its default
(an empty tuple of clauses), and a check naming no clause is reported by the run as a harness
error, never as a pass. A hold alone (`ledger.held`) is not a sink: it cannot fail, and credits
only tagged clauses.
"""

from .checker import Analysis, Checker, Violation
from .values import ROOT

__all__ = ["ROOT", "Analysis", "Checker", "Violation"]
