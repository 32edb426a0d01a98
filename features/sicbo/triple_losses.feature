@sicbo @REG-MONEY-01
Feature: Sic Bo: a triple beats the even-money bets
  All Small, Big, Odd and Even bets lose when the result is a triple, whatever its total. A triple
  still wins every other bet it satisfies (RULES.md section D).

  Rule: Small, Big, Odd and Even lose on each of the six triples

    @SB-PAY-16
    Scenario Outline: <bet> loses on the triple <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on <bet>
      When betting ends
      And the dealer enters <dice>
      Then the <bet> bet loses
      And the player's balance is 990.00

      Examples: Small, though 2-2-2 and 3-3-3 total 6 and 9
        | bet   | dice  |
        | Small | 1 1 1 |
        | Small | 2 2 2 |
        | Small | 3 3 3 |
        | Small | 4 4 4 |
        | Small | 5 5 5 |
        | Small | 6 6 6 |

      Examples: Big, though 4-4-4 and 5-5-5 total 12 and 15
        | bet | dice  |
        | Big | 1 1 1 |
        | Big | 2 2 2 |
        | Big | 3 3 3 |
        | Big | 4 4 4 |
        | Big | 5 5 5 |
        | Big | 6 6 6 |

      Examples: Odd, though 1-1-1, 3-3-3 and 5-5-5 are odd
        | bet | dice  |
        | Odd | 1 1 1 |
        | Odd | 2 2 2 |
        | Odd | 3 3 3 |
        | Odd | 4 4 4 |
        | Odd | 5 5 5 |
        | Odd | 6 6 6 |

      Examples: Even, though 2-2-2, 4-4-4 and 6-6-6 are even
        | bet  | dice  |
        | Even | 1 1 1 |
        | Even | 2 2 2 |
        | Even | 3 3 3 |
        | Even | 4 4 4 |
        | Even | 5 5 5 |
        | Even | 6 6 6 |

  Rule: a triple wins every other bet it satisfies

    @SB-PAY-16 @SB-PAY-05 @SB-PAY-06 @SB-PAY-07 @SB-PAY-08 @SB-PAY-10 @SB-PAY-11 @readings
    Scenario: Three 3s win Total 9, Pair of 3s, Number 3 at 3:1, All odd, Any triple and Triple 3s
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Total 9
      And the player bets 10.00 on Pair of 3s
      And the player bets 10.00 on Number 3
      And the player bets 10.00 on All odd
      And the player bets 10.00 on Any triple
      And the player bets 10.00 on Triple 3s
      When betting ends
      And the dealer enters 3 3 3
      Then the Total 9 bet wins 70.00
      And the Pair of 3s bet wins 100.00
      And the Number 3 bet wins 30.00
      And the All odd bet wins 60.00
      And the Any triple bet wins 300.00
      And the Triple 3s bet wins 1800.00
      And the player's balance is 3360.00
