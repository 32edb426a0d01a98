"""A failed scenario's requests as a shell script that runs as written against a fresh target.

The evidence holds the run's own ids (a player, a table, a round) and masked tokens, which mean
nothing to another server or another day. The script makes its own: every id and token an
answer introduced is captured from that answer when the script runs (`python3` reads the JSON)
and written as a variable wherever the run sent it later; a player's requests carry the token
the script got for that player; an idempotency key gets the script's own run id, so that a
second run is not answered from the first. The base URL and the operator's and dealer's tokens
come from the environment, never from the report.
"""

import json
import re
import shlex
from collections.abc import Iterator
from urllib.parse import urlsplit

from ahocorasick_rs import AhoCorasick

from livecert.adapters.evidence import LAB_COMMAND, MUTATED, Exchange
from livecert.target_text import has_lone_surrogate, visible

ID_FIELDS = {"player_id": "PLAYER", "table_id": "TABLE", "round_id": "ROUND", "bet_id": "BET"}
ROLE_TOKENS = {"operator": "LIVECERT_OPERATOR_TOKEN", "dealer": "LIVECERT_DEALER_TOKEN"}
MOST_REQUESTS = 200  # a longer scenario is replayed with `livecert replay`, not a script
MIN_ID_LENGTH = 4  # a shorter id ("12") would be found inside amounts: written as sent


def _captures(answer: object, path: str = "") -> Iterator[tuple[str, str, str]]:
    """(json path, field, value) of each id or token in an answer: at its top level, and in
    its list of bets."""
    if not isinstance(answer, dict):
        return
    for field, value in answer.items():
        named = field in ID_FIELDS or field == "token"
        if named and isinstance(value, str) and len(value) >= MIN_ID_LENGTH:
            yield f"{path}{field}", field, value
    if not path:
        for index, bet in enumerate(answer.get("bets") or []):
            yield from _captures(bet, f"bets.{index}.")


def _id_character(character: str) -> bool:
    """A character an id runs on with (a regex's `[\\w-]`): a value next to one is part of a
    longer word, not a whole id."""
    return character.isalnum() or character in "_-"


def _whole_spans(text: str, automaton: AhoCorasick) -> list[tuple[int, int]]:
    """Where the automaton's values stand whole in `text`, left to right, the longest at each
    place: what a regex alternation of them, longest first, between `(?<![\\w-])` and
    `(?![\\w-])`, finds (an automaton of a hundred ids is built fifteen times faster than that
    regex is compiled)."""
    whole = [
        (start, end)
        for _, start, end in automaton.find_matches_as_indexes(text, overlapping=True)
        if (start == 0 or not _id_character(text[start - 1]))
        and (end == len(text) or not _id_character(text[end]))
    ]
    whole.sort(key=lambda span: (span[0], -span[1]))
    spans, at = [], 0
    for start, end in whole:
        if start >= at:
            spans.append((start, end))
            at = end
    return spans


