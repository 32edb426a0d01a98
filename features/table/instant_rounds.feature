@needs-instant-round
Feature: Instant rounds keep the table's duties
  Many tables, and the RNG versions of live games, take a bet slip, play the round and settle it
  at once: there is no round to open, bet on and close. The duties that need no live round hold
  there as at a live table. Bad input is refused with a reason and moves nothing, no balance goes
  below zero, every balance reconciles with the rounds the table accepted (also when many rounds
  are played at the same moment), a player plays only for themselves, and a slip sent twice with
  one key is played once. The lab forces each round's result.

  Rule: a round with an unknown or malformed selection is refused

    @REG-INPUT-01
    Scenario Outline: At an instant <game> table, a round with a bet on the selection "<code>"
      Given a player with a balance of 100.00 at an instant <game> table
      When the player tries to play a round with 10.00 on the selection "<code>"
      Then the round is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | code       |
        | Sic Bo | TOTAL_3    |
        | Sic Bo | TOTAL_18   |
        | Sic Bo | DOUBLE_2_1 |
        | Sic Bo | TRIPLE_7   |
        | Sic Bo | NUMBER_0   |
        | Sic Bo | small      |
        | Sic Bo | FOUR_RED   |
        | Sic Bo |            |

      @xocdia
      Examples: Xoc Dia
        | game    | code     |
        | Xoc Dia | TOTAL_4  |
        | Xoc Dia | NUMBER_1 |
        | Xoc Dia | FIVE_RED |
        | Xoc Dia | four_red |

  Rule: a stake that is not a positive amount of at most two decimals within the balance is refused

    @REG-INPUT-01
    Scenario Outline: At an instant <game> table, a round with a stake of "<stake>"
      Given a player with a balance of 100.00 at an instant <game> table
      When the player tries to play a round with a stake of "<stake>" on a selection the table offers
      Then the round is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | stake            |
        | Sic Bo | 0                |
        | Sic Bo | 0.00             |
        | Sic Bo | -1.00            |
        | Sic Bo | abc              |
        | Sic Bo | 1.001            |
        | Sic Bo | 1e3              |
        | Sic Bo | +10.00           |
        | Sic Bo | 1000000000000.00 |

      @xocdia
      Examples: Xoc Dia
        | game    | stake |
        | Xoc Dia | 0     |
        | Xoc Dia | -0.01 |
        | Xoc Dia | 0.005 |
        | Xoc Dia | ten   |

    @REG-INPUT-01 @REG-BAL-01 @needs-batch-bets
    Scenario Outline: At an instant <game> table, a round staking more than the balance on a losing result
      Given a player with a balance of 100.00 at an instant <game> table
      When the player tries to play a round with 60.00 and 40.01 on Big, on a result where Big loses
      Then the round is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

  Rule: a slip with one bad bet among good ones is refused whole

    @REG-INPUT-01 @REG-BAL-01 @needs-batch-bets
    Scenario Outline: At an instant <game> table, a round with "<stake>" on "<code>" among good bets
      Given a player with a balance of 100.00 at an instant <game> table
      When the player tries to play a round with 10.00 on a selection the table offers and "<stake>" on the selection "<code>"
      Then the round is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | stake | code     |
        | Sic Bo | -5.00 | SMALL    |
        | Sic Bo | 5.00  | TOTAL_3  |
        | Sic Bo | 5.00  | TOTAL_18 |
        | Sic Bo | 95.00 | SMALL    |

      @xocdia
      Examples: Xoc Dia
        | game    | stake | code     |
        | Xoc Dia | -5.00 | SMALL    |
        | Xoc Dia | 5.00  | TOTAL_10 |
        | Xoc Dia | 0.00  | SMALL    |

    @REG-INPUT-01 @REG-BAL-01 @needs-batch-bets
    Scenario Outline: At an instant <game> table, a round with a negative stake on the winner beside a larger stake
      Given a player with a balance of 100.00 at an instant <game> table
      When the player tries to play a round with 100.00 on Big and "-60.00" on Small, on a result where Small wins
      Then the round is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

    @REG-INPUT-01
    Scenario Outline: At an instant <game> table, a round with an empty bet slip
      Given a player with a balance of 100.00 at an instant <game> table
      When the player tries to play a round with an empty bet slip
      Then the round is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

  Rule: every balance reconciles with the rounds the table accepted

    @REG-MONEY-01 @REG-BAL-01 @REG-SETTLE-01
    Scenario Outline: Random instant sessions at a <game> table, stakes from a cent to the whole balance
      When three players play 40 random instant rounds at a new <game> table
      Then after every round each balance was its start minus its stakes plus its returns

      @sicbo @SB-PAY-01 @SB-PAY-02 @SB-PAY-03 @SB-PAY-04 @SB-PAY-05 @SB-PAY-06
      @sicbo @SB-PAY-07 @SB-PAY-08 @SB-PAY-09 @SB-PAY-10 @SB-PAY-11 @SB-PAY-12 @SB-PAY-13 @SB-PAY-14
      @sicbo @SB-PAY-15 @SB-PAY-16
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia @XD-PAY-01 @XD-PAY-02 @XD-PAY-03 @XD-PAY-04 @XD-PAY-05 @XD-PAY-06
      @xocdia @XD-PAY-07 @XD-PAY-08 @XD-PAY-09 @XD-PAY-10
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

    @REG-MONEY-01
    Scenario Outline: One player plays 24 instant rounds at the same moment at a <game> table
      Given a player with a balance of 1000.00 at an instant <game> table
      When the player plays 24 instant rounds of 1.00 to 9.99 on a selection the table offers at the same moment
      Then every accepted round is settled
      And every balance is its start minus its stakes plus the returns of its rounds

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

    @REG-MONEY-01
    Scenario Outline: 12 players each play 3 instant rounds at the same moment at a <game> table
      Given 12 players with a balance of 100.00 each at an instant <game> table
      When each player plays 3 instant rounds of 1.00 to 9.99 on a selection the table offers at the same moment
      Then every accepted round is settled
      And every balance is its start minus its stakes plus the returns of its rounds

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

  Rule: a player plays only for themselves, and only with their own credential

    @REG-ACCESS-01
    Scenario Outline: At an instant <game> table, <who> tries to play a round, and only the player's own rounds move their balance
      Given a player with a balance of 100.00 at an instant <game> table
      When <who> tries to play a round of 10.00 on a selection the table offers
      Then it is <verdict>
      And the player's balance moved only by the player's own rounds

      @sicbo
      Examples: Sic Bo
        | game   | who                                     | verdict |
        | Sic Bo | the player                              | allowed |
        | Sic Bo | another player                          | allowed |
        | Sic Bo | the operator                            | refused |
        | Sic Bo | the dealer                              | refused |
        | Sic Bo | someone with no credentials             | refused |
        | Sic Bo | someone with a forged token             | refused |
        | Sic Bo | someone with a session the player ended | refused |

      @xocdia
      Examples: Xoc Dia
        | game    | who                                     | verdict |
        | Xoc Dia | the player                              | allowed |
        | Xoc Dia | another player                          | allowed |
        | Xoc Dia | the operator                            | refused |
        | Xoc Dia | the dealer                              | refused |
        | Xoc Dia | someone with no credentials             | refused |
        | Xoc Dia | someone with a forged token             | refused |
        | Xoc Dia | someone with a session the player ended | refused |

    @REG-ACCESS-01
    Scenario Outline: At an instant <game> table, another player asks for the player's round
      Given a player with a balance of 100.00 at an instant <game> table
      And the player has played an instant round of 10.00 on a selection the table offers
      When another player asks for the player's round in their own bet record
      Then the player's round is not shown to them

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

  Rule: a slip sent twice with one key is played once

    @REG-IDEMP-01 @needs-idempotency
    Scenario Outline: At an instant <game> table, the player's device sends the same round twice
      Given a player with a balance of 100.00 at an instant <game> table
      When the player's device sends a round of 10.00 on a selection the table offers twice with one key
      Then the round was played once

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |
