@xocdia @needs-disconnect @REG-SETTLE-01 @REG-MONEY-01
Feature: Xoc Dia: a player who disconnects
  If a player disconnects during a round, the round continues until it completes; all confirmed
  bets stay valid and are settled when the round ends, and the player can review them in the bet
  record, with the balance before and after the round.

  Rule: confirmed bets of a disconnected player settle and are paid

    Player C stays connected and bets the same on Big: where C's bet settles by the paytable and
    the disconnected player's does not, the difference is the disconnection's (TBL-DISC-02).
    Players G and H stake the table's largest stake on Big, G staying connected and H dropping
    with the player: a disconnected player's win is credited at any stake.

    @TBL-DISC-01 @TBL-DISC-02 @TBL-DISC-03 @REG-RECALL-01 @REG-ACCESS-01
    Scenario: The player disconnects after betting ends and reconnects after the result
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on One white three red
      And player C has a balance of 1000.00
      And player C bets 10.00 on Big
      And player G bets the table's largest stake on Big
      And player H bets the table's largest stake on Big
      And betting has ended
      When the player disconnects
      And player H disconnects
      Then the player's bets are still open
      When the dealer lifts the bowl showing w r r r
      And the player reconnects
      And player H reconnects
      Then the Big bet wins 9.60
      And the One white three red bet wins 28.00
      And player C's Big bet wins 9.60
      And the player's balance is 1037.60
      And player G's balance is its start less its stakes plus what the paytable returns
      And player H's balance is its start less its stakes plus what the paytable returns
      And the bet record shows each bet with its outcome and payout

    @TBL-DISC-01 @TBL-DISC-02 @TBL-DISC-03 @REG-RECALL-01 @REG-ACCESS-01
    Scenario: The player disconnects while betting is still open
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on One white three red
      And player C has a balance of 1000.00
      And player C bets 10.00 on Big
      When the player disconnects
      Then the player's bets are still open
      When betting ends
      And the dealer lifts the bowl showing w r r r
      And the player reconnects
      Then the Big bet wins 9.60
      And the One white three red bet wins 28.00
      And player C's Big bet wins 9.60
      And the player's balance is 1037.60
      And the bet record shows each bet with its outcome and payout

  Rule: a player who re-joins before the result is settled once

    A player may drop and come back while the round is still open. Their bets are settled once,
    when the round ends: the balance is its start less the stakes plus what each bet returned, and
    where it is more or less while player C, who stayed connected, was paid right, the difference
    is the disconnection's (TBL-DISC-02).

    @TBL-DISC-01 @TBL-DISC-02 @TBL-DISC-03 @REG-RECALL-01 @REG-ACCESS-01
    Scenario: The player drops and re-joins while betting is still open
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on One white three red
      And player C has a balance of 1000.00
      And player C bets 10.00 on Big
      When the player disconnects
      Then the player's bets are still open
      When the player reconnects
      And betting ends
      And the dealer lifts the bowl showing w r r r
      Then the Big bet wins 9.60
      And the One white three red bet wins 28.00
      And player C's Big bet wins 9.60
      And the player's balance is 1037.60
      And the bet record shows each bet with its outcome and payout

    @TBL-DISC-01 @TBL-DISC-02 @TBL-DISC-03 @REG-RECALL-01 @REG-ACCESS-01
    Scenario: The player drops after betting ends and re-joins before the result
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on One white three red
      And player C has a balance of 1000.00
      And player C bets 10.00 on Big
      And betting has ended
      When the player disconnects
      Then the player's bets are still open
      When the player reconnects
      And the dealer lifts the bowl showing w r r r
      Then the Big bet wins 9.60
      And the One white three red bet wins 28.00
      And player C's Big bet wins 9.60
      And the player's balance is 1037.60
      And the bet record shows each bet with its outcome and payout

  Rule: a disconnected player's bets are refunded when the round is cancelled

    Player C stays connected: where C is refunded and the disconnected player is not, the
    difference is the disconnection's (TBL-DISC-02).

    @TBL-DISC-02 @TBL-MAL-03 @TBL-DISC-03 @REG-RECALL-01
    Scenario: The player disconnects and the round is then cancelled
      Given player A has a balance of 1000.00
      And player C has a balance of 1000.00
      And player A bets 10.00 on Big
      And player C bets 10.00 on Big
      And player A bets 10.00 on One white three red
      When player A disconnects
      Then player A's bets are still open
      When the dealer cancels the round
      And player A reconnects
      Then the round is cancelled
      And every bet of every player is returned and nothing is paid
      And the bet record shows each bet of the round as cancelled
