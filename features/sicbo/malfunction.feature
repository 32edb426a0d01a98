@sicbo @needs-pause @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: malfunction, pause and cancellation
  On an unexpected problem with the game, system or procedure the round is paused while the dealer
  informs the supervisor; while paused it takes no bet and no result. If the problem is resolved
  quickly the round resumes and continues as usual; if not, it is cancelled and every bet refunded.

  Rule: a paused round takes no bet and no result, and resumes as usual

    @TBL-MAL-01 @TBL-MAL-02
    Scenario: The Sic Bo round is paused during betting and resumes
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      When the dealer pauses the round for a malfunction
      Then a new bet of 5.00 on Big is refused
      And a result is refused while the round is paused
      When the dealer resumes the round
      Then the betting period goes on for the time that was left when it was paused
      And a new bet of 10.00 on Total 15 is taken
      When betting ends
      And the dealer enters 4 5 6
      Then the Big bet wins 10.00
      And the Total 15 bet wins 180.00
      And the player's balance is 1190.00

    @TBL-MAL-01 @TBL-MAL-02 @SB-RND-01 @REG-COMMIT-01
    Scenario: The Sic Bo round is paused after betting ended and resumes
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on Total 15
      And betting has ended
      When the dealer pauses the round for a malfunction
      Then a result is refused while the round is paused
      When the dealer resumes the round
      When the dealer enters 4 5 6
      Then the Big bet wins 10.00
      And the Total 15 bet wins 180.00
      And the player's balance is 1190.00

  Rule: a round that cannot be resumed is cancelled and every bet refunded

    Player H stakes the table's largest stake: every stake comes back to the wallet, the largest
    too.

    @TBL-MAL-03 @REG-RECALL-01
    Scenario: The Sic Bo round is cancelled after a pause
      Given player A has a balance of 1000.00
      And player B has a balance of 300.00
      And player A bets 10.00 on Big
      And player B bets 2.50 on Total 15
      And player B bets 7.25 on Big
      And player H bets the table's largest stake on Big
      When the dealer pauses the round for a malfunction
      And the dealer cancels the round
      Then the round is cancelled
      And every bet of every player is returned and nothing is paid
      And the bet record shows each bet of the round as cancelled
