Feature: Who may do what
  A player acts only for themselves; dealer and operator actions need their own credentials. Each
  role tries each action on a round with a player's bet on it, at both games' tables; only the
  allowed cells succeed.

  Rule: only the right credential may act

    @REG-ACCESS-01
    Scenario Outline: At a <game> table, <who> tries to <action>
      Given a <game> round is open at a new table with a player's bet
      When <who> tries to <action>
      Then it is <verdict>

      @sicbo
      Examples: the operator, Sic Bo
        | game | who | action | verdict |
        | Sic Bo | the operator | create a test player | allowed |
        | Sic Bo | the operator | create a table | allowed |
        | Sic Bo | the operator | open a round | refused |
        | Sic Bo | the operator | close betting | refused |
        | Sic Bo | the operator | enter the result | refused |
        | Sic Bo | the operator | pause the round | refused |
        | Sic Bo | the operator | cancel the round | refused |
        | Sic Bo | the operator | bet on the round | refused |
        | Sic Bo | the operator | read a balance | refused |
        | Sic Bo | the operator | see the player's bets in the round | allowed |

      @sicbo
      Examples: the dealer, Sic Bo
        | game | who | action | verdict |
        | Sic Bo | the dealer | create a test player | refused |
        | Sic Bo | the dealer | create a table | refused |
        | Sic Bo | the dealer | open a round | allowed |
        | Sic Bo | the dealer | close betting | allowed |
        | Sic Bo | the dealer | enter the result | allowed |
        | Sic Bo | the dealer | pause the round | allowed |
        | Sic Bo | the dealer | cancel the round | allowed |
        | Sic Bo | the dealer | bet on the round | refused |
        | Sic Bo | the dealer | read a balance | refused |
        | Sic Bo | the dealer | see the player's bets in the round | allowed |

      @sicbo
      Examples: the player, Sic Bo
        | game | who | action | verdict |
        | Sic Bo | the player | create a test player | refused |
        | Sic Bo | the player | create a table | refused |
        | Sic Bo | the player | open a round | refused |
        | Sic Bo | the player | close betting | refused |
        | Sic Bo | the player | enter the result | refused |
        | Sic Bo | the player | pause the round | refused |
        | Sic Bo | the player | cancel the round | refused |
        | Sic Bo | the player | bet on the round | allowed |
        | Sic Bo | the player | read a balance | allowed |
        | Sic Bo | the player | see the player's bets in the round | allowed |

      @sicbo
      Examples: another player, Sic Bo
        | game | who | action | verdict |
        | Sic Bo | another player | create a test player | refused |
        | Sic Bo | another player | create a table | refused |
        | Sic Bo | another player | open a round | refused |
        | Sic Bo | another player | close betting | refused |
        | Sic Bo | another player | enter the result | refused |
        | Sic Bo | another player | pause the round | refused |
        | Sic Bo | another player | cancel the round | refused |
        | Sic Bo | another player | bet on the round | allowed |
        | Sic Bo | another player | read a balance | allowed |
        | Sic Bo | another player | see the player's bets in the round | refused |

      @sicbo
      Examples: someone with no credentials, Sic Bo
        | game | who | action | verdict |
        | Sic Bo | someone with no credentials | create a test player | refused |
        | Sic Bo | someone with no credentials | create a table | refused |
        | Sic Bo | someone with no credentials | open a round | refused |
        | Sic Bo | someone with no credentials | close betting | refused |
        | Sic Bo | someone with no credentials | enter the result | refused |
        | Sic Bo | someone with no credentials | pause the round | refused |
        | Sic Bo | someone with no credentials | cancel the round | refused |
        | Sic Bo | someone with no credentials | bet on the round | refused |
        | Sic Bo | someone with no credentials | read a balance | refused |
        | Sic Bo | someone with no credentials | see the player's bets in the round | refused |

      @sicbo
      Examples: someone with a forged token, Sic Bo
        | game | who | action | verdict |
        | Sic Bo | someone with a forged token | create a test player | refused |
        | Sic Bo | someone with a forged token | create a table | refused |
        | Sic Bo | someone with a forged token | open a round | refused |
        | Sic Bo | someone with a forged token | close betting | refused |
        | Sic Bo | someone with a forged token | enter the result | refused |
        | Sic Bo | someone with a forged token | pause the round | refused |
        | Sic Bo | someone with a forged token | cancel the round | refused |
        | Sic Bo | someone with a forged token | bet on the round | refused |
        | Sic Bo | someone with a forged token | read a balance | refused |
        | Sic Bo | someone with a forged token | see the player's bets in the round | refused |

      @xocdia
      Examples: the operator, Xoc Dia
        | game | who | action | verdict |
        | Xoc Dia | the operator | create a test player | allowed |
        | Xoc Dia | the operator | create a table | allowed |
        | Xoc Dia | the operator | open a round | refused |
        | Xoc Dia | the operator | close betting | refused |
        | Xoc Dia | the operator | enter the result | refused |
        | Xoc Dia | the operator | pause the round | refused |
        | Xoc Dia | the operator | cancel the round | refused |
        | Xoc Dia | the operator | bet on the round | refused |
        | Xoc Dia | the operator | read a balance | refused |
        | Xoc Dia | the operator | see the player's bets in the round | allowed |

      @xocdia
      Examples: the dealer, Xoc Dia
        | game | who | action | verdict |
        | Xoc Dia | the dealer | create a test player | refused |
        | Xoc Dia | the dealer | create a table | refused |
        | Xoc Dia | the dealer | open a round | allowed |
        | Xoc Dia | the dealer | close betting | allowed |
        | Xoc Dia | the dealer | enter the result | allowed |
        | Xoc Dia | the dealer | pause the round | allowed |
        | Xoc Dia | the dealer | cancel the round | allowed |
        | Xoc Dia | the dealer | bet on the round | refused |
        | Xoc Dia | the dealer | read a balance | refused |
        | Xoc Dia | the dealer | see the player's bets in the round | allowed |

      @xocdia
      Examples: the player, Xoc Dia
        | game | who | action | verdict |
        | Xoc Dia | the player | create a test player | refused |
        | Xoc Dia | the player | create a table | refused |
        | Xoc Dia | the player | open a round | refused |
        | Xoc Dia | the player | close betting | refused |
        | Xoc Dia | the player | enter the result | refused |
        | Xoc Dia | the player | pause the round | refused |
        | Xoc Dia | the player | cancel the round | refused |
        | Xoc Dia | the player | bet on the round | allowed |
        | Xoc Dia | the player | read a balance | allowed |
        | Xoc Dia | the player | see the player's bets in the round | allowed |

      @xocdia
      Examples: another player, Xoc Dia
        | game | who | action | verdict |
        | Xoc Dia | another player | create a test player | refused |
        | Xoc Dia | another player | create a table | refused |
        | Xoc Dia | another player | open a round | refused |
        | Xoc Dia | another player | close betting | refused |
        | Xoc Dia | another player | enter the result | refused |
        | Xoc Dia | another player | pause the round | refused |
        | Xoc Dia | another player | cancel the round | refused |
        | Xoc Dia | another player | bet on the round | allowed |
        | Xoc Dia | another player | read a balance | allowed |
        | Xoc Dia | another player | see the player's bets in the round | refused |

      @xocdia
      Examples: someone with no credentials, Xoc Dia
        | game | who | action | verdict |
        | Xoc Dia | someone with no credentials | create a test player | refused |
        | Xoc Dia | someone with no credentials | create a table | refused |
        | Xoc Dia | someone with no credentials | open a round | refused |
        | Xoc Dia | someone with no credentials | close betting | refused |
        | Xoc Dia | someone with no credentials | enter the result | refused |
        | Xoc Dia | someone with no credentials | pause the round | refused |
        | Xoc Dia | someone with no credentials | cancel the round | refused |
        | Xoc Dia | someone with no credentials | bet on the round | refused |
        | Xoc Dia | someone with no credentials | read a balance | refused |
        | Xoc Dia | someone with no credentials | see the player's bets in the round | refused |

      @xocdia
      Examples: someone with a forged token, Xoc Dia
        | game | who | action | verdict |
        | Xoc Dia | someone with a forged token | create a test player | refused |
        | Xoc Dia | someone with a forged token | create a table | refused |
        | Xoc Dia | someone with a forged token | open a round | refused |
        | Xoc Dia | someone with a forged token | close betting | refused |
        | Xoc Dia | someone with a forged token | enter the result | refused |
        | Xoc Dia | someone with a forged token | pause the round | refused |
        | Xoc Dia | someone with a forged token | cancel the round | refused |
        | Xoc Dia | someone with a forged token | bet on the round | refused |
        | Xoc Dia | someone with a forged token | read a balance | refused |
        | Xoc Dia | someone with a forged token | see the player's bets in the round | refused |
