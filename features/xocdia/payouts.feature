@xocdia @REG-MONEY-01
Feature: Xoc Dia: the colour bets
  Four red and four white pay 14:1, one white three red and three white one red 2.8:1, two white
  two red 1.5:1, and four of a colour (four white or four red) 6.5:1.

  Rule: each colour bet pays its odds on its colours and loses on any other

    Scenario Outline: <bet> on <tokens>
      Given a player with a balance of 1000.00
      And the player bets 10.00 on <bet>
      When betting ends
      And the dealer lifts the bowl showing <tokens>
      Then the <bet> bet <settles>
      And the player's balance is <balance>

      @XD-PAY-01
      Examples: four red, 14:1
        | bet      | tokens  | settles     | balance |
        | Four red | r r r r | wins 140.00 | 1140.00 |
        | Four red | w r r r | loses       | 990.00  |
        | Four red | w w w w | loses       | 990.00  |

      @XD-PAY-02
      Examples: one white three red, 2.8:1
        | bet                 | tokens  | settles    | balance |
        | One white three red | w r r r | wins 28.00 | 1028.00 |
        | One white three red | r r w r | wins 28.00 | 1028.00 |
        | One white three red | w w w r | loses      | 990.00  |
        | One white three red | r r r r | loses      | 990.00  |

      @XD-PAY-03
      Examples: two white two red, 1.5:1
        | bet               | tokens  | settles    | balance |
        | Two white two red | w w r r | wins 15.00 | 1015.00 |
        | Two white two red | r w r w | wins 15.00 | 1015.00 |
        | Two white two red | w r r r | loses      | 990.00  |
        | Two white two red | w w w r | loses      | 990.00  |

      @XD-PAY-04
      Examples: three white one red, 2.8:1
        | bet                 | tokens  | settles    | balance |
        | Three white one red | w w w r | wins 28.00 | 1028.00 |
        | Three white one red | r w w w | wins 28.00 | 1028.00 |
        | Three white one red | w r r r | loses      | 990.00  |
        | Three white one red | w w w w | loses      | 990.00  |

      @XD-PAY-05
      Examples: four white, 14:1
        | bet        | tokens  | settles     | balance |
        | Four white | w w w w | wins 140.00 | 1140.00 |
        | Four white | w w w r | loses       | 990.00  |
        | Four white | r r r r | loses       | 990.00  |

      @XD-PAY-06
      Examples: four of a colour, 6.5:1
        | bet              | tokens  | settles    | balance |
        | Four of a colour | w w w w | wins 65.00 | 1065.00 |
        | Four of a colour | r r r r | wins 65.00 | 1065.00 |
        | Four of a colour | w r r r | loses      | 990.00  |
        | Four of a colour | w w w r | loses      | 990.00  |
        | Four of a colour | w w r r | loses      | 990.00  |
