@sicbo @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: three dice, each 1 to 6
  Three dice are shaken in a closed cup; each die shows 1 to 6 and the total is the sum of the
  three. The dealer enters each die's value; the round records the dice and their total, and a
  value no die can show is refused without touching any bet.

  Rule: the round shows the three dice the dealer entered and their total

    @SB-GEN-01
    Scenario Outline: The dealer enters <dice>
      Given a player bets 10.00 on Small
      When betting ends
      And the dealer enters <dice>
      Then the round's result shows <dice> with a total of <total>

      Examples:
        | dice  | total |
        | 1 2 3 | 6     |
        | 6 6 5 | 17    |
        | 4 1 6 | 11    |
        | 1 1 1 | 3     |
        | 6 6 6 | 18    |

  Rule: a value no die can show is refused and the bets wait for a real result

    @SB-GEN-01 @REG-INPUT-01
    Scenario Outline: The dealer tries to enter <dice>
      Given a player with a balance of 100.00
      And the player bets 10.00 on Big
      When betting ends
      And the dealer tries to enter <dice>
      Then the result is refused
      And the Big bet is still open
      And the player's balance is 90.00

      Examples:
        | dice    |
        | 0 3 4   |
        | 1 2 7   |
        | 6 6 9   |
        | 3 4     |
        | 1 2 3 4 |
