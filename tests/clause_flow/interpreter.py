"""The abstract interpreter: one function's body run over abstract values, statements and
expressions (calls and methods are in calls.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .calls import FrameCalls
from .project import (
    Module,
    Project,
)
from .values import (
    EMPTY,
    OPAQUE,
    SETTLEMENT_ROW_CLAUSES,
    Map,
    Marker,
    Obj,
    Seq,
    _singleton,
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


def _inexact(item: object) -> bool:
    return isinstance(item, Seq) and not item.exact


@dataclass
class Frame(FrameCalls):
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
                and any(
                    k.arg == "judge_untagged" and getattr(k.value, "value", 0) is True
                    for k in node.keywords
                )
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

    # -- expressions ----------------------------------------------------------------------------

    def ev(self, node: ast.expr | None) -> frozenset:
        if node is None:
            return frozenset({None})
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.ev(child)
            return OPAQUE
        return method(node)

    def _Constant(self, node: ast.Constant) -> frozenset:
        return frozenset({node.value})

    def _Name(self, node: ast.Name) -> frozenset:
        if node.id in self.env:
            return self.env[node.id]
        if node.id in self.module.ns:
            return concrete(self.module.ns[node.id])
        return OPAQUE

    def _sequence(self, elts: list[ast.expr]) -> frozenset:
        sure: list[frozenset] = []  # elements there for certain, each what it can be
        maybe: list[frozenset] = []  # splices of unknown length
        for elt in elts:
            if isinstance(elt, ast.Starred):
                value = self.ev(elt.value)
                seqs = [i for i in value if isinstance(i, Seq)]
                if len(value) == 1 and seqs and seqs[0].exact:
                    sure.extend(seqs[0].items)
                elif all(isinstance(i, Marker) and i.kind == "rows" for i in value):
                    sure.append(value)  # a settlement's clauses: its row, at least one
                else:
                    maybe.append(elements(value))
            else:
                sure.append(self.ev(elt))
        if maybe:  # a splice of unknown length: the elements written out are there for sure
            tail = frozenset().union(*maybe)
            return frozenset({Seq((*sure, tail), exact=False, sure=len(sure))})
        return frozenset({Seq(tuple(sure))})

    def _Tuple(self, node: ast.Tuple) -> frozenset:
        return self._sequence(node.elts)

    _List = _Tuple
    _Set = _Tuple

    def _Dict(self, node: ast.Dict) -> frozenset:
        for v in node.values:
            self.ev(v)
        return OPAQUE

    def _JoinedStr(self, node: ast.JoinedStr) -> frozenset:
        for v in node.values:
            self.ev(v)
        return OPAQUE

    def _BinOp(self, node: ast.BinOp) -> frozenset:
        left, right = self.ev(node.left), self.ev(node.right)
        if isinstance(node.op, ast.Add):
            out = set()
            for a in left:
                for b in right:
                    if isinstance(a, Seq) and isinstance(b, Seq):
                        out.add(Seq(a.items + b.items))
                    else:
                        out.add(Marker("opaque"))
            return frozenset(out) or OPAQUE
        if isinstance(node.op, ast.BitAnd | ast.BitOr | ast.Sub):
            return frozenset({Seq((elements(left | right),), exact=False)})
        return OPAQUE

    def _BoolOp(self, node: ast.BoolOp) -> frozenset:
        values = [self.ev(v) for v in node.values]
        truths = [truth(v) for v in values]
        if isinstance(node.op, ast.Or):
            # `a or b`: what of `a` may be true (an inexact sequence then holds something), up
            # to the first operand surely true; the last operand whatever it is
            out: set = set()
            for i, (value, surely) in enumerate(zip(values, truths, strict=True)):
                last = i == len(values) - 1
                for item in value:
                    if not last and truth(frozenset({item})) is False:
                        continue
                    out.add(Seq(item.items, False, True, item.sure) if _inexact(item) else item)
                if surely is True:
                    break
            return frozenset(out)
        else:
            if any(t is False for t in truths):
                return frozenset({False})
            if all(t is True for t in truths):
                return frozenset({True})
        return frozenset().union(*values)

    def _UnaryOp(self, node: ast.UnaryOp) -> frozenset:
        value = self.ev(node.operand)
        if isinstance(node.op, ast.Not):
            t = truth(value)
            return frozenset({True, False}) if t is None else frozenset({not t})
        return OPAQUE

    def _Compare(self, node: ast.Compare) -> frozenset:
        left = self.ev(node.left)
        rights = [self.ev(c) for c in node.comparators]
        if len(node.ops) != 1:
            return frozenset({True, False})
        op, right = node.ops[0], rights[0]
        if isinstance(op, ast.In | ast.NotIn):
            verdict = self._member(left, right)
            if verdict is None:
                return frozenset({True, False})
            return frozenset({verdict if isinstance(op, ast.In) else not verdict})
        if isinstance(op, ast.Eq | ast.NotEq):
            plain = (str, bool, int, type(None))
            if not all(isinstance(v, plain) for v in left | right):
                return frozenset({True, False})
            same = {a == b for a in left for b in right}
            return frozenset(same if isinstance(op, ast.Eq) else {not v for v in same})
        return frozenset({True, False})

    def _member(self, left: frozenset, right: frozenset) -> bool | None:
        if any(isinstance(i, Marker) and i.kind == "tags" for i in right) and len(right) == 1:
            try:
                return _singleton(left) in self.ctx.tags
            except LookupError:
                return None
        if all(isinstance(i, Seq) and not i.items for i in right) and right:
            return False  # nothing is in an empty collection
        try:
            needle = _singleton(left)
            if len(right) != 1:
                return None
            (item,) = right
            if isinstance(item, Seq) and all(len(e) == 1 for e in item.items):
                pool = {_singleton(e) for e in item.items}
                return needle in pool
        except LookupError:
            return None
        return None

    def _IfExp(self, node: ast.IfExp) -> frozenset:
        t = truth(self.ev(node.test))
        if t is True:
            return self.ev(node.body)
        if t is False:
            return self.ev(node.orelse)
        return self.ev(node.body) | self.ev(node.orelse)

    def _comprehension(self, node: ast.expr, elt: ast.expr) -> frozenset:
        saved = dict(self.env)
        exact = self._filtered(node, elt)
        result = self._generators(node.generators, elt)
        self.env = saved
        return exact or frozenset({Seq((result,), exact=False)})

    def _filtered(self, node: ast.expr, elt: ast.expr) -> frozenset | None:
        """`(c for c in X if cond)` over an exact X whose every condition is decided here (a
        clause kept where the scenario is tagged with it): the exact elements kept."""
        if len(node.generators) != 1:
            return None
        gen = node.generators[0]
        if not (isinstance(gen.target, ast.Name) and isinstance(elt, ast.Name)):
            return None
        if elt.id != gen.target.id:
            return None
        iterable = self.ev(gen.iter)
        if len(iterable) != 1 or not all(isinstance(i, Seq) and i.exact for i in iterable):
            return None
        (seq,) = iterable
        kept = []
        for item in seq.items:
            self.env[gen.target.id] = item
            verdicts = {truth(self.ev(cond)) for cond in gen.ifs}
            if None in verdicts:
                return None
            if False not in verdicts:
                kept.append(item)
        return frozenset({Seq(tuple(kept))})

    def _generators(self, generators: list[ast.comprehension], elt: ast.expr) -> frozenset:
        if not generators:
            return self.ev(elt)
        first, rest = generators[0], generators[1:]
        out: set = set()
        for value in elements(self.ev(first.iter)):
            if isinstance(first.target, ast.Name):
                self.env[first.target.id] = frozenset({value})
            else:
                self.assign(first.target, OPAQUE, None)
            if any(truth(self.ev(cond)) is False for cond in first.ifs):
                continue
            out |= self._generators(rest, elt)
        return frozenset(out)

    def _ListComp(self, node: ast.ListComp) -> frozenset:
        return self._comprehension(node, node.elt)

    _SetComp = _ListComp
    _GeneratorExp = _ListComp

    def _DictComp(self, node: ast.DictComp) -> frozenset:
        self._comprehension(node, node.value)
        return OPAQUE

    def _Lambda(self, node: ast.Lambda) -> frozenset:
        saved = dict(self.env)
        for a in node.args.args:
            self.env[a.arg] = OPAQUE
        self.ev(node.body)
        self.env = saved
        return OPAQUE

    def _NamedExpr(self, node: ast.NamedExpr) -> frozenset:
        value = self.ev(node.value)
        self.assign(node.target, value, node.value)
        return value

    def _Starred(self, node: ast.Starred) -> frozenset:
        return elements(self.ev(node.value))

    def _Subscript(self, node: ast.Subscript) -> frozenset:
        base, index = self.ev(node.value), self.ev(node.slice)
        out: set = set()
        for item in base:
            if isinstance(item, Seq):
                if isinstance(node.slice, ast.Slice):
                    out.add(Seq((elements(frozenset({item})),), exact=False))
                    continue
                try:
                    i = _singleton(index)
                    out |= item.items[i]
                except (LookupError, IndexError, TypeError):
                    out |= elements(frozenset({item}))
            elif isinstance(item, Map):
                keys = {k for k in index if isinstance(k, str | int)}
                if keys and len(keys) == len(index):
                    for k, v in item.pairs:
                        if k in keys:
                            out |= v
                else:
                    for _, v in item.pairs:
                        out |= v
            else:
                out.add(Marker("opaque"))
        return frozenset(out)

    def _Attribute(self, node: ast.Attribute) -> frozenset:
        base = self.ev(node.value)
        out: set = set()
        for item in base:
            out |= self._attribute(item, node.attr)
        if not (out - OPAQUE) and not any(isinstance(i, Obj) for i in base):
            method = self._method(base, node.attr)
            if method is not None:
                return self._property(method) or method
        return frozenset(out) or OPAQUE

    def _property(self, method: frozenset) -> frozenset | None:
        """A `@property` read: its body run with the receiver as self."""
        (bound,) = method
        receiver, module, fn, cls = bound.ref
        if not any(getattr(d, "id", None) == "property" for d in fn.decorator_list):
            return None
        if (cls, fn.name) == ("SettlementRow", "clauses"):
            return SETTLEMENT_ROW_CLAUSES  # of a row the harness settled: any row's
        args = {fn.args.args[0].arg: receiver} if fn.args.args else {}
        return self._run(module, fn, args, cls)

    def _attribute(self, item: object, attr: str) -> frozenset:
        if attr == "game":
            return frozenset({self.ctx.game})
        if isinstance(item, Marker) and item.kind == "instance":
            _module, attrs = self.interp.instances[item.ref]
            return attrs.get(attr, OPAQUE)
        if isinstance(item, Marker) and item.kind == "scene":
            if attr == "tags":
                return frozenset({Marker("tags")})
            if attr == "checks":
                return frozenset({Marker("checks")})
            if attr in self.interp.scene_defaults:
                written = self.ctx.written
                if written is not None and attr not in written:
                    return self.interp.scene_defaults[attr]
                scalars = dict(self.ctx.scalars)
                if attr in scalars:  # a flag or a name: any value a step gives it, or its default
                    return scalars[attr] | self.interp.scene_defaults[attr]
                return frozenset({Marker("attr", attr)})
            return OPAQUE
        if isinstance(item, Marker) and item.kind == "rowobj" and attr == "clause":
            return frozenset({Marker("rows", "any")})
        if isinstance(item, Marker) and item.kind == "rowobj" and attr == "clauses":
            return SETTLEMENT_ROW_CLAUSES
        if isinstance(item, Marker) and item.kind in ("expected", "rowobj") and attr == "clauses":
            return frozenset({Marker("rows", "placed" if item.kind == "expected" else "any")})
        if isinstance(item, Obj):
            try:
                return concrete(getattr(item.obj, attr))
            except Exception:
                return OPAQUE
        return OPAQUE
