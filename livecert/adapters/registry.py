"""Choosing the adapter a run talks through: `--adapter NAME|PATH`.

- nothing, or `canonical`: the certification contract over HTTP (HttpAdapter);
- a path to a `.yaml`/`.yml` mapping file: a MappingAdapter for a vendor-shaped API;
- any other name: a plugin registered under the `livecert.adapters` entry point group, a
  callable taking AdapterOptions and answering a TargetAdapter, for what a mapping cannot say.
"""

import hashlib
import importlib.util
from dataclasses import dataclass
from importlib.metadata import Distribution, entry_points
from pathlib import Path

from livecert.adapters.base import TargetAdapter
from livecert.adapters.bounds import DEFAULT_BOUNDS, Bounds
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
    bounds: Bounds = DEFAULT_BOUNDS  # each request's total deadline and answer cap, the run's end


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
        options.target_url,
        options.operator_token,
        options.dealer_token,
        timeout=options.timeout,
        bounds=options.bounds,
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
        adapter = MappingAdapter(
            mapping, options.target_url, timeout=options.timeout, bounds=options.bounds
        )
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
    digest = code_sha256(found[0].module, dist)
    if digest is None:
        source += " (its code could not be located: not hashed)"
    return adapter, AdapterIdentity("plugin", choice, source, digest)


def code_sha256(module_name: str, dist: Distribution | None = None) -> str | None:
    """One sha256 over every file of the entry point's top-level package (each file's path,
    then its bytes, in path order; compiled caches left out), or of its single module, or else
    of the distribution's recorded files: what the certificate names beside the version, which
    a rebuilt plugin can keep. None when none of them can be found."""
    top = module_name.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    files: list[tuple[str, Path]] = []
    if spec and spec.submodule_search_locations:  # a package (namespace packages: every part)
        for root in map(Path, spec.submodule_search_locations):
            files += [
                (f"{top}/{path.relative_to(root).as_posix()}", path)
                for path in root.rglob("*")
                if path.is_file() and "__pycache__" not in path.parts
            ]
    elif spec and spec.origin and Path(spec.origin).is_file():
        files = [(Path(spec.origin).name, Path(spec.origin))]
    elif dist and dist.files:
        located = [(str(f), Path(str(dist.locate_file(f)))) for f in dist.files]
        files = [(label, path) for label, path in located if path.is_file()]
    if not files:
        return None
    digest = hashlib.sha256()
    for label, path in sorted(files):
        digest.update(label.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
