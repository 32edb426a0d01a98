"""The project's modules as the analysis reads them: their ASTs and concrete constants."""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass, field
from pathlib import Path

from .values import (
    ANALYSED,
    ROOT,
    SUITE,
    Marker,
)

# -- the project's modules -------------------------------------------------------------------------


@dataclass(eq=False)
class Module:
    path: Path
    tree: ast.Module
    ns: dict = field(default_factory=dict)  # concrete constants, functions, classes
    funcs: dict = field(default_factory=dict)
    classes: dict = field(default_factory=dict)

    @property
    def rel(self) -> str:
        return self.path.relative_to(ROOT).as_posix()


class Project:
    """The analysed modules, parsed once; names resolved across their imports."""

    def __init__(self) -> None:
        self.modules: dict[str, Module] = {}
        for folder in ANALYSED:
            for path in sorted((ROOT / folder).glob("*.py")):
                dotted = self._dotted(path)
                self.modules[dotted] = Module(path, ast.parse(path.read_text(), str(path)))
        self._loaded: set[str] = set()
        for name in self.modules:
            self.load(name)
        self.methods: dict[str, list[tuple[Module, ast.FunctionDef, str]]] = {}
        for module in self.modules.values():
            for cls_name, cls in module.classes.items():
                for node in cls.body:
                    if isinstance(node, ast.FunctionDef):
                        self.methods.setdefault(node.name, []).append((module, node, cls_name))

    def dotted(self, module: Module) -> str:
        """The importable name of an analysed module."""
        return self._dotted(module.path)

    @staticmethod
    def _dotted(path: Path) -> str:
        rel = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
        for dotted, folder in SUITE.items():
            if rel.startswith(folder + "."):
                return dotted + rel[len(folder) :]
        return rel

    def load(self, name: str) -> Module:
        module = self.modules[name]
        if name in self._loaded:
            return module
        self._loaded.add(name)
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    value = self._imported(node.module, alias.name)
                    if value is not None:
                        module.ns[alias.asname or alias.name] = value
            elif isinstance(node, ast.FunctionDef):
                module.funcs[node.name] = node
                module.ns[node.name] = Marker("func", node.name, (module, node))
            elif isinstance(node, ast.ClassDef):
                module.classes[node.name] = node
                module.ns[node.name] = Marker("cls", node.name, (module, node))
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                try:
                    value = eval(compile(ast.Expression(node.value), "", "eval"), dict(module.ns))
                except Exception:
                    continue
                for target in targets:
                    if isinstance(target, ast.Name):
                        module.ns[target.id] = value
                    elif isinstance(target, ast.Tuple) and isinstance(value, tuple):
                        for t, v in zip(target.elts, value, strict=False):
                            if isinstance(t, ast.Name):
                                module.ns[t.id] = v
        return module

    def _imported(self, source: str, name: str) -> object:
        if source in self.modules:
            return self.load(source).ns.get(name)
        if not source.startswith("livecert"):
            return None
        try:
            return getattr(importlib.import_module(source), name, None)
        except Exception:
            return None
