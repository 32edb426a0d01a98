"""The interpreter's calls: functions and methods followed, checks found, the project's few
pure functions run for real."""

from __future__ import annotations

import ast
import importlib

from .project import Module
from .values import (
    COPIES,
    EMPTY,
    LEDGERS,
    MUTATORS,
    OPAQUE,
    PURE,
    PURE_METHODS,
    SINK_METHODS,
    Marker,
    Obj,
    Seq,
    _is_singleton,
    _singleton,
    concrete,
    elements,
    shape,
)


def _judged_anywhere(call: ast.Call) -> bool:
    """A check or failure booked `judge_untagged=True`: judged in any scenario that makes it."""
    return any(
        k.arg == "judge_untagged" and getattr(k.value, "value", 0) is True for k in call.keywords
    )


class FrameCalls:
    """Calls and methods of a Frame (interpreter.py)."""

    # -- calls ----------------------------------------------------------------------------------

    def _Call(self, node: ast.Call) -> frozenset:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in SINK_METHODS:
            receiver = func.value
            last = receiver.attr if isinstance(receiver, ast.Attribute) else None
            last = receiver.id if isinstance(receiver, ast.Name) else last
            if last in LEDGERS:
                position = SINK_METHODS[func.attr]
                # a hold alone cannot fail, and credits only tagged clauses: not a sink
                failing = func.attr != "held" and not _judged_anywhere(node)
                if len(node.args) > position and failing:
                    self.sink(node, node.args[position])
                self._evaluate_args_only(node)
                return frozenset({Marker("failure")}) if func.attr == "failed" else OPAQUE
        if isinstance(func, ast.Attribute) and func.attr == "record_failure":
            self._evaluate_args_only(node)
            return OPAQUE
        special = self._special_call(node)
        if special is not None:
            return special
        callee = self.ev(func)
        if (
            isinstance(func, ast.Attribute)
            and func.attr in SINK_METHODS
            and all(isinstance(i, Marker) and i.kind == "opaque" for i in callee)
        ):  # a check on a receiver the analysis cannot name: never passed over silently
            self.summary.unresolved.add((f"{self.module.rel}:{node.lineno}", ast.unparse(node)))
        out: set = set()
        for item in callee:
            out |= self._invoke(item, node)
        return frozenset(out) or OPAQUE

    def _special_call(self, node: ast.Call) -> frozenset | None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        if name in COPIES and node.args:
            value = self.ev(node.args[0])
            if all(isinstance(i, Seq) for i in value):
                return value
            return frozenset({Seq((elements(value),), exact=False)})
        if name in ("expected_settlement",):
            self._evaluate_args_only(node)
            return frozenset({Marker("expected")})
        if name == "check_bet":
            self._evaluate_args_only(node)
            return frozenset({Marker("rowobj")})
        if (
            isinstance(func, ast.Attribute)
            and func.attr in MUTATORS
            and isinstance(func.value, ast.Attribute)
            and self._is_scene(func.value.value)
        ):
            writes = self.summary.writes
            value = frozenset().union(*(self.ev(a) for a in node.args)) if node.args else EMPTY
            writes[func.value.attr] = writes.get(func.value.attr, EMPTY) | value
            return OPAQUE
        if isinstance(func, ast.Attribute) and func.attr == "fromkeys" and node.args:
            return frozenset({Seq((elements(self.ev(node.args[0])),), exact=False)})
        if isinstance(func, ast.Name) and func.id == "super":
            return frozenset({Marker("super")})
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "__init__"
            and isinstance(func.value, ast.Call)
            and getattr(func.value.func, "id", "") == "super"
        ):
            self._clause_failure(node, node.args[1] if len(node.args) > 1 else None)
            return OPAQUE
        return None

    def _invoke(self, item: object, node: ast.Call) -> frozenset:
        if isinstance(item, Marker) and item.kind == "func" and item.name in PURE:
            module, _fn = item.ref  # a pure function of the vocabulary: called for real
            real = getattr(importlib.import_module(self.interp.project.dotted(module)), item.name)
            return self._pure(real, node)
        if isinstance(item, Marker) and item.kind == "func":
            module, fn = item.ref
            frame = self
            args = self.interp.bind(frame, fn, node, None)
            return self._run(module, fn, args, "")
        if isinstance(item, Marker) and item.kind == "cls":
            return self._construct(item, node)
        if isinstance(item, Obj) and callable(item.obj):
            return self._pure(item.obj, node)
        if isinstance(item, Marker) and item.kind == "bound":
            receiver, module, fn, cls = item.ref
            args = self.interp.bind(self, fn, node, receiver)
            return self._run(module, fn, args, cls)
        self._evaluate_args_only(node)
        return OPAQUE

    def _run(self, module: Module, fn: ast.FunctionDef, args: dict, cls: str) -> frozenset:
        if (
            module.rel == "fixtures/scene.py"
            and cls == "Scene"
            and fn.name in ("place", "try_place")
        ):
            label = args.get("label", OPAQUE)
            self.summary.bets |= {v for v in label if isinstance(v, str)}
        if cls == "Scene" and fn.name in ("enter_result", "try_result"):
            for item in args.get("outcome", OPAQUE):
                try:
                    self.summary.outcomes.add(tuple(_singleton(e) for e in item.items))
                except (AttributeError, LookupError):
                    self.summary.outcomes.add(None)
        summary = self.interp.call(self.ctx, module, fn, args, cls)
        self.summary.merge(summary)
        return frozenset(summary.returns) or frozenset({None})

    def _pure(self, obj: object, node: ast.Call) -> frozenset:
        name = getattr(obj, "__name__", "")
        if name not in PURE and name not in PURE_METHODS:
            self._evaluate_args_only(node)
            return OPAQUE
        values = [self.ev(a) for a in node.args]
        if name in ("paytable", "load_paytable") and values and not _is_singleton(values[0]):
            values[0] = frozenset({self.ctx.game})  # a scenario plays one game: its paytable
        if name == "selection" and values and not _is_singleton(values[0]):
            return frozenset({Marker("rowobj")})  # a selection the harness holds: any row
        try:
            return concrete(obj(*[_singleton(v) for v in values]))
        except Exception:
            return OPAQUE

    def _construct(self, item: Marker, node: ast.Call) -> frozenset:
        module, cls = item.ref
        if self._is_failure(module, cls):
            init = next(
                (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
                None,
            )
            if cls.name == "ClauseFailure" or init is None:
                self._clause_failure(node, node.args[1] if len(node.args) > 1 else None)
            else:
                args = self.interp.bind(self, init, node, OPAQUE)
                self._run(module, init, args, cls.name)
            return frozenset({Marker("failure")})
        self._evaluate_args_only(node)
        return frozenset({Marker("obj", cls.name, (module, cls))})  # its methods are followed

    def _is_failure(self, module: Module, cls: ast.ClassDef) -> bool:
        if cls.name == "ClauseFailure":
            return True
        for base in cls.bases:
            ref = module.ns.get(getattr(base, "id", ""))
            if isinstance(ref, Marker) and ref.kind == "cls" and self._is_failure(*ref.ref):
                return True
        return False

    def _clause_failure(self, node: ast.Call, clauses: ast.expr | None) -> None:
        keyword = next((k.value for k in node.keywords if k.arg == "clauses"), None)
        target = clauses if clauses is not None else keyword
        if target is not None:
            self.sink(node, target)

    def sink(self, call: ast.Call, clauses: ast.expr) -> None:
        """One check: each way its clauses can be (an alternative), kept to judge per scenario."""
        origin = f"{self.module.rel}:{call.lineno}"
        for alternative in self.ev(clauses):
            if shape(alternative) is None:
                self.summary.unresolved.add((origin, ast.unparse(clauses)))
            else:
                self.summary.sinks.add((alternative, origin))

    # -- methods --------------------------------------------------------------------------------

    def _method(self, receiver: frozenset, attr: str) -> frozenset | None:
        project = self.interp.project
        for item in receiver:
            if isinstance(item, Marker) and item.kind == "obj":  # an object of a project class
                module, cls = item.ref
                for node in cls.body:
                    if isinstance(node, ast.FunctionDef) and node.name == attr:
                        return frozenset(
                            {Marker("bound", attr, (receiver, module, node, cls.name))}
                        )
            if isinstance(item, Marker) and item.kind == "instance":
                module, _attrs = self.interp.instances[item.ref]
                for node in item.ref.body:
                    if isinstance(node, ast.FunctionDef) and node.name == attr:
                        return frozenset(
                            {Marker("bound", attr, (receiver, module, node, item.name))}
                        )
        if any(isinstance(i, Marker) and i.kind == "scene" for i in receiver):
            for node in self.interp.scene_class.body:
                if isinstance(node, ast.FunctionDef) and node.name == attr:
                    return frozenset(
                        {Marker("bound", attr, (receiver, self.interp.scene_module, node, "Scene"))}
                    )
        if attr in self.interp.adapter_methods:
            return None  # the target's operations: the adapter's own checks are not the steps'
        candidates = project.methods.get(attr, [])
        if self.cls:
            mine = [c for c in candidates if c[2] == self.cls and c[0] is self.module]
            if mine:
                candidates = mine
        if len(candidates) == 1:
            module, node, cls = candidates[0]
            return frozenset({Marker("bound", attr, (OPAQUE, module, node, cls))})
        return None
