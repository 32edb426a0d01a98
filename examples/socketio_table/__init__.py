"""A live-dealer table pushed over Socket.IO (examples/socketio_table/app.py): the shape of the
public Tai Xiu / Xoc Dia servers, for certifying such a server through a stream."""
