"""Choosing the adapter a run talks through: `--adapter NAME|PATH`.

- nothing, or `canonical`: the certification contract over HTTP (HttpAdapter);
- a path to a `.yaml`/`.yml` mapping file: a MappingAdapter for a vendor-shaped API;
- any other name: a plugin registered under the `livecert.adapters` entry point group, a
  callable taking AdapterOptions and answering a TargetAdapter, for what a mapping cannot say.
"""

import hashlib
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from livecert.adapters.base import TargetAdapter
from livecert.adapters.http import HttpAdapter
from livecert.adapters.mapping import MappingAdapter, load_mapping

ENTRY_POINT_GROUP = "livecert.adapters"
CANONICAL = "canonical"
MAPPING_SUFFIXES = (".yaml", ".yml")


class AdapterSelectionError(ValueError):
    """--adapter names nothing usable (no such file or plugin, missing credentials)."""


@dataclass(frozen=True)
class AdapterOptions:
    """What the command line knows about the target, for any adapter."""

    target_url: str | None = None
    operator_token: str | None = None
    dealer_token: str | None = None
    timeout: tuple[float, float] = (5.0, 30.0)


@dataclass(frozen=True)
class AdapterIdentity:
    """Which adapter a run used, as the certificate names it."""

    kind: str  # canonical | mapping | plugin
    name: str
    source: str | None = None
    sha256: str | None = None

    @property
    def checks_contract(self) -> bool:
        """Only the canonical adapter speaks (and validates) the certification contract."""
        return self.kind == CANONICAL

    def as_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "source": self.source, "sha256": self.sha256}


def plugin_names() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))


def canonical(options: AdapterOptions) -> HttpAdapter:
    """The canonical adapter (also registered as the `canonical` plugin)."""
    if not (options.target_url and options.operator_token and options.dealer_token):
        raise AdapterSelectionError(
            "the canonical adapter needs --target-url, --operator-token and --dealer-token"
        )
    return HttpAdapter(
        options.target_url, options.operator_token, options.dealer_token, timeout=options.timeout
    )


def is_canonical(choice: str | None) -> bool:
    """True for the canonical adapter (no choice, or its name): the one that speaks the
    certification contract and works with the embedded reference server."""
    return not choice or choice == CANONICAL


def is_mapping_path(choice: str | None) -> bool:
    return bool(choice) and (choice.endswith(MAPPING_SUFFIXES) or Path(choice).is_file())


def build_adapter(
    choice: str | None, options: AdapterOptions
) -> tuple[TargetAdapter, AdapterIdentity]:
    """The adapter `choice` names, built for the target; raises AdapterSelectionError or
    MappingError (a mapping file that cannot be used) with what to fix."""
    if is_canonical(choice):
        return canonical(options), AdapterIdentity(CANONICAL, CANONICAL)
    if is_mapping_path(choice):
        if not Path(choice).is_file():
            raise AdapterSelectionError(f"--adapter {choice}: no such mapping file")
        mapping = load_mapping(choice)
        adapter = MappingAdapter(mapping, options.target_url, timeout=options.timeout)
        return adapter, AdapterIdentity("mapping", mapping.name, str(choice), mapping.sha256)
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == choice]
    if not found:
        known = ", ".join(plugin_names()) or "none installed"
        raise AdapterSelectionError(
            f"--adapter {choice}: not a mapping file and no plugin of that name in the "
            f"'{ENTRY_POINT_GROUP}' entry point group (installed: {known})"
        )
    factory = found[0].load()
    adapter = factory(options)
    if not isinstance(adapter, TargetAdapter):
        raise AdapterSelectionError(
            f"--adapter {choice}: the plugin {found[0].value} did not answer a TargetAdapter"
        )
    dist = found[0].dist
    source = f"{dist.name} {dist.version}" if dist else found[0].value
    return adapter, AdapterIdentity("plugin", choice, source, code_sha256(factory.__module__))


def code_sha256(module_name: str) -> str | None:
    """One sha256 over the Python source of the plugin's top-level package (each file's path
    relative to it, then its bytes, in path order), or of its single module: what the
    certificate names beside the distribution's version, which a rebuilt plugin can keep."""
    top = sys.modules.get(module_name.split(".")[0])
    origin = getattr(top, "__file__", None)
    if not origin:
        return None
    root = Path(origin).parent
    files = sorted(root.rglob("*.py")) if hasattr(top, "__path__") else [Path(origin)]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
