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
