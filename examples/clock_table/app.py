"""A live table on its own clock, over a plain WebSocket: the second live-table example.

Two fixed tables (`sicbo-1`, `xocdia-1`) play rounds on their own timer whatever their players
do: a round opens (`round_open`), takes bets for `--betting-ms` (1 s by default), closes
(`round_close`), shows its result (`round_result`), settles (each bet's `bet_settled` and a
`wallet` push to its player), and the next round opens. A round with bets waits up to
`--settle-ms` after its close for the lab's outcome (`POST /api/test/next-outcome {table |
round, dice | tokens}`) or the lab's word that it forces none (`POST /api/test/deal {table}`),
then draws one.

Everything is on one port. `GET /ws` is a plain WebSocket of JSON frames, each with a `type`:
`?token=` (or a first frame `{type: auth, token}`) makes it a player's connection, none a
spectator's; `{type: join, table}` is answered `{type: joined, ...}` and the table's rounds are
pushed from then on; `{type: bet, round, selection, amount}` (amount a decimal string, "10.00")
is answered by ONE frame `{type: bet_ack, ok: true, bet: {id, selection, amount}}` or
`{type: bet_ack, ok: false, code, message}`, then the player's wallet is pushed (`{type: wallet,
balance: "..."}`) on every connection of the player. `POST /api/bet` takes the same bet over
HTTP with the same answer. Players are lent
accounts (`POST /api/login {user, password}` -> `{token, player: {id, name}}`); balances are
read (`GET /api/wallet`), never set. `GET /api/me/history?round=R` is the caller's own bet record,
naming no player. The table limits are 1.00 to 5,000.00 a bet, refused outside them (`LIMIT`).

`--no-ack`: a bet taken gets no reply at all; it shows only in a pushed `{type: bets, round, bets:
[...]}` (the player's bets on the round) and the wallet push (a refusal is an `error` frame).

Seeded faults (`--fault NAME`, repeatable), each breaking one duty:
- `result-before-close`: the result is pushed before the close, and bets are still taken for a
  moment after it, on the result shown (Sic Bo REG-COMMIT-01 and SB-RND-03: the dice are entered
  after betting ends; Xoc Dia XD-VOID-01: a bowl lifted before betting ends voids the round, this
  table settles it, and REG-COMMIT-01 where a bet lands in that moment).
- `double-settle-on-rejoin`: a player whose connection closed while holding a bet on a round not
  yet revealed, and who joins the table again before it settles, is settled twice for each bet:
  two `bet_settled` pushes and the wallet credited twice (REG-MONEY-01, TBL-DISC-02).
- `late-ack`: a bet sent while betting is open is acknowledged, and taken, after the close went
  out (SB-RND-01 / XD-RND-01, REG-COMMIT-01).
- `disconnected-bet-never-settled`: a player with no connection open when the round settles is
  never credited nor told (TBL-DISC-02: what the table owes such a player is the disconnection's
  duty, money conservation not being judgeable on settlements never shown).
- `refund-push-misreported`: a refunded bet (Xoc Dia Big/Small on w w r r) is pushed as a win
  returning a cent more than the stake; the wallet gets the stake back (REG-SETTLE-01, XD-PAY-09
  / XD-PAY-10, REG-MONEY-01: the wallet is not the start less the stakes plus the returns told;
  REG-RTP-01 and XD-RTP-01: the returns the sweep measures are those told).

`python -m examples.clock_table.selftest` holds each fault to exactly these clauses per game.
"""

from starlette.applications import Starlette

from examples.clock_table.tables import FAULTS, TABLES, ClockTables, Timing
from examples.clock_table.web import app

__all__ = ["FAULTS", "TABLES", "ClockTables", "Timing", "build"]


def build(tables: ClockTables) -> Starlette:
    """The ASGI application serving `tables` (its timers run with the application)."""
    return app(tables)
