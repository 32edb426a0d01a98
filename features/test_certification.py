"""Binds every feature file to pytest: one test per scenario (and per Examples row)."""

from pytest_bdd import scenarios

scenarios("sicbo")
scenarios("xocdia")
scenarios("table")
