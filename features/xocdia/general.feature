@xocdia @REG-SETTLE-01 @REG-MONEY-01
Feature: Xoc Dia: four tokens under the bowl
  A plate, a bowl and four tokens, each red on one side and white on the other. During the betting
  period the dealer covers the plate with the bowl and shakes; after the betting period the dealer
  lifts the bowl and the face-up colours are the result.

  Rule: the round shows the four tokens revealed and how many are red and white

    @XD-GEN-01
    Scenario Outline: The bowl is lifted on <tokens>
      Given a player bets 10.00 on Big
      When betting ends
      And the dealer lifts the bowl showing <tokens>
      Then the round's result shows <tokens> with <red> red and <white> white

      Examples:
        | tokens  | red | white |
        | r r r r | 4   | 0     |
        | w r r r | 3   | 1     |
        | r w r w | 2   | 2     |
        | w w r w | 1   | 3     |
        | w w w w | 0   | 4     |

  Rule: a result that four red-or-white tokens cannot show is refused and the bets wait

    @XD-GEN-01 @REG-INPUT-01
    Scenario Outline: The dealer tries to reveal <tokens>
      Given a player with a balance of 100.00
      And the player bets 10.00 on Big
      When betting ends
      And the dealer tries to reveal <tokens>
      Then the result is refused
      And the Big bet is still open
      And the player's balance is 90.00

      Examples:
        | tokens    |
        | r r x r   |
        | r w r     |
        | r w r w w |
        | R w r w   |
        | red white red red |

  Rule: bets are taken while the bowl is shaken, and only then

    @XD-RND-01
    Scenario: The bowl is shaken during betting and lifted after it
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      When betting ends
      And the dealer lifts the bowl showing w r r r
      Then the Big bet wins 9.60
      And the player's balance is 1009.60

    @XD-RND-01
    Scenario: A bet after the betting period is refused
      Given a player bets 10.00 on Small
      And betting has ended
      Then a new bet of 5.00 on Small is refused
