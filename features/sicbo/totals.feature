@sicbo @REG-MONEY-01
Feature: Sic Bo: a specific total
  A bet on a total from 4 to 17 pays 60:1 for 4 or 17, 30:1 for 5 or 16, 18:1 for 6 or 15, 12:1 for
  7 or 14, 8:1 for 8 or 13, 7:1 for 9 or 12 and 6:1 for 10 or 11. Totals 3 and 18 are not offered.

  Rule: each total pays its odds when the dice add up to it

    @SB-PAY-08
    Scenario Outline: Total <total> pays <odds> to 1
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Total <total>
      When betting ends
      And the dealer enters <dice>
      Then the Total <total> bet wins <win>
      And the player's balance is <balance>

      Examples:
        | total | odds | dice  | win    | balance |
        | 4     | 60   | 1 1 2 | 600.00 | 1600.00 |
        | 5     | 30   | 1 2 2 | 300.00 | 1300.00 |
        | 6     | 18   | 1 2 3 | 180.00 | 1180.00 |
        | 7     | 12   | 1 2 4 | 120.00 | 1120.00 |
        | 8     | 8    | 2 3 3 | 80.00  | 1080.00 |
        | 9     | 7    | 2 3 4 | 70.00  | 1070.00 |
        | 10    | 6    | 1 3 6 | 60.00  | 1060.00 |
        | 11    | 6    | 1 4 6 | 60.00  | 1060.00 |
        | 12    | 7    | 3 4 5 | 70.00  | 1070.00 |
        | 13    | 8    | 3 4 6 | 80.00  | 1080.00 |
        | 14    | 12   | 4 4 6 | 120.00 | 1120.00 |
        | 15    | 18   | 4 5 6 | 180.00 | 1180.00 |
        | 16    | 30   | 5 5 6 | 300.00 | 1300.00 |
        | 17    | 60   | 5 6 6 | 600.00 | 1600.00 |

  Rule: a total loses when the dice add up to anything else

    @SB-PAY-08
    Scenario Outline: Total <total> loses on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Total <total>
      When betting ends
      And the dealer enters <dice>
      Then the Total <total> bet loses
      And the player's balance is 990.00

      Examples:
        | total | dice  |
        | 4     | 1 1 1 |
        | 5     | 2 2 2 |
        | 6     | 1 1 3 |
        | 7     | 2 3 3 |
        | 8     | 1 2 4 |
        | 9     | 1 4 5 |
        | 10    | 2 3 4 |
        | 11    | 3 3 4 |
        | 12    | 4 4 3 |
        | 13    | 6 6 2 |
        | 14    | 4 4 5 |
        | 15    | 5 5 6 |
        | 16    | 5 5 5 |
        | 17    | 6 6 6 |
