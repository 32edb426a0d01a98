@sicbo @rtp
Feature: Sic Bo: return to player
  Over the 216 equally likely rolls, what the implementation returned for each selection must be
  exactly its theoretical return, and the best of them the game's maximum RTP of 97.22% (Small,
  Big, Odd and Even at 105 of 216 rolls, paid 1:1).

  @REG-RTP-01
  Scenario: Every selection returns exactly its theoretical share over the 216 rolls
    Given every roll of three dice has been played with a bet on every Sic Bo selection
    Then the measured return of every selection equals its theoretical return

  @SB-RTP-01 @REG-RTP-01
  Scenario: The highest return is the game's maximum RTP
    Given every roll of three dice has been played with a bet on every Sic Bo selection
    Then the highest return is the declared maximum RTP of 97.22%
