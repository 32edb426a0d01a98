@sicbo @timing @REG-SETTLE-01 @REG-MONEY-01
Feature: Sic Bo: bets only during the countdown
  A new round opens with a countdown for placing bets; bets are taken only during it. A bet that
  arrives after the betting period, after the dealer closed it or after the result is refused and
  moves no money (a bet is committed before the outcome is determined).

  Rule: a bet inside the countdown is taken

    @SB-RND-01
    Scenario: A bet just inside the countdown
      Given a Sic Bo round opens with a countdown of 2 seconds
      Then the round shows its betting period ending 2 seconds after it opened
      When the player tries to bet 10.00 on Big
      Then the bet is taken

  Rule: a bet outside the betting period is refused and moves no money

    @SB-RND-01 @REG-COMMIT-01
    Scenario: A bet after the countdown ran out
      Given a Sic Bo round opens with a countdown of 0.8 seconds
      When the countdown runs out
      And the player tries to bet 10.00 on Big
      Then the bet is refused and the balance is unchanged

    @SB-RND-01 @REG-COMMIT-01
    Scenario: A bet after the dealer closed betting
      Given a Sic Bo round opens with a countdown of 60 seconds
      When the dealer closes betting
      And the player tries to bet 10.00 on Small
      Then the bet is refused and the balance is unchanged

    @SB-RND-01 @REG-COMMIT-01
    Scenario: A bet after the result
      Given a player bets 10.00 on Odd
      When betting ends
      And the dealer enters 2 3 4
      And the player tries to bet 10.00 on Total 9
      Then the bet is refused and the balance is unchanged

    @SB-RND-01
    Scenario: A bet on a round the dealer never opened
      Given a player with a balance of 100.00
      When the player tries to bet 10.00 on a round that was never opened
      Then the bet is refused and the balance is unchanged
