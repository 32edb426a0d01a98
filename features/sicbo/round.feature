@sicbo @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: a round from bets to winnings
  A player may place several bets, on several bet types, in one round. When betting ends the dealer
  shakes; once the dice stop the dealer enters each die's value, the result is determined and the
  winnings, if any, are paid.

  Rule: several bets of several types in one round all stand and settle

    @SB-RND-02
    Scenario: A player bets on four bet types in one round
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Small
      And the player bets 5.00 on Total 9
      And the player bets 2.00 on Pair of 3s
      And the player bets 1.00 on Three singles 1-3-5
      When betting ends
      And the dealer enters 3 3 3
      Then the Small bet loses
      And the Total 9 bet wins 35.00
      And the Pair of 3s bet wins 20.00
      And the Three singles 1-3-5 bet loses
      And the player's balance is 1044.00

  Rule: the dealer's entry of the dice settles the round and pays the winnings

    @SB-RND-03
    Scenario: Betting ends, the dealer enters the dice, the winnings are paid
      Given player A has a balance of 200.00
      And player B has a balance of 200.00
      And player A bets 20.00 on Big
      And player B bets 20.00 on Small
      And betting has ended
      When the dealer enters 6 5 2
      Then player A's Big bet wins 20.00
      And player B's Small bet loses
      And player A's balance is 220.00
      And player B's balance is 180.00

    @SB-RND-03
    Scenario: When betting ends the dealer shakes the dice cup, and the round keeps the shake
      Given a player with a balance of 100.00
      And the player bets 10.00 on Big
      And betting has ended
      When the dealer shakes the dice cup
      Then the round shows the dealer's shake
      When the dealer enters 4 5 6
      Then the Big bet wins 10.00
      And the player's balance is 110.00
