@sicbo @REG-MONEY-01
Feature: Sic Bo: Small, Big, Odd and Even
  The even-money bets of the Sic Bo rules. Small is a total of 4 to 10, Big a total of 11 to 17,
  Odd and Even the parity of the total; each pays 1:1. Their loss on a triple is proven in
  "Sic Bo: a triple beats the even-money bets".

  Rule: Small pays 1:1 on a total of 4 to 10

    @SB-PAY-01
    Scenario Outline: Small on a total of <total>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Small
      When betting ends
      And the dealer enters <dice>
      Then the Small bet <settles>
      And the player's balance is <balance>

      Examples: Small totals win
        | dice  | total | settles    | balance |
        | 1 1 2 | 4     | wins 10.00 | 1010.00 |
        | 1 1 3 | 5     | wins 10.00 | 1010.00 |
        | 1 2 3 | 6     | wins 10.00 | 1010.00 |
        | 1 2 4 | 7     | wins 10.00 | 1010.00 |
        | 2 2 4 | 8     | wins 10.00 | 1010.00 |
        | 2 3 4 | 9     | wins 10.00 | 1010.00 |
        | 1 4 5 | 10    | wins 10.00 | 1010.00 |

      Examples: Big totals lose
        | dice  | total | settles | balance |
        | 5 5 1 | 11    | loses   | 990.00  |
        | 6 4 2 | 12    | loses   | 990.00  |
        | 3 5 6 | 14    | loses   | 990.00  |
        | 6 6 5 | 17    | loses   | 990.00  |

  Rule: Big pays 1:1 on a total of 11 to 17

    @SB-PAY-02
    Scenario Outline: Big on a total of <total>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      When betting ends
      And the dealer enters <dice>
      Then the Big bet <settles>
      And the player's balance is <balance>

      Examples: Big totals win
        | dice  | total | settles    | balance |
        | 2 4 5 | 11    | wins 10.00 | 1010.00 |
        | 3 4 5 | 12    | wins 10.00 | 1010.00 |
        | 1 6 6 | 13    | wins 10.00 | 1010.00 |
        | 4 4 6 | 14    | wins 10.00 | 1010.00 |
        | 3 6 6 | 15    | wins 10.00 | 1010.00 |
        | 4 6 6 | 16    | wins 10.00 | 1010.00 |
        | 5 6 6 | 17    | wins 10.00 | 1010.00 |

      Examples: Small totals lose
        | dice  | total | settles | balance |
        | 1 1 2 | 4     | loses   | 990.00  |
        | 1 2 6 | 9     | loses   | 990.00  |
        | 2 3 5 | 10    | loses   | 990.00  |

  Rule: Odd pays 1:1 on an odd total

    @SB-PAY-03
    Scenario Outline: Odd on a total of <total>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Odd
      When betting ends
      And the dealer enters <dice>
      Then the Odd bet <settles>
      And the player's balance is <balance>

      Examples: odd totals win
        | dice  | total | settles    | balance |
        | 1 1 3 | 5     | wins 10.00 | 1010.00 |
        | 2 2 3 | 7     | wins 10.00 | 1010.00 |
        | 1 3 5 | 9     | wins 10.00 | 1010.00 |
        | 2 4 5 | 11    | wins 10.00 | 1010.00 |
        | 3 4 6 | 13    | wins 10.00 | 1010.00 |
        | 4 5 6 | 15    | wins 10.00 | 1010.00 |
        | 5 6 6 | 17    | wins 10.00 | 1010.00 |

      Examples: even totals lose
        | dice  | total | settles | balance |
        | 1 1 2 | 4     | loses   | 990.00  |
        | 2 3 5 | 10    | loses   | 990.00  |
        | 4 6 6 | 16    | loses   | 990.00  |

  Rule: Even pays 1:1 on an even total

    @SB-PAY-04
    Scenario Outline: Even on a total of <total>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Even
      When betting ends
      And the dealer enters <dice>
      Then the Even bet <settles>
      And the player's balance is <balance>

      Examples: even totals win
        | dice  | total | settles    | balance |
        | 1 1 2 | 4     | wins 10.00 | 1010.00 |
        | 1 2 3 | 6     | wins 10.00 | 1010.00 |
        | 1 3 4 | 8     | wins 10.00 | 1010.00 |
        | 2 3 5 | 10    | wins 10.00 | 1010.00 |
        | 2 4 6 | 12    | wins 10.00 | 1010.00 |
        | 3 5 6 | 14    | wins 10.00 | 1010.00 |
        | 4 6 6 | 16    | wins 10.00 | 1010.00 |

      Examples: odd totals lose
        | dice  | total | settles | balance |
        | 1 1 3 | 5     | loses   | 990.00  |
        | 2 4 5 | 11    | loses   | 990.00  |
        | 5 6 6 | 17    | loses   | 990.00  |
