"""The JSON Schema of a mapping file (version 1). `docs/mapping.md` explains every key."""

from typing import Any

from livecert.adapters.mapping.stream_spec import (
    STREAM_ACTIONS,
    WAITS,
    emit_operation,
    stream_operation,
    streams_schema,
    wait_operation,
)

ROLES = ("operator", "dealer", "player", "anonymous")
_STR = {"type": "string"}
_STRMAP = {"type": "object", "additionalProperties": {"type": ["string", "null"]}}
_TEMPLATE: dict[str, Any] = {}  # any JSON value; placeholders are checked when rendered
_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
_MONEY = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "scale": {"enum": ["units", "minor"]},
        "format": {"enum": ["integer", "number", "string", "locale"]},
        "thousands": _STR,
        "decimal": _STR,
        "strict": {"type": "boolean"},  # another notation of an amount is refused (docs/mapping.md)
    },
}
_REQUEST = {
    "type": "object",
    "additionalProperties": False,
    "required": ["method", "path"],
    "properties": {
        "method": {"enum": _METHODS},
        "path": {"type": "string", "pattern": "^/"},
        "query": {"type": "object"},
        "headers": {"type": "object"},
        "json": _TEMPLATE,
        "form": {"type": "object"},
    },
    "not": {"required": ["json", "form"]},
}
# an operation's request that differs per game: the call's game picks one (document.py checks
# that the operation is given the game and that every declared game has one)
_OPERATION_REQUEST = {
    "if": {"required": ["per_game"]},
    "then": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "per_game": {
                "type": "object",
                "propertyNames": {"enum": ["sicbo", "xocdia"]},
                "additionalProperties": _REQUEST,
                "minProperties": 1,
            }
        },
    },
    "else": _REQUEST,
}
_RESPONSES = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "data": _STR,
        "success": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "path": _STR,
                "equals": {},
                "in": {"type": "array"},
                "status": {"type": "array", "items": {"type": "integer"}},
            },
        },
        "error": {
            "type": "object",
            "additionalProperties": False,
            "required": ["message"],
            "properties": {"code": _STR, "message": _STR},
        },
    },
}
_FIELD = {
    "oneOf": [
        _STR,
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "path": _STR,
                "values": {"oneOf": [_STR, _STRMAP]},
                "as": {"enum": ["money", "selection", "int", "str", "list", "result"]},
                "money": _MONEY,
                "shape": _STR,
                "default": {},
                "const": {},  # the value as given, no path read (document.py: nor a default)
                "dice": _STR,
                "total": _STR,
                "tokens": _STR,
                "cookie": _STR,
                "pattern": _STR,
                "split": _STR,
                # a round's bets settled in the slip's order (an instant round's settlement
                # texts that name no stake, or name the same code twice)
                "match": {"enum": ["order", "selection"]},
            },
        },
    ]
}
_POLL = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "operation": _STR,
        "while": {"type": "object", "additionalProperties": {"type": "array"}},
        "until": {"type": "object", "additionalProperties": {"type": "array"}},
        "new_round": {"type": "boolean"},
        "interval_ms": {"type": "integer", "minimum": 1},
        "timeout_ms": {"type": "integer", "minimum": 1},
    },
}
_STEP = {
    "type": "object",
    "additionalProperties": False,
    "required": ["request"],
    "properties": {
        "role": {"enum": list(ROLES)},
        "request": _REQUEST,
        "capture": {"type": "object", "additionalProperties": _STR},
        "responses": _RESPONSES,
    },
}
# a hook that runs a lab-supplied command instead of a request (set-up a target has no API for:
# an account created with the casino's own admin script); its output is JSON, captured like an
# answer, and the captures it names as secret are masked in the evidence
_COMMAND_STEP = {
    "type": "object",
    "additionalProperties": False,
    "required": ["command"],
    "properties": {
        "command": {"type": "array", "items": _STR, "minItems": 1},
        "capture": {"type": "object", "additionalProperties": _STR},
        "secret": {"type": "array", "items": _STR},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 600},
    },
}
_HOOK = {"oneOf": [_STEP, _COMMAND_STEP]}
_OPERATION = {  # a step (one request) and what the operation adds: reading, hooks, polling
    "type": "object",
    "additionalProperties": False,
    "required": ["request"],
    "properties": {
        **_STEP["properties"],
        "request": _OPERATION_REQUEST,
        "answer": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "from": _STR,
                "shape": _STR,
                "fields": {"type": "object", "additionalProperties": _FIELD},
            },
        },
        "then": {"type": "array", "items": _HOOK},
        "before": {"type": "array", "items": _HOOK},
        "poll": _POLL,
        "resend_safe": {"type": "boolean"},
        "settlement": {"enum": ["from-balance"]},
    },
}
_ANSWER = _OPERATION["properties"]["answer"]
# operations a live table may perform over its stream instead of a request (stream_spec.py):
# the key that says so picks the schema, so a request's mistakes are still named precisely
_OVER_STREAM = {
    **{name: ("wait", wait_operation(_HOOK)) for name in WAITS},
    "place_bets": ("emit", emit_operation(_ANSWER, _RESPONSES)),
    **{name: ("stream", stream_operation(action)) for name, action in STREAM_ACTIONS.items()},
}
OPERATION_NAMES = [
    "info",
    "create_player",
    "create_table",
    "open_round",
    "close_betting",
    "place_bets",
    "record_reshake",
    "record_event",
    "pause_round",
    "resume_round",
    "cancel_round",
    "void_round",
    "enter_result",
    "get_round",
    "get_round_as_player",
    "balance",
    "withdraw_bet",
    "bet_record",
    "connect",
    "disconnect",
    "statistics",
    "play_round",
    "end_session",
    "restart_target",
    "round_history",
]
MAPPING_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "additionalProperties": False,
    "required": ["mapping", "name", "declares", "operations", "selections"],
    "properties": {
        "mapping": {"const": 1},
        "name": _STR,
        "base_url": {"type": "string", "pattern": "^https?://"},
        "declares": {
            "type": "object",
            "additionalProperties": False,
            # max_rtp is optional: a table that publishes none leaves the check of a declared
            # maximum not testable (document.py reads its absence as "declares none")
            "required": ["games", "currency", "minor_unit", "rounding"],
            "properties": {
                "implementation": {
                    "type": "object",
                    "properties": {"name": _STR, "version": _STR},
                    "additionalProperties": False,
                },
                "games": {"type": "array", "items": {"enum": ["sicbo", "xocdia"]}, "minItems": 1},
                "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "minor_unit": {"type": "integer", "minimum": 0, "maximum": 4},
                "rounding": {"enum": ["down", "up", "half-up", "half-even"]},
                "max_rtp": {
                    "type": "object",
                    "additionalProperties": {"type": "string", "pattern": r"^\d+(\.\d+)?$"},
                },
                "limits": {
                    "type": "object",
                    "propertyNames": {"enum": ["sicbo", "xocdia"]},
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": False,
                        "minProperties": 1,
                        "properties": {
                            name: {"type": "string", "pattern": r"^\d+(\.\d+)?$"}
                            for name in ("min_bet", "max_bet", "min_slip", "max_slip")
                        },
                    },
                },
                "capabilities": {
                    "type": "array",
                    "items": {
                        "enum": [
                            "pause",
                            "statistics",
                            "disconnect",
                            "reshake",
                            "idempotency",
                            "batch-bets",
                            "instant-round",
                            "round-history",
                        ]
                    },
                },
            },
        },
        "accounts": {
            "type": "object",
            "additionalProperties": False,
            "required": ["env"],
            "properties": {
                "env": _STR,
                "logins_at_once": {"type": "integer", "minimum": 1},
            },
        },
        "variables": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "required": ["env"],
                "properties": {"env": _STR, "default": _STR, "secret": {"type": "boolean"}},
            },
        },
        "sessions": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "required": ["login"],
                "properties": {
                    "login": _REQUEST,
                    "logged_in": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "cookie": _STR,
                            "status": {"type": "array"},
                            # a login judged by its body: {path, equals} or {path, in}
                            "body": {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["path"],
                                "properties": {
                                    "path": _STR,
                                    "equals": {},
                                    "in": {"type": "array"},
                                },
                            },
                        },
                    },
                    "secure_cookies_over_http": {"type": "boolean"},
                    "expired": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "status": {"type": "array", "items": {"type": "integer"}},
                            "location_contains": _STR,
                            "error_code": {"type": "array", "items": _STR},
                        },
                    },
                },
            },
        },
        "roles": {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {
                f"^({'|'.join(ROLES)})$": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "session": _STR,
                        "headers": {"type": "object"},
                        "cookies": {"type": "object", "additionalProperties": _STR},
                    },
                }
            },
        },
        "responses": _RESPONSES,
        "streams": streams_schema(_ANSWER),
        "money": _MONEY,
        "outcomes": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "dice_order": {"enum": ["as-entered", "sorted"]},
                "red": _STR,
                "white": _STR,
            },
        },
        "values": {"type": "object", "additionalProperties": _STRMAP},
        "selections": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"sicbo": {"type": "object"}, "xocdia": {"type": "object"}},
        },
        "shapes": {
            "type": "object",
            "additionalProperties": {"type": "object", "additionalProperties": _FIELD},
        },
        "operations": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                **{name: _OPERATION for name in OPERATION_NAMES},
                **{
                    name: {"if": {"required": [key]}, "then": alt, "else": _OPERATION}
                    for name, (key, alt) in _OVER_STREAM.items()
                },
                # a target with no table API: its fixed table per game, no request
                "create_table": {
                    "oneOf": [
                        _OPERATION,
                        {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["fixed"],
                            "properties": {
                                "fixed": {
                                    "type": "object",
                                    "propertyNames": {"enum": ["sicbo", "xocdia"]},
                                    "additionalProperties": _STR,
                                    "minProperties": 1,
                                }
                            },
                        },
                    ]
                },
            },
        },
    },
}
