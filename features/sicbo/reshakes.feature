@sicbo @needs-reshake @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: re-shakes
  The dealer re-shakes when dice overlap or a die is not flat after shaking, and when the dice
  tumbled fewer than three times. The betting period stays closed: bets stand, no new bets are
  taken, nothing is settled until the final result, which settles as usual.

  Rule: a re-shake keeps the bets, takes no new ones and settles nothing

    @SB-RND-04 @REG-COMMIT-01
    Scenario Outline: The dealer re-shakes because <why>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on Total 10
      When betting ends
      And the dealer re-shakes because <why>
      Then the bets stand and nothing is settled
      And a new bet of 5.00 on Small is refused
      When the dealer enters 4 5 6
      Then the Big bet wins 10.00
      And the Total 10 bet loses
      And the player's balance is 1000.00

      @SB-RND-05
      Examples: dice overlap or a die is not flat
        | why               |
        | the dice overlap  |
        | a die is not flat |

      @SB-RND-06
      Examples: too few tumbles
        | why                                     |
        | the dice tumbled fewer than three times |
