@sicbo @readings @REG-MONEY-01
Feature: Sic Bo: how the rules are read where they leave room
  The readings of RULES.md section D: four numbers needs three different numbers of the set, a
  specific double pays once when one of its numbers shows twice, and a pair wins on its triple.

  Rule: four numbers needs three different numbers, all from the set

    @SB-PAY-15
    Scenario Outline: Four numbers <set> loses on <dice>, a repeat
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Four numbers <set>
      When betting ends
      And the dealer enters <dice>
      Then the Four numbers <set> bet loses
      And the player's balance is 990.00

      Examples:
        | set     | dice  |
        | 1-2-3-4 | 1 1 2 |
        | 1-2-3-4 | 2 2 2 |
        | 2-3-4-5 | 3 4 4 |
        | 3-4-5-6 | 6 6 5 |

  Rule: a specific double pays once, also when one of its numbers shows twice

    @SB-PAY-09
    Scenario Outline: Double <a> and <b> on <dice> pays 5 to 1 once
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Double <a> and <b>
      When betting ends
      And the dealer enters <dice>
      Then the Double <a> and <b> bet wins 50.00
      And the player's balance is 1050.00

      Examples:
        | a | b | dice  |
        | 1 | 2 | 1 1 2 |
        | 1 | 2 | 2 1 2 |
        | 3 | 6 | 6 6 3 |

  Rule: a pair wins on a triple of its number

    @SB-PAY-10
    Scenario Outline: Pair of <n>s wins on <dice>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Pair of <n>s
      When betting ends
      And the dealer enters <dice>
      Then the Pair of <n>s bet wins 100.00
      And the player's balance is 1100.00

      Examples:
        | n | dice  |
        | 1 | 1 1 1 |
        | 5 | 5 5 5 |
