@sicbo @REG-MONEY-01
Feature: Sic Bo: all odd, all even, two and one
  All odd (every die odd) and all even (every die even) pay 6:1; two odd one even and two even one
  odd pay 3:2.

  Rule: all odd and all even pay 6:1

    @SB-PAY-11
    Scenario Outline: <bet> at 6 to 1 on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on <bet>
      When betting ends
      And the dealer enters <dice>
      Then the <bet> bet <settles>
      And the player's balance is <balance>

      Examples:
        | bet      | dice  | settles    | balance |
        | All odd  | 1 3 5 | wins 60.00 | 1060.00 |
        | All odd  | 5 5 1 | wins 60.00 | 1060.00 |
        | All even | 2 4 6 | wins 60.00 | 1060.00 |
        | All even | 6 6 2 | wins 60.00 | 1060.00 |
        | All odd  | 1 3 4 | loses      | 990.00  |
        | All even | 2 4 5 | loses      | 990.00  |

  Rule: two odd one even and two even one odd pay 3:2

    @SB-PAY-12
    Scenario Outline: <bet> at 3 to 2 on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on <bet>
      When betting ends
      And the dealer enters <dice>
      Then the <bet> bet <settles>
      And the player's balance is <balance>

      Examples:
        | bet              | dice  | settles    | balance |
        | Two odd one even | 1 3 2 | wins 15.00 | 1015.00 |
        | Two odd one even | 5 6 5 | wins 15.00 | 1015.00 |
        | Two even one odd | 2 4 1 | wins 15.00 | 1015.00 |
        | Two even one odd | 6 6 3 | wins 15.00 | 1015.00 |
        | Two odd one even | 1 3 5 | loses      | 990.00  |
        | Two odd one even | 2 4 1 | loses      | 990.00  |
        | Two even one odd | 2 4 6 | loses      | 990.00  |
        | Two even one odd | 1 1 2 | loses      | 990.00  |
