@sicbo @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: a bet cannot be withdrawn
  Bets placed cannot be withdrawn or cancelled, also not when the dealer re-shakes. The stake stays
  on the table and settles with the round.

  Rule: a withdrawal is refused at every stage and the bet settles as usual

    @SB-RND-04
    Scenario: A withdrawal while betting is still open
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      When the player tries to withdraw the Big bet
      Then the withdrawal is refused
      And the Big bet is still open
      When betting ends
      And the dealer enters 4 5 6
      Then the Big bet wins 10.00
      And the player's balance is 1010.00

    @SB-RND-04
    Scenario: A withdrawal after betting has ended
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Small
      And betting has ended
      When the player tries to withdraw the Small bet
      Then the withdrawal is refused
      And the Small bet is still open
      When the dealer enters 4 5 6
      Then the Small bet loses
      And the player's balance is 990.00

    @SB-RND-04
    Scenario: A withdrawal during a re-shake
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Total 15
      When betting ends
      And the dealer re-shakes because the dice overlap
      And the player tries to withdraw the Total 15 bet
      Then the withdrawal is refused
      And the Total 15 bet is still open
      When the dealer enters 4 5 6
      Then the Total 15 bet wins 180.00
      And the player's balance is 1180.00
