"""Sao Mai Studio: an example vendor server shaped nothing like the certification contract.

Its own paths, a PHP-style login form with a session cookie, integer cents on the wire, its own
bet codes, a form-encoded bet endpoint with the slip as JSON inside one field, errors as HTTP 200
with `success: false`, the wallet as a locale-formatted string, sorted dice and tokens as 1/0, a
close that completes on the next read, one request that bets and settles (the instant table),
and a back-office page of each table's finished rounds with a cursor of its own (`history.py`).
livecert certifies it through `examples/vendor_server/mapping.yaml`, with no Python of its own.

The game engine underneath is `examples.second_server.casino`; what this package adds is the
vendor's API and its own seeded faults (`faults.py`).
"""
