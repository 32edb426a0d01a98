@sicbo @needs-statistics
Feature: Sic Bo: the statistics chart
  The statistics chart shows the results of the previous 50 rounds, newest first. Only rounds with
  a result appear: a cancelled round has none.

  Rule: the chart holds exactly the previous 50 results, newest first

    @SB-STAT-01
    Scenario: After 55 rounds the chart shows the last 50
      Given a new Sic Bo table
      And the dealer has played 55 rounds at it
      Then the statistics chart shows the results of the last 50 rounds, newest first

    @SB-STAT-01
    Scenario: Fewer than 50 rounds are all shown
      Given a new Sic Bo table
      And the dealer has played 7 rounds at it
      Then the statistics chart shows the results of the last 7 rounds, newest first

  Rule: a cancelled round does not appear in the chart

    @SB-STAT-01
    Scenario: A cancelled round is left out
      Given a new Sic Bo table
      And the dealer has played 30 rounds at it
      When the dealer cancels a round at it
      And the dealer plays 25 more rounds at it
      Then the statistics chart shows the results of the last 50 rounds, newest first
