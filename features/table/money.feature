Feature: Money is conserved when many players bet at once
  Every balance equals its start minus its stakes plus its returns, and nothing is settled twice,
  also when many players send many slips at the same moment.

  Rule: concurrent slips neither lose nor invent money

    @REG-MONEY-01
    Scenario Outline: 20 players each send 3 slips at the same moment at a <game> table
      Given 20 players with a balance of 100.00 each at a new <game> table
      When each player sends 3 slips of 1.00 on Big at the same moment
      And betting ends
      And the dealer enters a result
      Then every accepted bet is settled
      And every balance is its start minus its stakes plus its returns

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

  Rule: random sessions of bets, re-shakes, pauses, cancellations and results keep every balance right

    @REG-MONEY-01 @REG-BAL-01 @REG-SETTLE-01 @REG-RECALL-01 @TBL-MAL-02 @TBL-DISC-02
    Scenario Outline: Random sessions at a <game> table
      When three players and the dealer play 8 random sessions of up to 25 steps at a new <game> table
      Then after every step each balance was its start minus its stakes plus its returns

      # a refusal of an action the rules allow is judged on the clause of that action; a result
      # refused in a round a re-shake left open for bets is the re-shake's (SB-RND-04, RULES.md D)
      @sicbo @SB-RND-01 @SB-RND-02 @SB-RND-03 @SB-RND-04 @SB-RND-05 @SB-RND-06 @TBL-MAL-01 @TBL-MAL-03
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia @XD-RND-01 @XD-RND-03 @XD-RND-04 @XD-VOID-01 @TBL-MAL-01 @TBL-MAL-03
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

  Rule: stakes from the whole range the table takes: every paytable row wins at the top of it, refunds and the record at drawn cents

    # every row (a clause at one odds) wins once at the table's maximum and at a stake drawn
    # near it; a cancel after a pause (and in Xoc Dia a void) returns stakes whose cents are a
    # drawn window; then each player's bet record is read over every round, its balances
    # chained; a refused dealer's action is judged on its own clause
    @REG-MONEY-01 @REG-SETTLE-01 @REG-RECALL-01 @TBL-MAL-01 @TBL-MAL-03
    Scenario Outline: Stakes from the whole range at a <game> table
      When two players win on every paytable row at stakes near the maximum and are refunded drawn stakes at a new <game> table
      Then every settlement, refund, balance and bet record row was as the rules say

      @sicbo @SB-RND-01 @SB-RND-02 @SB-RND-03 @SB-PAY-01 @SB-PAY-02 @SB-PAY-03 @SB-PAY-04 @SB-PAY-05 @SB-PAY-06 @SB-PAY-07 @SB-PAY-08 @SB-PAY-09 @SB-PAY-10 @SB-PAY-11 @SB-PAY-12 @SB-PAY-13 @SB-PAY-14 @SB-PAY-15
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia @XD-RND-01 @XD-VOID-01 @XD-PAY-01 @XD-PAY-02 @XD-PAY-03 @XD-PAY-04 @XD-PAY-05 @XD-PAY-06 @XD-PAY-07 @XD-PAY-08 @XD-PAY-09 @XD-PAY-10
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |
