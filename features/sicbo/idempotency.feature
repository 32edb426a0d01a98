@sicbo @needs-idempotency @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: a bet slip sent twice is applied once
  A player's device may send a bet slip again when the answer is lost. A slip re-sent with the
  same idempotency key is applied once: one bet, one debit.

  Rule: the same slip with the same key is one bet

    @REG-IDEMP-01
    Scenario: A slip is sent twice with the same key
      Given a player with a balance of 100.00
      When the player's slip of 10.00 on Big is sent twice with the same idempotency key
      Then the round holds exactly one bet of 10.00 on Big
      And the player's balance is 90.00

  Rule: a slip whose answer was lost on the way is taken once when the app sends it again

    @REG-IDEMP-01
    Scenario: The answer to a bet is lost and the player's app sends the bet again
      Given a player with a balance of 100.00
      When the answer to the player's bet of 10.00 on Big is lost on the way
      And the player's app sends the bet again
      Then the bet is taken once
      And the player's balance is 90.00

    @REG-IDEMP-01
    Scenario: The player's app sends the bet again while the first is still on its way
      Given a player with a balance of 100.00
      When the player's app loses its connection while its bet of 10.00 on Big is on the way
      And the player's app sends the bet again
      Then the bet is taken once
      And the player's balance is 90.00

    @REG-IDEMP-01
    Scenario: The player's app sends the bet again after betting has closed
      Given a player with a balance of 100.00
      When the answer to the player's bet of 10.00 on Big is lost on the way
      And betting ends
      And the player's app sends the bet again
      Then the bet is taken once
      And the player's balance is 90.00
