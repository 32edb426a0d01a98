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

      # a refusal of an action the rules allow is judged on the clause of that action
      @sicbo @SB-RND-01 @SB-RND-02 @SB-RND-03 @SB-RND-05 @SB-RND-06 @TBL-MAL-01 @TBL-MAL-03
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia @XD-RND-01 @XD-RND-03 @XD-RND-04 @XD-VOID-01 @TBL-MAL-01 @TBL-MAL-03
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |
