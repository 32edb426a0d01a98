@xocdia @needs-reshake @REG-SETTLE-01 @REG-MONEY-01
Feature: Xoc Dia: re-shakes and rearranged tokens
  If the bowl, the plate or tokens fall during shaking, the dealer sets up again and re-shakes; in
  some cases of a standing token the dealer re-shakes; overlapping tokens are rearranged with a
  stick without changing the result. Bets stand, no new bets are taken, and nothing is settled
  until the final result, which settles as usual.

  Rule: a re-shake keeps the bets and takes no new ones

    The betting period stays closed during a re-shake (RULES.md D, "re-shakes"): a bet taken
    after it is the betting window's (XD-RND-01) and REG-COMMIT-01's, not the re-shake's reason.

    @XD-RND-01 @REG-COMMIT-01
    Scenario Outline: The dealer re-shakes because <why>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      And the player bets 10.00 on Two white two red
      When betting ends
      And the dealer re-shakes because <why>
      Then the bets stand and nothing is settled
      And a new bet of 5.00 on Small is refused
      When the dealer lifts the bowl showing w r r r
      Then the Big bet wins 9.60
      And the Two white two red bet loses
      And the player's balance is 999.60

      @XD-RND-03
      Examples: items fell
        | why        |
        | items fell |

      @XD-RND-04
      Examples: a standing token
        | why                 |
        | a token is standing |

  Rule: a re-shake during the betting period leaves betting open

    @XD-RND-01 @XD-RND-03
    Scenario: The tokens fall while the dealer shakes during betting, and the dealer re-shakes
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Big
      When the dealer re-shakes during betting because items fell
      Then the bets stand and nothing is settled
      And a new bet of 10.00 on Small is taken
      When betting ends
      And the dealer lifts the bowl showing w r r r
      Then the Big bet wins 9.60
      And the Small bet loses
      And the player's balance is 999.60

  Rule: rearranging overlapping tokens changes nothing

    @XD-RND-02 @REG-COMMIT-01
    Scenario: The dealer rearranges overlapping tokens with a stick
      Given a player with a balance of 1000.00
      And the player bets 10.00 on Two white two red
      When betting ends
      And the dealer rearranges overlapping tokens with a stick
      Then the bets stand and nothing is settled
      And a new bet of 5.00 on Big is refused
      When the dealer lifts the bowl showing w r w r
      Then the Two white two red bet wins 15.00
      And the player's balance is 1015.00
