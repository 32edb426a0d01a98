"""The abstract interpreter: one function's body run over abstract values, its statements here
(expressions in expressions.py, calls and methods in calls.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .calls import FrameCalls, _judged_anywhere
from .expressions import FrameExpressions
from .project import (
    Module,
    Project,
)
from .values import (
    EMPTY,
    OPAQUE,
    Marker,
    Seq,
    concrete,
    elements,
    truth,
)

# -- the interpreter -------------------------------------------------------------------------------


@dataclass
class Context:
    """One scenario as the interpreter sees it."""

    game: str
    tags: frozenset
    written: frozenset | None  # scene attributes its steps assign; None: any may be
    scalars: tuple = ()  # (attribute, the plain values its steps assign it) of those written


@dataclass
class Summary:
    sinks: set = field(default_factory=set)  # (atom, origin)
    returns: set = field(default_factory=set)
    writes: dict = field(default_factory=dict)  # scene attribute -> abstract value
    bets: set = field(default_factory=set)  # labels the scenario placed
    outcomes: set = field(default_factory=set)  # results entered (None: not known)
    unresolved: set = field(default_factory=set)  # (origin, expression)

    def merge(self, other: Summary) -> None:
        self.sinks |= other.sinks
        self.bets |= other.bets
        self.outcomes |= other.outcomes
        self.unresolved |= other.unresolved
        for attr, value in other.writes.items():
            self.writes[attr] = self.writes.get(attr, EMPTY) | value


def _concatenated(before: frozenset, after: frozenset) -> frozenset:
    """`before + after` where both are exact sequences (a list of clauses built up by `+=`)."""
    out = set()
    for a in before:
        for b in after:
            if not (isinstance(a, Seq) and isinstance(b, Seq) and a.exact and b.exact):
                return EMPTY
            out.add(Seq(a.items + b.items))
    return frozenset(out)


class Interpreter:
    def __init__(self, project: Project) -> None:
        self.project = project
        self.memo: dict = {}
        self.active: set = set()
        scene = project.load("livecert.suite.fixtures.scene")
        self.scene_class = scene.classes["Scene"]
        self.scene_module = scene
        self.scene_defaults = self._scene_defaults()
        from livecert.adapters.base import TargetAdapter

        self.adapter_methods = {n for n in dir(TargetAdapter) if not n.startswith("__")}
        # a class defined in a function (a state machine): its module and `self.x` values
        self.instances: dict[ast.ClassDef, tuple[Module, dict[str, frozenset]]] = {}

    def _scene_defaults(self) -> dict[str, frozenset]:
        defaults = {}
        for node in self.scene_class.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                value = node.value
                if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "field":
                    factory = next((k.value for k in value.keywords), None)
                    name = getattr(factory, "id", "")
                    defaults[node.target.id] = (
                        concrete(()) if name in ("set", "list", "dict") else OPAQUE
                    )
                elif value is not None:
                    try:
                        defaults[node.target.id] = concrete(ast.literal_eval(value))
                    except ValueError:
                        defaults[node.target.id] = OPAQUE
        return defaults

    # -- calls of functions ---------------------------------------------------------------------

    def call(
        self, ctx: Context, module: Module, node: ast.FunctionDef, args: dict, cls: str = ""
    ) -> Summary:
        key = (id(node), tuple(sorted(args.items(), key=lambda kv: kv[0])), ctx.game, ctx.tags)
        key += (ctx.written, ctx.scalars)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:  # recursion: nothing more than the outer call finds
            return Summary()
        self.active.add(key)
        frame = Frame(self, ctx, module, cls, dict(args))
        frame.block(node.body)
        self.active.discard(key)
        self.memo[key] = frame.summary
        return frame.summary

    def bind(self, frame: Frame, node: ast.FunctionDef, call: ast.Call, bound: frozenset | None):
        """The parameters of `node` from a call's arguments (`bound`: the receiver, for a
        method's self); defaults from the callee's module."""
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        values: dict[str, frozenset] = {}
        positional = list(call.args)
        if bound is not None and params:
            values[params[0]] = bound
            params = params[1:]
        for name, arg in zip(params, positional, strict=False):
            values[name] = OPAQUE if isinstance(arg, ast.Starred) else frame.ev(arg)
        if node.args.vararg is not None:  # *args: the positional arguments left over
            values[node.args.vararg.arg] = frame._sequence(positional[len(params) :])
        for keyword in call.keywords:
            if keyword.arg:
                values[keyword.arg] = frame.ev(keyword.value)
        defaults = node.args.defaults
        for name, default in zip(params[len(params) - len(defaults) :], defaults, strict=False):
            if name not in values:
                values[name] = Frame(self, frame.ctx, frame.module, "", {}).ev(default)
        for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=False):
            if a.arg not in values and d is not None:
                values[a.arg] = frame.ev(d)
        return values


@dataclass
class Frame(FrameCalls, FrameExpressions):
    """One function's body, interpreted in one context."""

    interp: Interpreter
    ctx: Context
    module: Module
    cls: str
    env: dict
    summary: Summary = field(default_factory=Summary)
    exempt: set = field(default_factory=set)

    # -- statements -----------------------------------------------------------------------------

    def block(self, body: list[ast.stmt]) -> bool:
        """Run statements; True when the block always returns or raises."""
        self._prescan(body)
        return any(self.stmt(stmt) for stmt in body)

    def _prescan(self, body: list[ast.stmt]) -> None:
        """Failures this function books as judged anywhere, or marks as booked already."""
        for node in ast.walk(ast.Module(body=body, type_ignores=[])):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "record_failure"
                and _judged_anywhere(node)
                and node.args
                and isinstance(node.args[0], ast.Name)
            ):
                self.exempt.add(node.args[0].id)
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.targets[0], ast.Attribute)
                and node.targets[0].attr == "booked"
                and isinstance(node.targets[0].value, ast.Name)
            ):
                self.exempt.add(node.targets[0].value.id)

    def stmt(self, node: ast.stmt) -> bool:
        if isinstance(node, ast.Return):
            self.summary.returns |= self.ev(node.value) if node.value else {None}
            return True
        if isinstance(node, ast.Raise):
            if node.exc is not None:
                self.ev(node.exc)
            return True
        if isinstance(node, ast.Assign):
            if (
                isinstance(node.value, ast.Call)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in self.exempt
                and self._constructs_a_failure(node.value)
            ):  # a failure this function books judged anywhere (or booked): its clauses free
                self._evaluate_args_only(node.value)
                return False
            value = self.ev(node.value)
            for target in node.targets:
                self.assign(target, value, node.value)
            return False
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.ev(node.value), node.value)
            return False
        if isinstance(node, ast.AugAssign):
            value = self.ev(node.value)
            if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
                # as every assignment here, flow-insensitive: what it held before is kept (a
                # branch or a loop not taken), so `if: x += [A] else: x += [B]` gives x, x+A,
                # x+B and x+A+B, never A as sure where only B was added
                before = self.env.get(node.target.id, EMPTY)
                self.env[node.target.id] = before | (_concatenated(before, value) or value)
            elif isinstance(node.target, ast.Name):
                self.env[node.target.id] = self.env.get(node.target.id, EMPTY) | value
            else:
                self.assign(node.target, value, node.value)
            return False
        if isinstance(node, ast.Expr):
            self.ev(node.value)
            return False
        if isinstance(node, ast.If):
            test = truth(self.ev(node.test))
            if test is True:
                return self.block(node.body)
            if test is False:
                return self.block(node.orelse)
            a, b = self.block(node.body), self.block(node.orelse)
            return a and b
        if isinstance(node, ast.For | ast.AsyncFor):
            self.assign(node.target, elements(self.ev(node.iter)), None)
            self.block(node.body)
            self.block(node.orelse)
            return False
        if isinstance(node, ast.While):
            self.ev(node.test)
            self.block(node.body)
            self.block(node.orelse)
            return False
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                value = self.ev(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value, None)
            return self.block(node.body)
        if isinstance(node, ast.Try):
            body = self.block(node.body)
            for handler in node.handlers:
                if handler.name:
                    self.env[handler.name] = OPAQUE
                self.block(handler.body)
            self.block(node.orelse)
            self.block(node.finalbody)
            return body and not node.handlers
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.nested(node)
            return False
        if isinstance(node, ast.ClassDef):
            self.nested_class(node)
            return False
        return False

    def nested_class(self, node: ast.ClassDef) -> None:
        """A class defined inside the one running (a Hypothesis state machine): its entry
        methods (decorated: the rules, `__init__`) run under it with `self` the instance; a
        method they call on `self` is followed with the arguments of the call; `self.x` is any
        value a method of the class assigns it."""
        instance = Marker("instance", node.name, node)
        methods = [item for item in node.body if isinstance(item, ast.FunctionDef)]
        attrs: dict[str, frozenset] = {}
        self.interp.instances[node] = (self.module, attrs)
        for method in methods:
            env = dict(self.env)
            for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs):
                env[a.arg] = OPAQUE
            if method.args.args:
                env[method.args.args[0].arg] = frozenset({instance})
            frame = Frame(self.interp, self.ctx, self.module, node.name, env)
            for stmt in ast.walk(method):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else []
                targets = [stmt.target] if isinstance(stmt, ast.AnnAssign) else targets
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                        and stmt.value is not None
                    ):
                        value = frame.ev(stmt.value)
                        attrs[target.attr] = attrs.get(target.attr, EMPTY) | value
        for method in methods:
            if method.decorator_list or method.name == "__init__":
                self.nested(method, frozenset({instance}))

    def nested(self, node: ast.FunctionDef, instance: frozenset | None = None) -> None:
        """A function defined inside the one running runs under it (a callback, a Hypothesis
        rule): its body is interpreted here, a rule's sampled arguments bound to their values."""
        env = dict(self.env)
        for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
            env[a.arg] = OPAQUE
        if instance is not None and node.args.args:
            env[node.args.args[0].arg] = instance
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call):
                for keyword in decorator.keywords:
                    value = keyword.value
                    if (
                        isinstance(value, ast.Call)
                        and isinstance(value.func, ast.Attribute)
                        and value.func.attr == "sampled_from"
                        and value.args
                    ):
                        env[keyword.arg] = elements(self.ev(value.args[0]))
        inner = Frame(self.interp, self.ctx, self.module, self.cls, env)
        inner.block(node.body)
        self.summary.merge(inner.summary)
        self.env[node.name] = frozenset({Marker("nested", node.name, node)})

    def assign(self, target: ast.expr, value: frozenset, source: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = self.env.get(target.id, EMPTY) | value
        elif isinstance(target, ast.Attribute):
            if self._is_scene(target.value):
                writes = self.summary.writes
                writes[target.attr] = writes.get(target.attr, EMPTY) | value
        elif isinstance(target, ast.Tuple | ast.List):
            if isinstance(source, ast.Tuple) and len(source.elts) == len(target.elts):
                for t, s in zip(target.elts, source.elts, strict=True):
                    self.assign(t, self.ev(s), s)
                return
            for i, t in enumerate(target.elts):
                parts = [
                    item.items[i]
                    for item in value
                    if isinstance(item, Seq) and len(item.items) == len(target.elts)
                ]
                self.assign(t, frozenset().union(*parts) if parts else OPAQUE, None)

    def _constructs_a_failure(self, call: ast.Call) -> bool:
        """`call` makes a ClauseFailure (a class of the project deriving from it), nothing else:
        a ledger's `failed(...)` assigned to the same name stays a check."""
        callee = self.ev(call.func)
        return bool(callee) and all(
            isinstance(i, Marker) and i.kind == "cls" and self._is_failure(*i.ref) for i in callee
        )

    def _is_scene(self, node: ast.expr) -> bool:
        return any(isinstance(i, Marker) and i.kind == "scene" for i in self.ev(node))

    def _evaluate_args_only(self, call: ast.Call) -> None:
        for arg in (*call.args, *(k.value for k in call.keywords)):
            self.ev(arg)
