@xocdia @timing @REG-SETTLE-01 @REG-MONEY-01
Feature: Xoc Dia: bets only during the betting period
  During the betting period the dealer covers the plate and shakes; bets are taken then and only
  then. A bet after the countdown, after betting was closed or after the bowl was lifted is refused
  and moves no money.

  Rule: a bet inside the countdown is taken

    @XD-RND-01
    Scenario: A Xoc Dia bet just inside the countdown
      Given a Xoc Dia round opens with a countdown of 2 seconds
      Then the round shows its betting period ending 2 seconds after it opened
      When the player tries to bet 10.00 on Big
      Then the bet is taken

  Rule: a bet outside the betting period is refused and moves no money

    @XD-RND-01 @REG-COMMIT-01
    Scenario: A Xoc Dia bet after the countdown ran out
      Given a Xoc Dia round opens with a countdown of 0.8 seconds
      When the countdown runs out
      And the player tries to bet 10.00 on Small
      Then the bet is refused and the balance is unchanged

    @XD-RND-01 @REG-COMMIT-01
    Scenario: A Xoc Dia bet after the bowl was lifted
      Given a player bets 10.00 on Even
      When betting ends
      And the dealer lifts the bowl showing w w r r
      And the player tries to bet 10.00 on Odd
      Then the bet is refused and the balance is unchanged