def _whole_spans_by_regex(text: str, known: dict[str, str]) -> list[tuple[int, int]]:
    """The same spans found by that regex itself: for a text or an id holding a lone surrogate
    (JSON's "\\ud800", which Python's reader keeps), which the automaton cannot read."""
    alternatives = "|".join(re.escape(v) for v in sorted(known, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")
    return [found.span() for found in pattern.finditer(text)]


def _automaton(known: dict[str, str]) -> AhoCorasick | None:
    """The automaton of the known values; None when there is none, or when one of them holds a
    lone surrogate, which the automaton cannot take (the regex finds them all then)."""
    if not known or any(has_lone_surrogate(value) for value in known):
        return None
    return AhoCorasick(list(known))


def _written(text: str, known: dict[str, str], automaton: AhoCorasick | None) -> str:
    """`text` as a shell word: its literal parts quoted, each known value (found whole by
    `automaton`, made of `known`; by the regex when there is none) as its variable."""
    if not known:
        return shlex.quote(text)
    if automaton is not None and not has_lone_surrogate(text):
        spans = _whole_spans(text, automaton)
    else:
        spans = _whole_spans_by_regex(text, known)
    parts, at = [], 0
    for start, end in spans:
        if start > at:
            parts.append(shlex.quote(text[at:start]))
        parts.append(f'"${{{known[text[start:end]]}}}"')
        at = end
    if at < len(text):
        parts.append(shlex.quote(text[at:]))
    return "".join(parts) or "''"


class ScriptWriter:
    """Turns exchanges, in order, into the lines of a script, learning ids as it goes."""

    def __init__(self, base_url: str) -> None:
        self.base = base_url.rstrip("/")
        self.known: dict[str, str] = {}  # a value the run saw -> the script's variable
        self.counts: dict[str, int] = {}
        self.token_of: dict[str, str] = {}  # a player's id variable -> its token variable
        self.last_player = ""
        self._automaton: AhoCorasick | None = None  # of `known` when it held _automaton_of
        self._automaton_of = 0

    def _word(self, text: str) -> str:
        """`text` as a shell word, each value learnt so far as its variable. The automaton of
        the known values is built again only when one was learnt since (`known` only grows):
        a slip's answer brings a hundred ids, and compiling them into a regex for every word
        of every later request was most of the time a failed sweep scenario's script took."""
        if self._automaton_of != len(self.known):
            self._automaton, self._automaton_of = _automaton(self.known), len(self.known)
        return _written(text, self.known, self._automaton)

    def _name(self, kind: str) -> str:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        return f"{kind}_{self.counts[kind]}"

    def _player_token(self, exchange: Exchange, answer: object) -> str:
        """The token variable of the player a request acts for: the player its URL names, else
        the one its answer's bets name, else the player made last."""
        seen = exchange.url + " " + json.dumps(answer)
        for value, variable in self.known.items():
            if variable in self.token_of and value in seen:
                return self.token_of[variable]
        return self.token_of.get(self.last_player, "PLAYER_TOKEN")

    def lines(self, exchange: Exchange) -> list[str]:
        if exchange.method == MUTATED:  # nothing was sent: the harness altered what it read
            return [f"# not replayed: {visible(exchange.as_curl())}"]
        if exchange.method == LAB_COMMAND or exchange.headers is not None:
            # a comment of one line whatever it holds: a newline in a value a target chose
            # (an id in a mapping's path) would otherwise start a command of its own
            return [
                "# not replayed by the script (a lab's command or a mapping's request):",
                f"#   {visible(exchange.as_curl())}",
            ]
        try:
            answer = json.loads(exchange.response_body or "null")
        except ValueError:
            answer = None
        if exchange.url.startswith(self.base):
            path = exchange.url[len(self.base) :]
        else:
            split = urlsplit(exchange.url)
            path = split.path + (f"?{split.query}" if split.query else "")
        command = ["curl", "-sS", "-X", exchange.method, '"$BASE"' + self._word(path)]
        if exchange.role == "player":
            command += ["-H", f'"Authorization: Bearer ${self._player_token(exchange, answer)}"']
        elif exchange.role in ROLE_TOKENS:
            command += ["-H", f'"Authorization: Bearer ${ROLE_TOKENS[exchange.role]}"']
        if exchange.idempotency_key:
            key = self._word(exchange.idempotency_key)
            command += ["-H", f'"Idempotency-Key: "{key}"-$RUN"']
        if exchange.request_body is not None:
            command += ["-H", "'Content-Type: application/json'"]
            command += ["--data", self._word(exchange.request_body)]
        said = f"# {visible(exchange.operation)}: the run got {exchange.status}"
        out = [said, f"ANSWER=$({' '.join(command)})", 'printf "%s\\n" "$ANSWER"']
        for path_in_answer, field, value in _captures(answer):
            if value in self.known:
                continue
            kind = "PLAYER_TOKEN" if field == "token" else ID_FIELDS[field]
            variable = self._name(kind)
            self.known[value] = variable
            out.append(f'{variable}=$(printf "%s" "$ANSWER" | field {path_in_answer})')
            if field == "player_id" and not path_in_answer.startswith("bets."):
                self.last_player = variable
            if field == "token" and self.last_player:
                self.token_of[self.last_player] = variable
        return out


def runnable_script(exchanges: list[Exchange], title: str, said: str, base_url: str) -> str:
    """The scenario's exchanges, from its first, as a script that runs as written."""
    header = [
        "#!/bin/sh",
        f"# livecert reproduction: {visible(title)}",
        *(f"# {visible(line)}" for line in said.splitlines()),
        "#",
        "# Runs as written against a fresh target: it makes its own players, tables and rounds",
        "# and captures their ids and tokens as it goes. Needs curl and python3, and",
        "# LIVECERT_TARGET_URL, LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN.",
        "set -eu",
        'BASE="${LIVECERT_TARGET_URL:-}"',
        f'[ -n "$BASE" ] || BASE={shlex.quote(base_url.rstrip("/"))}',
        'RUN="livecert-script-$(date +%s)-$$"',
        "field() {",
        "  python3 -c 'import json, sys",
        "value = json.load(sys.stdin)",
        'for part in sys.argv[1].split("."):',
        "    value = value[int(part)] if part.isdigit() else value[part]",
        'print(value)\' "$1"',
        "}",
        "",
    ]
    if len(exchanges) > MOST_REQUESTS:
        return "\n".join(
            [
                *header,
                f"# the scenario made {len(exchanges)} requests, more than a script replays;",
                "# run it again with: livecert replay REPORT '<its name>'",
                "exit 2",
                "",
            ]
        )
    writer = ScriptWriter(base_url)
    body = [line for exchange in exchanges for line in writer.lines(exchange)]
    return "\n".join([*header, *body, ""])
