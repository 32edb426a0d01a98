Feature: Bad input is refused with a reason and changes nothing
  Malformed or invalid requests are refused with a reason and change nothing: no bet is added and
  no balance moves. A bet may never take a balance below zero.

  Background:
    Given a player with a balance of 100.00

  Rule: an unknown or malformed selection is refused

    @REG-INPUT-01
    Scenario Outline: At a <game> table, a bet on the selection "<code>"
      Given the player holds a bet of 10.00 on <held> in an open round
      When the player tries to bet 10.00 on the selection "<code>"
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | held | code                 |
        | Sic Bo | Big  | TOTAL_3              |
        | Sic Bo | Big  | TOTAL_18             |
        | Sic Bo | Big  | DOUBLE_2_2           |
        | Sic Bo | Big  | DOUBLE_2_1           |
        | Sic Bo | Big  | TRIPLE_7             |
        | Sic Bo | Big  | NUMBER_0             |
        | Sic Bo | Big  | small                |
        | Sic Bo | Big  | THREE_SINGLES_1_1_2  |
        | Sic Bo | Big  | FOUR_NUMBERS_1_2_3_5 |
        | Sic Bo | Big  | FOUR_RED             |
        | Sic Bo | Big  |                      |

      @xocdia
      Examples: Xoc Dia
        | game    | held | code      |
        | Xoc Dia | Big  | TOTAL_4   |
        | Xoc Dia | Big  | NUMBER_1  |
        | Xoc Dia | Big  | FIVE_RED  |
        | Xoc Dia | Big  | four_red  |

  Rule: a stake that is not a positive amount of at most two decimals within the balance is refused

    @REG-INPUT-01
    Scenario Outline: At a <game> table, a stake of "<stake>"
      Given the player holds a bet of 10.00 on Big in an open round
      When the player tries to bet a stake of "<stake>" on Big
      Then it is refused with a reason and nothing moves

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

    @REG-INPUT-01 @REG-BAL-01
    Scenario Outline: At a <game> table, a stake above the balance
      Given the player holds a bet of 10.00 on Big in an open round
      When the player tries to bet a stake of "90.01" on Big
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   |
        | Sic Bo |

      @xocdia
      Examples: Xoc Dia
        | game    |
        | Xoc Dia |

  Rule: a slip with one bad bet among good ones is refused whole

    @REG-INPUT-01 @needs-batch-bets
    Scenario Outline: At a <game> table, a slip with "<stake>" on "<code>" among good bets
      Given the player holds a bet of 10.00 on Big in an open round
      When the player tries a slip of 10.00 on Big and "<stake>" on the selection "<code>"
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | stake | code    |
        | Sic Bo | 5.00  | TOTAL_3 |
        | Sic Bo | -5.00 | SMALL   |
        | Sic Bo | 95.00 | SMALL   |

      @xocdia
      Examples: Xoc Dia
        | game    | stake | code     |
        | Xoc Dia | 5.00  | TOTAL_10 |
        | Xoc Dia | 0.00  | SMALL    |

  Rule: a slip the device garbles is refused

    @REG-INPUT-01
    Scenario Outline: At a <game> table, a malformed slip: <what>
      Given the player holds a bet of 10.00 on Big in an open round
      When <what>
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | what                                                          |
        | Sic Bo | the player's device sends an empty bet slip                   |
        | Sic Bo | the player's device sends a garbled bet slip                  |
        | Sic Bo | the player's device sends the bet slip as plain text          |
        | Sic Bo | the player's device sends a stake as a number instead of text |

      @xocdia
      Examples: Xoc Dia
        | game    | what                                                          |
        | Xoc Dia | the player's device sends an empty bet slip                   |
        | Xoc Dia | the player's device sends a garbled bet slip                  |
        | Xoc Dia | the player's device sends the bet slip as plain text          |
        | Xoc Dia | the player's device sends a stake as a number instead of text |

  Rule: a slip beyond the limits the contract states for a request is refused

    @REG-INPUT-01
    Scenario Outline: At a <game> table, a slip beyond the stated limits: <what>
      Given the player holds a bet of 10.00 on Big in an open round
      When <what>
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | what                                                                 |
        | Sic Bo | the player's device sends a bet slip larger than the contract allows |
        | Sic Bo | the player's device sends a bet slip naming its stake twice          |

      @xocdia
      Examples: Xoc Dia
        | game    | what                                                                 |
        | Xoc Dia | the player's device sends a bet slip larger than the contract allows |
        | Xoc Dia | the player's device sends a bet slip naming its stake twice          |

  Rule: a dealer action on a round that does not exist, or that the round's state does not allow, is refused

    @REG-INPUT-01
    Scenario Outline: At a <game> table, <what>
      Given the player holds a bet of 10.00 on Big in an open round
      When <what>
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | what                                                            |
        | Sic Bo | the dealer tries to close betting on a round that does not exist |
        | Sic Bo | the dealer tries to enter a result on a round that does not exist |
        | Sic Bo | the dealer records an event the game does not know             |
        | Sic Bo | the dealer tries to close betting on the paused round          |
        | Sic Bo | the dealer tries to pause the paused round                     |
        | Sic Bo | the dealer tries to record a re-shake on the paused round      |
        | Sic Bo | the dealer tries to resume the open round                      |
        | Sic Bo | the dealer tries to record a re-shake on the open round        |
        | Sic Bo | the dealer tries to enter the result on the open round         |
        | Sic Bo | the dealer tries to open a round with a countdown of -5 seconds |

      @xocdia
      Examples: Xoc Dia
        | game    | what                                                     |
        | Xoc Dia | the dealer tries to cancel a round that does not exist   |
        | Xoc Dia | the dealer records an event the game does not know       |
        | Xoc Dia | the dealer tries to close betting on the paused round    |
        | Xoc Dia | the dealer tries to pause the paused round               |
        | Xoc Dia | the dealer tries to resume the open round                |

    @REG-INPUT-01
    Scenario Outline: At a <game> table, after betting ended, <what>
      Given the player holds a bet of 10.00 on Big in an open round
      And betting has ended
      When <what>
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | what                                                              |
        | Sic Bo | the dealer records a re-shake for a reason the game does not know |

      @xocdia
      Examples: Xoc Dia
        | game    | what                                                              |
        | Xoc Dia | the dealer records a re-shake for a reason the game does not know |

  Rule: a finished round takes no further action, and nothing is settled twice

    @REG-INPUT-01
    Scenario Outline: At a <game> table, the dealer tries to <action> the finished round
      Given the player holds a bet of 10.00 on Big in an open round
      And betting has ended
      And the dealer has entered the result
      When the dealer tries to <action> the finished round
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | action            |
        | Sic Bo | pause             |
        | Sic Bo | cancel            |
        | Sic Bo | close betting on  |

      @xocdia
      Examples: Xoc Dia
        | game    | action |
        | Xoc Dia | cancel |

    @REG-INPUT-01 @REG-MONEY-01
    Scenario Outline: At a <game> table, the dealer enters the result of a won bet a second time
      Given the player holds a bet of 10.00 on <won> in an open round
      And betting has ended
      And the dealer has entered the result
      When the dealer enters the result a second time
      Then it is refused with a reason and nothing moves

      @sicbo
      Examples: Sic Bo
        | game   | won   |
        | Sic Bo | Small |

      @xocdia
      Examples: Xoc Dia
        | game    | won  |
        | Xoc Dia | Even |
