@sicbo @needs-restart @REG-INTR-01
Feature: Sic Bo: a round interrupted by a server restart
  An interrupted round (lost connection, server restart) keeps its confirmed bets and can be
  completed or returned. The lab restarts the server in the middle of the round, as after a
  crash; when it answers again, every confirmed bet is still there and the dealer completes the
  round.

  Rule: after a restart the confirmed bets stand and the round is completed with its result

    @REG-SETTLE-01 @REG-MONEY-01 @SB-RND-03 @SB-PAY-02 @SB-PAY-08
    Scenario: The server restarts after betting has ended, and the dealer then enters the result
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on Total 15
      And betting has ended
      When the server restarts
      Then the player's confirmed bets are all still there
      When the dealer completes the interrupted round with 4 5 6
      Then the Big bet wins 10.00
      And the Total 15 bet wins 180.00
      And the player's balance is 1190.00
