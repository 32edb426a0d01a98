@sicbo @stakes @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: small and odd stakes
  Stakes of the smallest unit and odd amounts settle exactly. A 3:2 win that falls between minor
  units (0.01 at 3:2 is 0.015) is rounded by the rule the implementation declares, and the rules
  catalogue requires the implementation to do exactly what it declares.

  Rule: the smallest unit and odd amounts settle exactly at 1:1

    @SB-PAY-01 @SB-PAY-02
    Scenario Outline: <stake> on <bet>
      Given a player with a balance of 100.00
      And the player bets <stake> on <bet>
      When betting ends
      And the dealer enters <dice>
      Then the <bet> bet wins <stake>
      And the player's balance is <balance>

      Examples:
        | bet   | stake | dice  | balance |
        | Small | 0.01  | 1 2 3 | 100.01  |
        | Small | 0.03  | 2 2 5 | 100.03  |
        | Big   | 12.35 | 4 5 6 | 112.35  |

  Rule: a 3:2 win is rounded to the minor unit by the declared rule

    @SB-PAY-12 @REG-SETTLE-01
    Scenario Outline: <stake> on <bet> wins <exact> before rounding
      Given a player with a balance of 100.00
      And the player bets <stake> on <bet>
      When betting ends
      And the dealer enters <dice>
      Then the <bet> bet wins <exact> before rounding, rounded by the declared rule
      And the player's balance is 100.00 plus the rounded win

      Examples:
        | bet              | stake | dice  | exact  |
        | Two odd one even | 0.01  | 1 3 2 | 0.015  |
        | Two odd one even | 0.03  | 5 6 5 | 0.045  |
        | Two odd one even | 0.05  | 1 1 2 | 0.075  |
        | Two odd one even | 12.35 | 3 3 4 | 18.525 |
        | Two even one odd | 0.01  | 2 4 1 | 0.015  |
        | Two even one odd | 0.03  | 6 6 3 | 0.045  |
        | Two even one odd | 0.05  | 2 2 3 | 0.075  |
        | Two even one odd | 12.35 | 2 2 5 | 18.525 |
        | Two odd one even | 10.00 | 1 1 2 | 15.000 |
