"""Harness logic above the adapters: words, settlement checks, the sweep, the embedded target."""
