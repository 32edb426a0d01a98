@sicbo @REG-MONEY-01
Feature: Sic Bo: specific triple and any triple
  A specific triple pays 180:1 when all three dice show the chosen number; any triple pays 30:1
  when the result is one of the six triples.

  Rule: a specific triple pays 180:1

    @SB-PAY-06
    Scenario Outline: Triple <n>s on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Triple <n>s
      When betting ends
      And the dealer enters <dice>
      Then the Triple <n>s bet <settles>
      And the player's balance is <balance>

      Examples: its own triple wins
        | n | dice  | settles      | balance |
        | 1 | 1 1 1 | wins 1800.00 | 2800.00 |
        | 2 | 2 2 2 | wins 1800.00 | 2800.00 |
        | 3 | 3 3 3 | wins 1800.00 | 2800.00 |
        | 4 | 4 4 4 | wins 1800.00 | 2800.00 |
        | 5 | 5 5 5 | wins 1800.00 | 2800.00 |
        | 6 | 6 6 6 | wins 1800.00 | 2800.00 |

      Examples: another triple or a pair loses
        | n | dice  | settles | balance |
        | 2 | 1 1 1 | loses   | 990.00  |
        | 3 | 3 3 4 | loses   | 990.00  |
        | 6 | 5 6 6 | loses   | 990.00  |

  Rule: any triple pays 30:1

    @SB-PAY-07
    Scenario Outline: Any triple on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Any triple
      When betting ends
      And the dealer enters <dice>
      Then the Any triple bet <settles>
      And the player's balance is <balance>

      Examples: each triple wins
        | dice  | settles     | balance |
        | 1 1 1 | wins 300.00 | 1300.00 |
        | 2 2 2 | wins 300.00 | 1300.00 |
        | 3 3 3 | wins 300.00 | 1300.00 |
        | 4 4 4 | wins 300.00 | 1300.00 |
        | 5 5 5 | wins 300.00 | 1300.00 |
        | 6 6 6 | wins 300.00 | 1300.00 |

      Examples: anything else loses
        | dice  | settles | balance |
        | 1 1 2 | loses   | 990.00  |
        | 3 4 5 | loses   | 990.00  |
        | 6 6 5 | loses   | 990.00  |
