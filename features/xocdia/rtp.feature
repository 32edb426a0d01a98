@xocdia @rtp
Feature: Xoc Dia: return to player
  Over the 16 equally likely results, what the implementation returned for each selection must be
  exactly its theoretical return, and the best of them the game's maximum RTP of 98.75% (Big and
  Small: 5 of 16 results paid 0.96:1 and 6 of 16 returned).

  @REG-RTP-01
  Scenario: Every Xoc Dia selection returns exactly its theoretical share over the 16 results
    Given every result of four tokens has been played with a bet on every Xoc Dia selection
    Then the measured return of every selection equals its theoretical return

  @XD-RTP-01 @REG-RTP-01
  Scenario: The highest Xoc Dia return is the game's maximum RTP
    Given every result of four tokens has been played with a bet on every Xoc Dia selection
    Then the highest return is the declared maximum RTP of 98.75%
