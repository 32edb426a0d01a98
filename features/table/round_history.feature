@needs-round-history
Feature: A table's round history shows every round once, in order, with its result
  The contract's round history (capability round-history) lists every finished round of a table
  exactly once over its pages, in the order the rounds finished, oldest first, each with how it
  finished: it is the table's record of its rounds (REG-RECALL-01). Read two rounds a page, the
  pages' cursors are crossed at every other round.

  Rule: the history shows the rounds the dealer finished, as they finished

    @REG-RECALL-01
    Scenario Outline: Thirteen rounds finished at a new <game> table, one of them cancelled
      Given a new <game> table
      And the dealer has finished 13 rounds at it, cancelling round 7
      Then the table's round history, read 2 rounds a page, shows each of them once, in order, with its result

      @sicbo @SB-GEN-01
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia @XD-GEN-01
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |
