@xocdia @REG-MONEY-01
Feature: Xoc Dia: odd, even, big and small
  Odd (an odd number of red) and even (an even number of red) pay 0.96:1. Big (more red than
  white) and Small (more white than red) pay 0.96:1 and return the stake on two white two red.

  Rule: odd and even are judged on the number of red tokens, for each of the five colour counts

    Scenario Outline: <bet> with <red> red
      Given a player with a balance of 1000.00
      And the player bets 10.00 on <bet>
      When betting ends
      And the dealer lifts the bowl showing <tokens>
      Then the <bet> bet <settles>
      And the player's balance is <balance>

      @XD-PAY-07
      Examples: odd
        | bet | red | tokens  | settles   | balance |
        | Odd | 0   | w w w w | loses     | 990.00  |
        | Odd | 1   | w w w r | wins 9.60 | 1009.60 |
        | Odd | 2   | w r w r | loses     | 990.00  |
        | Odd | 3   | r w r r | wins 9.60 | 1009.60 |
        | Odd | 4   | r r r r | loses     | 990.00  |

      @XD-PAY-08
      Examples: even
        | bet  | red | tokens  | settles   | balance |
        | Even | 0   | w w w w | wins 9.60 | 1009.60 |
        | Even | 1   | r w w w | loses     | 990.00  |
        | Even | 2   | w w r r | wins 9.60 | 1009.60 |
        | Even | 3   | w r r r | loses     | 990.00  |
        | Even | 4   | r r r r | wins 9.60 | 1009.60 |

      @XD-PAY-09
      Examples: big
        | bet | red | tokens  | settles              | balance |
        | Big | 4   | r r r r | wins 9.60            | 1009.60 |
        | Big | 3   | r r w r | wins 9.60            | 1009.60 |
        | Big | 1   | w w r w | loses                | 990.00  |
        | Big | 0   | w w w w | loses                | 990.00  |

      @XD-PAY-10
      Examples: small
        | bet   | red | tokens  | settles   | balance |
        | Small | 0   | w w w w | wins 9.60 | 1009.60 |
        | Small | 1   | w r w w | wins 9.60 | 1009.60 |
        | Small | 3   | r r r w | loses     | 990.00  |
        | Small | 4   | r r r r | loses     | 990.00  |

  Rule: Big and Small get exactly their stake back on two white two red

    Scenario Outline: <stake> on <bet> on <tokens>
      Given a player with a balance of 500.00
      And the player bets <stake> on <bet>
      When betting ends
      And the dealer lifts the bowl showing <tokens>
      Then the <bet> bet gets its stake back
      And the player's balance is 500.00

      @XD-PAY-09
      Examples: big
        | bet | stake  | tokens  |
        | Big | 10.00  | w w r r |
        | Big | 0.01   | r w r w |
        | Big | 123.45 | r r w w |
        | Big | 0.07   | w r r w |

      @XD-PAY-10
      Examples: small
        | bet   | stake  | tokens  |
        | Small | 10.00  | w w r r |
        | Small | 0.01   | w r w r |
        | Small | 123.45 | r w w r |
        | Small | 1.23   | r r w w |
