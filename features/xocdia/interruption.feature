@xocdia @needs-restart @REG-INTR-01
Feature: Xoc Dia: a round interrupted by a server restart
  An interrupted round (lost connection, server restart) keeps its confirmed bets and can be
  completed or returned. The lab restarts the server in the middle of the round, as after a
  crash; when it answers again, every confirmed bet is still there and the dealer returns the
  round.

  Rule: after a restart the confirmed bets stand and the round can be returned

    @TBL-MAL-03 @REG-MONEY-01
    Scenario: The server restarts while betting is still open, and the dealer then cancels the round
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on One white three red
      When the server restarts
      Then the player's confirmed bets are all still there
      When the dealer cancels the interrupted round
      Then every bet of every player is returned and nothing is paid
