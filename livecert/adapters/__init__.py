"""Adapters: how the harness talks to a target. Steps use only the TargetAdapter protocol."""

from livecert.adapters.base import TargetAdapter
from livecert.adapters.bounds import Bounds
from livecert.adapters.errors import AdapterError, CredentialsError, Refused, RunCut, TargetError
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.http import HttpAdapter
from livecert.adapters.model import (
    BetRecord,
    BetView,
    HistoryPage,
    HistoryRound,
    PlayerHandle,
    RecordRound,
    RoundView,
    TargetInfo,
)

__all__ = [
    "AdapterError",
    "BetRecord",
    "BetView",
    "Bounds",
    "CredentialsError",
    "Exchange",
    "ExchangeRecorder",
    "HistoryPage",
    "HistoryRound",
    "HttpAdapter",
    "PlayerHandle",
    "RecordRound",
    "Refused",
    "RoundView",
    "RunCut",
    "TargetAdapter",
    "TargetError",
    "TargetInfo",
]
