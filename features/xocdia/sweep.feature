@xocdia @sweep
Feature: Xoc Dia: every selection on every result
  The exhaustive sweep: for each of the 16 ordered results of four tokens, one round with a bet of
  1.00 on every one of the 10 selections, each settlement checked against the paytable. A mismatch
  names the clause of the selection it breaks.

  @XD-GEN-01 @XD-PAY-01 @XD-PAY-02 @XD-PAY-03 @XD-PAY-04 @XD-PAY-05 @XD-PAY-06 @XD-PAY-07
  @XD-PAY-08 @XD-PAY-09 @XD-PAY-10 @REG-SETTLE-01
  Scenario Outline: Every selection settles by the paytable on <tokens>
    Given a player bets 1.00 on every Xoc Dia selection
    When betting ends
    And the dealer lifts the bowl showing <tokens>
    Then every bet is settled as the paytable says

    Examples:
      | tokens  |
      | r r r r |
      | r r r w |
      | r r w r |
      | r r w w |
      | r w r r |
      | r w r w |
      | r w w r |
      | r w w w |
      | w r r r |
      | w r r w |
      | w r w r |
      | w r w w |
      | w w r r |
      | w w r w |
      | w w w r |
      | w w w w |
