@xocdia @needs-idempotency @REG-SETTLE-01 @REG-MONEY-01
Feature: Xoc Dia: a bet slip sent twice is applied once
  A slip re-sent with the same idempotency key is applied once: one bet, one debit.

  Rule: the same slip with the same key is one bet

    @REG-IDEMP-01
    Scenario: A Xoc Dia slip is sent twice with the same key
      Given a player with a balance of 100.00
      When the player's slip of 10.00 on Even is sent twice with the same idempotency key
      Then the round holds exactly one bet of 10.00 on Even
      And the player's balance is 90.00
