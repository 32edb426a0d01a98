@sicbo @REG-MONEY-01
Feature: Sic Bo: a specific number
  A bet on a number from 1 to 6 pays 1:1 when one die shows it, 2:1 when two dice show it and 3:1
  when all three do.

  Rule: one die showing the number pays 1:1

    @SB-PAY-05
    Scenario Outline: Number <n> shown on one die
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Number <n>
      When betting ends
      And the dealer enters <dice>
      Then the Number <n> bet wins 10.00
      And the player's balance is 1010.00

      Examples:
        | n | dice  |
        | 1 | 1 2 3 |
        | 2 | 2 4 6 |
        | 3 | 3 5 1 |
        | 4 | 4 1 2 |
        | 5 | 5 6 1 |
        | 6 | 6 3 2 |

  Rule: two dice showing the number pay 2:1

    @SB-PAY-05
    Scenario Outline: Number <n> shown on two dice
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Number <n>
      When betting ends
      And the dealer enters <dice>
      Then the Number <n> bet wins 20.00
      And the player's balance is 1020.00

      Examples:
        | n | dice  |
        | 1 | 1 1 4 |
        | 2 | 2 5 2 |
        | 3 | 3 3 6 |
        | 4 | 4 4 1 |
        | 5 | 6 5 5 |
        | 6 | 6 2 6 |

  Rule: three dice showing the number pay 3:1

    @SB-PAY-05
    Scenario Outline: Number <n> shown on all three dice
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Number <n>
      When betting ends
      And the dealer enters <dice>
      Then the Number <n> bet wins 30.00
      And the player's balance is 1030.00

      Examples:
        | n | dice  |
        | 1 | 1 1 1 |
        | 2 | 2 2 2 |
        | 3 | 3 3 3 |
        | 4 | 4 4 4 |
        | 5 | 5 5 5 |
        | 6 | 6 6 6 |

  Rule: a number no die shows loses

    @SB-PAY-05
    Scenario Outline: Number <n> not shown
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Number <n>
      When betting ends
      And the dealer enters <dice>
      Then the Number <n> bet loses
      And the player's balance is 990.00

      Examples:
        | n | dice  |
        | 1 | 2 3 4 |
        | 2 | 1 3 5 |
        | 3 | 1 2 4 |
        | 4 | 5 5 6 |
        | 5 | 6 6 1 |
        | 6 | 1 1 1 |
