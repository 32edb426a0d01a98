"""A live-dealer table on its own clock over a plain WebSocket, with lent accounts, table limits
and one-object bet acknowledgements (examples/clock_table/app.py): a second shape of live table,
beside the Socket.IO one, for certifying such a table through a mapping file."""
