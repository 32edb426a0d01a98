"""The interpreter's expressions: names, constants, sequences, comprehensions, operators and
attributes, each evaluated to a frozenset of what it may be."""

from __future__ import annotations

import ast

from .values import (
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


def _inexact(item: object) -> bool:
    return isinstance(item, Seq) and not item.exact


class FrameExpressions:
    """Expressions of a Frame (interpreter.py)."""

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
