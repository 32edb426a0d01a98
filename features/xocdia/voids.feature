@xocdia @REG-MONEY-01
Feature: Xoc Dia: void and cancelled rounds
  If the dealer forgets to shake, or the bowl is lifted before the betting period ends, the round
  is void and all bets are returned. If the bowl touches any token while the dealer lifts it, the
  round is cancelled and all bets are returned. Player H stakes the table's largest stake on a
  selection the revealed tokens win: a void pays nothing but the stakes back, at any stake.

  Background:
    Given player A has a balance of 1000.00
    And player B has a balance of 500.00

  Rule: a result revealed before betting ends voids the round

    @XD-VOID-01 @REG-RECALL-01
    Scenario: The bowl is lifted before the betting period ends
      Given player A bets 10.00 on Big
      And player B bets 5.00 on Odd
      And player B bets 2.00 on Four red
      And player H bets the table's largest stake on Four red
      When the dealer lifts the bowl before betting ends, showing r r r r
      Then the round is void
      And every bet of every player is returned and nothing is paid
      And the bet record shows each bet of the round as void

  Rule: a round the dealer forgot to shake is void

    @XD-VOID-01 @REG-RECALL-01
    Scenario: The dealer forgets to shake the bowl
      Given the dealer forgets to shake the bowl
      And player A bets 10.00 on Small
      And player B bets 5.00 on Two white two red
      And player H bets the table's largest stake on Two white two red
      When betting ends
      And the dealer lifts the bowl showing w w r r
      Then the round is void
      And every bet of every player is returned and nothing is paid
      And the bet record shows each bet of the round as void

    @XD-VOID-01 @XD-RND-01
    Scenario: A shake after the betting period is too late: the round is still void
      Given the dealer forgets to shake the bowl
      And player A bets 10.00 on Big
      And betting has ended
      Then the dealer's shake is refused now that betting has ended
      When the dealer lifts the bowl showing r r r w
      Then the round is void
      And every bet of every player is returned and nothing is paid

  Rule: the bowl touching a token cancels the round

    @XD-VOID-02 @REG-RECALL-01
    Scenario: The bowl touches a token as it is lifted
      Given player A bets 10.00 on Even
      And player B bets 5.00 on Four white
      And player B bets 1.23 on Big
      When betting ends
      And the bowl touches a token as the dealer lifts it
      Then the round is cancelled
      And every bet of every player is returned and nothing is paid
      And the bet record shows each bet of the round as cancelled
