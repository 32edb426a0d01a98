"""What can go wrong talking to a target, as narrow exceptions the steps and reports tell apart."""

from collections.abc import Callable, Mapping

from livecert.target_text import first_lone_surrogate, visible


class AdapterError(Exception):
    """Root of the adapter's errors."""


class TargetError(AdapterError):
    """The target cannot be certified right now: unreachable, timed out, 5xx, or not JSON.

    Not a finding about the rules: the run stops and the verdict is `incomplete`.
    """

    kind = "target error"

    def __init__(
        self,
        operation: str,
        message: str,
        request: str = "",
        answered: int | None = None,
        answer: str = "",
        connection_lost: bool = False,
        began: int | None = None,
    ) -> None:
        text = f"{self.kind} during {operation}: {message}"
        if request:
            text += f" (request: {request})"
        super().__init__(text)
        self.operation = operation
        self.detail = message
        self.request = request
        self.answered = answered  # the HTTP status the target answered with, if it answered
        self.began = began  # the status of an answer that began but never came whole
        self.answer = answer  # the start of what it answered, as it came
        # no answer because the connection was refused or broke (not a timeout): the target
        # down, as a restart shows it
        self.connection_lost = connection_lost


class RunCut(TargetError):
    """The run's end (--max-duration) came during a request: the run stops, `incomplete`, and
    the certificate says the run was cut, not that the target failed."""

    kind = "run cut"


class CredentialsError(TargetError):
    """The target refused the credentials the harness was given."""


class Refused(AdapterError):
    """The target refused an action with its error body (a 4xx): code and message kept."""

    def __init__(
        self, operation: str, status: int, code: str, message: str, late: str | None = None
    ) -> None:
        super().__init__(f"{operation} refused ({status} {code}): {message}")
        self.operation = operation
        self.status = status
        self.code = code
        self.message = message
        # why the refusal may be of an action the harness sent too late (a live table closed
        # betting before the bet reached it): a bet meant to be taken is then no finding
        self.late = late
        # the bets of the same slip the target took before refusing this one (a slip sent one
        # bet a request): a slip is taken whole or not at all only where this is empty
        self.taken: list = []


class Unsupported(AdapterError):
    """The adapter cannot express this action on its target (a mapping without the operation, a
    selection the vendor does not offer, a stake its money format cannot write). The scenario is
    not testable there: it is skipped with this reason, and its clauses are never passed by it."""

    def __init__(self, operation: str, reason: str) -> None:
        super().__init__(f"not testable through this adapter: {operation}: {reason}")
        self.operation = operation
        self.reason = reason


ANSWER_SHOWN = 300  # how much of an answer a MappingAnswerError quotes


class MappingAnswerError(AdapterError):
    """An answer the mapping file cannot read: a path it names is not in the answer, or the value
    there does not parse (an id, an amount, an outcome). The mapping does not fit what the target
    answers, so no finding can be made from it: a harness error, never one against the target
    (not a TargetError, not a Refused); the run stops `incomplete`, naming where to fix it."""

    def __init__(self, operation: str, path: str, problem: str, answer: str) -> None:
        shown = answer if len(answer) <= ANSWER_SHOWN else answer[:ANSWER_SHOWN] + "..."
        super().__init__(f"mapping error: {operation}: {problem}: answer {shown}")
        self.operation = operation
        self.path = path
        self.problem = problem
        self.answer = shown


HEADER_CANNOT_CARRY = "\r\n\0"  # besides any character past Latin-1


def _header_cannot_carry(text: str) -> str | None:
    """The first character of `text` a header cannot carry (past Latin-1, a lone surrogate
    among them; a line break or a NUL), or None."""
    if text.isascii() and not any(c in text for c in HEADER_CANNOT_CARRY):
        return None
    return next((c for c in text if ord(c) > 0xFF or c in HEADER_CANNOT_CARRY), None)


def check_token(token: str, operation: str, in_header: bool) -> None:
    """A TargetError where a player's token the target gave cannot be used. A lone surrogate
    (JSON's "\\ud800") is not valid Unicode and can be sent nowhere; a header (the canonical
    adapter's Authorization) cannot carry a character past Latin-1 or a line break either. Only
    the character is named: the token is a secret (registered before this is asked)."""
    if (bad := first_lone_surrogate(token)) is not None:
        problem = f"the player's token holds {visible(bad)}, a lone surrogate: not valid Unicode"
        raise TargetError(operation, problem)
    if in_header:
        bad = _header_cannot_carry(token)
        if bad is not None:
            problem = f"the player's token holds {visible(bad)}, which a header cannot carry"
            raise TargetError(operation, f"{problem} (it is sent back in Authorization)")


def check_sendable(
    operation: str,
    request_line: Callable[[], str],
    *parts: object,
    headers: Mapping[str, object] | None = None,
) -> None:
    """A TargetError where a request would carry what no request can: a lone surrogate (JSON's
    "\\ud800", which Python's reader keeps) in its URL, query, form or headers, not valid
    Unicode; or, in a header, a character past Latin-1 or a line break. Sending would stop the
    run on an encoding error, as the harness's fault. Only a value the target gave can hold one
    (an id, a cursor, a captured value sent back): the harness makes none, and a mapping file or
    a lab's setting holding one is refused when it is read. `request_line` (what the error
    shows) is made only then. Only the character is named: a header may hold a secret."""
    for part in parts:
        if isinstance(part, str) and (bad := first_lone_surrogate(part)) is not None:
            raise TargetError(
                operation,
                f"the request would carry {visible(bad)}, a lone surrogate in a value the target "
                "gave (an id, sent back): not valid Unicode, so no request can carry it",
                visible(request_line()),
            )
    for name, value in (headers or {}).items():
        if (bad := _header_cannot_carry(str(value))) is not None:
            raise TargetError(
                operation,
                f"the request's header {visible(name)} would carry {visible(bad)}, which a header "
                "cannot carry (a value the target gave)",
                visible(request_line()),
            )
