Feature: Declared table limits are kept
  A table may declare the smallest and the largest stake it takes, for one bet and for one slip.
  Where it does, a slip at a limit is taken and settled by the paytable, and a slip one cent
  beyond it is refused and moves nothing. No rule demands limits: where a table declares none,
  this duty is not applicable, and the slips only try a cent and a very large stake, each settled
  by the paytable.

  Rule: a slip at a declared limit is taken, one beyond it is refused

    @REG-LIMIT-01 @REG-SETTLE-01
    Scenario Outline: At a <game> table, slips at and beyond the declared limits
      Given a player with enough balance for the declared limits of a <game> table
      When the player tries each slip at and beyond the declared limits, each in a round of its own
      Then each slip at a limit was taken and settled by the paytable, and each beyond it was refused moving nothing

      @sicbo @SB-PAY-01 @SB-PAY-02 @SB-PAY-03 @SB-PAY-04
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia @XD-PAY-07 @XD-PAY-08 @XD-PAY-09 @XD-PAY-10
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

    @REG-LIMIT-01 @REG-SETTLE-01 @needs-instant-round
    Scenario Outline: At an instant <game> table, rounds at and beyond the declared limits
      Given a player with enough balance for the declared limits of an instant <game> table
      When the player plays a round with each slip at and beyond the declared limits
      Then each slip at a limit was taken and settled by the paytable, and each beyond it was refused moving nothing

      @sicbo @SB-PAY-01 @SB-PAY-02 @SB-PAY-03 @SB-PAY-04
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia @XD-PAY-07 @XD-PAY-08 @XD-PAY-09 @XD-PAY-10
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |
