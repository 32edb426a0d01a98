"""A casino shaped like the PHP + MySQL ones labs meet: a cookie login, no player or table API.

An instant Sic Bo and Xoc Dia behind a login form (the player is known only by the PHPSESSID
cookie), one request that bets, plays and settles (the slip a JSON array inside a form field, the
result forced on the test build by an RNG seed), money written "1.234,50", no round or bet ids,
each bet's result only a text in a list, in the slip's order, with the odds it was paid at
(`["small (Won x1)", "big (Lost)"]`), errors as HTTP 200 with `status: error`.
Accounts are created by the casino's own admin command (`python -m examples.cookie_casino.admin`),
which a lab runs; `mapping.yaml` certifies it through those alone. It imports nothing of livecert.
"""
