"""A second, independent implementation of the livecert certification contract.

Written from docs/contract.md, livecert/contract/openapi.yaml and the rules catalogue only, to show
that the certification suite passes an implementation other than the reference. Plain ASGI on
uvicorn, in-memory state, money as integer cents, settlement from precomputed lookup tables.
"""
