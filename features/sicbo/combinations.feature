@sicbo @REG-MONEY-01
Feature: Sic Bo: doubles, pairs, three singles, double and single, four numbers
  The combination bets: a specific double (two chosen different numbers both shown) pays 5:1, a pair
  (a chosen number on at least two dice) 10:1, three singles (three chosen different numbers) 30:1,
  a specific double and single (a chosen pair and a chosen third number) 60:1 and four numbers (the
  result within a chosen set of four) 7:1.

  Rule: a specific double pays 5:1 when both of its numbers show

    @SB-PAY-09
    Scenario Outline: Double <a> and <b> on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Double <a> and <b>
      When betting ends
      And the dealer enters <dice>
      Then the Double <a> and <b> bet <settles>
      And the player's balance is <balance>

      Examples: both numbers show
        | a | b | dice  | settles    | balance |
        | 1 | 2 | 1 2 5 | wins 50.00 | 1050.00 |
        | 2 | 5 | 5 3 2 | wins 50.00 | 1050.00 |
        | 3 | 6 | 3 6 1 | wins 50.00 | 1050.00 |
        | 1 | 6 | 6 4 1 | wins 50.00 | 1050.00 |
        | 4 | 5 | 5 4 6 | wins 50.00 | 1050.00 |

      Examples: one number or none shows
        | a | b | dice  | settles | balance |
        | 1 | 2 | 1 1 3 | loses   | 990.00  |
        | 2 | 5 | 2 2 2 | loses   | 990.00  |
        | 3 | 6 | 3 3 5 | loses   | 990.00  |
        | 4 | 5 | 1 2 3 | loses   | 990.00  |

  Rule: a pair pays 10:1 when the number shows on at least two dice

    @SB-PAY-10
    Scenario Outline: Pair of <n>s on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Pair of <n>s
      When betting ends
      And the dealer enters <dice>
      Then the Pair of <n>s bet <settles>
      And the player's balance is <balance>

      Examples: two dice show the number
        | n | dice  | settles     | balance |
        | 1 | 1 1 5 | wins 100.00 | 1100.00 |
        | 2 | 2 6 2 | wins 100.00 | 1100.00 |
        | 3 | 4 3 3 | wins 100.00 | 1100.00 |
        | 4 | 4 4 1 | wins 100.00 | 1100.00 |
        | 5 | 5 5 6 | wins 100.00 | 1100.00 |
        | 6 | 6 2 6 | wins 100.00 | 1100.00 |

      Examples: one die or none shows the number
        | n | dice  | settles | balance |
        | 1 | 1 2 3 | loses   | 990.00  |
        | 2 | 2 3 4 | loses   | 990.00  |
        | 3 | 3 4 5 | loses   | 990.00  |
        | 4 | 1 1 4 | loses   | 990.00  |
        | 5 | 5 6 6 | loses   | 990.00  |
        | 6 | 5 5 5 | loses   | 990.00  |

  Rule: three singles pay 30:1 when the dice show the three chosen numbers

    @SB-PAY-13
    Scenario Outline: Three singles <set> on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Three singles <set>
      When betting ends
      And the dealer enters <dice>
      Then the Three singles <set> bet <settles>
      And the player's balance is <balance>

      Examples: the three numbers show, in any order
        | set   | dice  | settles     | balance |
        | 1-3-4 | 4 1 3 | wins 300.00 | 1300.00 |
        | 4-5-6 | 6 5 4 | wins 300.00 | 1300.00 |
        | 1-4-5 | 1 4 5 | wins 300.00 | 1300.00 |
        | 2-3-6 | 3 6 2 | wins 300.00 | 1300.00 |
        | 1-2-3 | 2 1 3 | wins 300.00 | 1300.00 |

      Examples: a number missing
        | set   | dice  | settles | balance |
        | 1-3-4 | 1 3 3 | loses   | 990.00  |
        | 4-5-6 | 4 5 5 | loses   | 990.00  |
        | 1-4-5 | 1 4 6 | loses   | 990.00  |
        | 2-3-6 | 2 2 2 | loses   | 990.00  |

  Rule: a specific double and single pays 60:1

    @SB-PAY-14
    Scenario Outline: Double and single <set> on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Double and single <set>
      When betting ends
      And the dealer enters <dice>
      Then the Double and single <set> bet <settles>
      And the player's balance is <balance>

      Examples: the pair and the single show
        | set   | dice  | settles     | balance |
        | 2-2-3 | 2 3 2 | wins 600.00 | 1600.00 |
        | 4-4-5 | 5 4 4 | wins 600.00 | 1600.00 |
        | 6-6-3 | 6 3 6 | wins 600.00 | 1600.00 |
        | 1-1-6 | 1 1 6 | wins 600.00 | 1600.00 |

      Examples: anything else loses
        | set   | dice  | settles | balance |
        | 2-2-3 | 2 3 3 | loses   | 990.00  |
        | 4-4-5 | 4 4 4 | loses   | 990.00  |
        | 6-6-3 | 6 6 2 | loses   | 990.00  |
        | 1-1-6 | 1 6 5 | loses   | 990.00  |

  Rule: four numbers pay 7:1 when the result lies within the chosen set

    @SB-PAY-15
    Scenario Outline: Four numbers <set> on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Four numbers <set>
      When betting ends
      And the dealer enters <dice>
      Then the Four numbers <set> bet <settles>
      And the player's balance is <balance>

      Examples: three different numbers of the set
        | set     | dice  | settles    | balance |
        | 1-2-3-4 | 1 2 3 | wins 70.00 | 1070.00 |
        | 1-2-3-4 | 4 3 1 | wins 70.00 | 1070.00 |
        | 2-3-4-5 | 5 2 4 | wins 70.00 | 1070.00 |
        | 2-3-5-6 | 6 5 2 | wins 70.00 | 1070.00 |
        | 3-4-5-6 | 3 4 6 | wins 70.00 | 1070.00 |

      Examples: a number outside the set
        | set     | dice  | settles | balance |
        | 1-2-3-4 | 1 2 5 | loses   | 990.00  |
        | 2-3-4-5 | 6 2 3 | loses   | 990.00  |
        | 2-3-5-6 | 2 3 4 | loses   | 990.00  |
        | 3-4-5-6 | 1 3 4 | loses   | 990.00  |
