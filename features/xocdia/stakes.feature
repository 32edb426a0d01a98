@xocdia @stakes @REG-SETTLE-01 @REG-MONEY-01
Feature: Xoc Dia: small and odd stakes on fractional odds
  0.96:1, 2.8:1 and 1.5:1 wins often fall between minor units (1.23 at 0.96:1 wins 1.1808). The
  implementation rounds each win to its minor unit by the rule it declares, and must do exactly
  that.

  Rule: a fractional win is rounded to the minor unit by the declared rule

    @REG-SETTLE-01
    Scenario Outline: <stake> on <bet> wins <exact> before rounding
      Given a player with a balance of 100.00
      And the player bets <stake> on <bet>
      When betting ends
      And the dealer lifts the bowl showing <tokens>
      Then the <bet> bet wins <exact> before rounding, rounded by the declared rule
      And the player's balance is 100.00 plus the rounded win

      @XD-PAY-07
      Examples: odd at 0.96:1
        | bet | stake | tokens  | exact  |
        | Odd | 0.01  | w r r r | 0.0096 |
        | Odd | 0.07  | w w w r | 0.0672 |
        | Odd | 1.23  | r w r r | 1.1808 |
        | Odd | 10.00 | r w w w | 9.6000 |

      @XD-PAY-09
      Examples: big at 0.96:1
        | bet | stake | tokens  | exact  |
        | Big | 0.01  | r r r r | 0.0096 |
        | Big | 0.07  | r w r r | 0.0672 |
        | Big | 1.23  | r r r w | 1.1808 |
        | Big | 10.00 | w r r r | 9.6000 |

      @XD-PAY-08
      Examples: even at 0.96:1
        | bet  | stake | tokens  | exact  |
        | Even | 0.01  | w w r r | 0.0096 |
        | Even | 0.07  | r r r r | 0.0672 |
        | Even | 1.23  | w w w w | 1.1808 |
        | Even | 10.00 | r w r w | 9.6000 |

      @XD-PAY-10
      Examples: small at 0.96:1
        | bet   | stake | tokens  | exact  |
        | Small | 0.01  | w w w w | 0.0096 |
        | Small | 0.07  | w r w w | 0.0672 |
        | Small | 1.23  | w w w r | 1.1808 |
        | Small | 10.00 | r w w w | 9.6000 |

      @XD-PAY-02
      Examples: one white three red at 2.8:1
        | bet                 | stake | tokens  | exact  |
        | One white three red | 0.01  | w r r r | 0.028  |
        | One white three red | 0.07  | r w r r | 0.196  |
        | One white three red | 1.23  | r r w r | 3.444  |
        | One white three red | 10.00 | r r r w | 28.000 |

      @XD-PAY-03
      Examples: two white two red at 1.5:1
        | bet               | stake | tokens  | exact  |
        | Two white two red | 0.01  | w w r r | 0.015  |
        | Two white two red | 0.07  | w r w r | 0.105  |
        | Two white two red | 1.23  | r w w r | 1.845  |
        | Two white two red | 10.00 | r r w w | 15.000 |
