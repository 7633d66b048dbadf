"""The taxonomy: which classifications exist, what each requires, and what each runner executes.

The YAML file is policy; this module is the mechanism that loads and validates it. A taxonomy is
untrusted input: it is composed with PyYAML's safe machinery (no tags beyond the plain YAML types),
and every problem is a :class:`TaxonomyError` naming the file, line and key.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

#: Constraint vocabularies, in the order the docs list them.
INSTANTIATION = ("required", "forbidden", "either")
DEVICE_PARAM = ("required", "forbidden", "either")
ONLY_FOR = ("forbidden", "device", "either")
EXCEPT_FOR = ("forbidden", "either")
AVAILABILITY = ("forbidden", "allowed")

DEFAULT_POSITIONAL = (
    "generic_test_class",
    "scope",
    "except_for",
    "only_for",
    "include_lazy",
    "allow_mps",
    "allow_xpu",
)
MAX_TAXONOMY_BYTES = 1 << 20
# Deepest nesting of mappings and lists; the schema itself needs 4 levels.
MAX_TAXONOMY_DEPTH = 32
_PLAIN_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}


class TaxonomyError(Exception):
    """A taxonomy file that cannot be used. ``str()`` is ``path:line: key: message``."""

    def __init__(self, path: str, line: int | None, key: str, message: str):
        self.path, self.line, self.key, self.message = path, line, key, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")


@dataclass(frozen=True)
class Classification:
    name: str
    description: str = ""
    device: str | None = None
    instantiation: str = "either"
    device_param: str = "either"
    only_for: str = "either"
    except_for: str = "either"
    availability_checks: str = "allowed"
    forbidden_decorators: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Device:
    name: str
    opt_in: str | None = None


@dataclass(frozen=True)
class Runner:
    name: str
    device: str
    runs: tuple[str, ...]
    backends: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeviceNeutral:
    """How a test is written for every device: the fixes of HWC301 and HWC302 read this.

    ``calls`` maps a device-specific function to its device-neutral counterpart in the torch version
    ``torch`` (``torch.cuda.synchronize`` -> ``torch.accelerator.synchronize``); the class conversion
    instantiates with ``except_for`` and the ``opt_ins`` keywords set to True, importing the
    instantiation function from ``module``."""

    torch: str = ""
    module: str = "torch.testing._internal.common_device_type"
    except_for: tuple[str, ...] | None = None  # None: the devices of the generic runners
    opt_ins: tuple[str, ...] = ()
    calls: tuple[tuple[str, str], ...] = ()

    def counterpart(self, name: str) -> str | None:
        for source, target in self.calls:
            if source == name:
                return target
        return None


@dataclass(frozen=True)
class Taxonomy:
    path: str
    digest: str
    attribute: str
    enum_name: str
    enum_module: str
    test_method_prefix: str
    inherit: bool
    instantiation_functions: tuple[str, ...]
    positional: tuple[str, ...]
    device_params: tuple[str, ...]
    devices: dict[str, Device]
    availability_checks: frozenset[str]
    classifications: dict[str, Classification]
    runners: dict[str, Runner]
    decorator_sets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Module prefixes whose every attribute call counts as an availability check (torch.cuda: any
    # torch.cuda.*(...) call), as upstream's linter reads them.
    accelerator_apis: tuple[str, ...] = ()
    device_neutral: DeviceNeutral = field(default_factory=DeviceNeutral)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def generic_classification(self) -> Classification | None:
        """The classification for code that runs once, uninstantiated (GENERIC by default)."""
        for c in self.classifications.values():
            if c.device is None and c.instantiation == "forbidden":
                return c
        return None

    def generic_runner_devices(self) -> frozenset[str]:
        """Devices of the runners that run the generic classification: using them is no evidence
        of a device (a test that moves a tensor to the CPU runs on every runner)."""
        generic = self.generic_classification()
        if generic is None:
            return frozenset()
        return frozenset(r.device for r in self.runners.values() if generic.name in r.runs)

    def classification_for_device(self, device: str) -> Classification | None:
        """The device-specific classification whose ``device`` is *device*, if there is one."""
        for c in self.classifications.values():
            if c.device == device:
                return c
        return None

    def backends(self) -> tuple[str, ...]:
        """PrivateUse1 backend names declared by the runners."""
        seen: dict[str, None] = {}
        for r in self.runners.values():
            for b in r.backends:
                seen[b] = None
        return tuple(seen)

    def device_aliases(self, device: str) -> frozenset[str]:
        """Spellings of *device* that only_for/except_for accept (privateuse1 also takes backend names)."""
        if device == "privateuse1":
            return frozenset({device, *self.backends()})
        return frozenset({device})

    def is_accelerator_call(self, name: str) -> bool:
        """True when a call of the dotted *name* is an availability check or under an accelerator API."""
        if name in self.availability_checks:
            return True
        return any(
            name.startswith(prefix) and name[len(prefix) : len(prefix) + 1] == "."
            for prefix in self.accelerator_apis
        )


def default_taxonomy_path() -> Path:
    """The bundled default: inside the installed package, else the repository's top-level file."""
    package = Path(__file__).resolve().parent
    bundled = package / "taxonomy.yaml"  # a wheel's (importlib.resources says the same, slower)
    return bundled if bundled.is_file() else package.parent / "taxonomy.yaml"


def load_taxonomy(path: str | os.PathLike[str] | None = None, remember: bool = True) -> Taxonomy:
    """Load and validate a taxonomy; ``None`` means the bundled default. Raises TaxonomyError.

    With *remember*, the YAML's values are kept (signed, by the text's hash) beside the cache's
    key, and the next command that loads the same text validates them without importing PyYAML
    (a sixth of a warm run's start-up)."""
    p = Path(path) if path is not None else default_taxonomy_path()
    try:
        st = p.stat()
    except OSError as e:
        raise TaxonomyError(str(p), None, "", f"cannot read taxonomy: {e.strerror or e}") from None
    return _load_cached(str(p), st.st_mtime_ns, st.st_size, remember)


@functools.lru_cache(maxsize=16)
def _load_cached(path: str, _mtime: int, _size: int, remember: bool) -> Taxonomy:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TAXONOMY_BYTES + 1)
    except OSError as e:
        raise TaxonomyError(path, None, "", f"cannot read taxonomy: {e.strerror or e}") from None
    if len(data) > MAX_TAXONOMY_BYTES:
        raise TaxonomyError(path, None, "", f"taxonomy is larger than {MAX_TAXONOMY_BYTES} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise TaxonomyError(path, None, "", f"taxonomy is not UTF-8 ({e.reason})") from None
    return parse_taxonomy(text, path, remember)


#: Bumped when what :class:`_Reader` makes of a text changes: older remembered parses are then unread.
_REMEMBERED_FORMAT = 1


def parse_taxonomy(text: str, path: str = "<taxonomy>", remember: bool = False) -> Taxonomy:
    """Validate taxonomy *text* (YAML) and build a :class:`Taxonomy` (*remember*: see
    :func:`load_taxonomy`)."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    name = f"taxonomy-{_REMEMBERED_FORMAT}-{digest[:40]}"
    if remember:
        from .pipeline.cache import remembered

        found = remembered(name)
        if _parsed_shape(found):
            return _Validator(path, found["lines"], found["raw"]).build(digest)
    lines, raw = _parse_yaml(text, path)  # YAML's plain types: JSON keeps them as they are
    taxonomy = _Validator(path, lines, raw).build(digest)  # (it reads *raw*, never changes it)
    if remember:
        from .pipeline.cache import remember as keep

        keep(name, {"lines": lines, "raw": raw})
    return taxonomy


def _parsed_shape(found: Any) -> bool:
    """Whether a remembered parse has the shape :func:`parse_taxonomy` keeps."""
    return (
        type(found) is dict
        and type(found.get("raw")) is dict
        and type(found.get("lines")) is dict
        and all(type(k) is str and type(v) is int for k, v in found["lines"].items())
    )


def _parse_yaml(text: str, path: str) -> tuple[dict[str, int], dict[str, Any]]:
    """The plain values of taxonomy *text* and the line of each key path."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        _check_structure(text, path, loader)
        # libyaml's loader when PyYAML has it: every command loads the taxonomy, and the pure-Python
        # composer costs about as much as the rest of a warm run
        node = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        raise TaxonomyError(path, line, "", f"malformed YAML: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise TaxonomyError(path, None, "", f"malformed YAML: {e}") from None
    if node is None:
        raise TaxonomyError(path, None, "", "taxonomy is empty")
    reader = _Reader(path)
    raw = reader.value(node, "")
    if not isinstance(raw, dict):
        raise TaxonomyError(path, node.start_mark.line + 1, "", "top level must be a mapping")
    return reader.lines, raw


def _check_structure(text: str, path: str, loader: type) -> None:
    """Refuse aliases and deep nesting before anything is built from the YAML.

    A taxonomy has no use for aliases, and they are how a few hundred bytes expand to gigabytes
    ("billion laughs") or to a cycle (a recursive alias); nesting is bounded so that building the
    values can never exhaust the stack. Both are checked on the event stream, in constant memory.
    """
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent):
            line = event.start_mark.line + 1
            raise TaxonomyError(
                path, line, "", f"YAML aliases are not allowed in a taxonomy (*{event.anchor})"
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_TAXONOMY_DEPTH:
                line = event.start_mark.line + 1
                raise TaxonomyError(path, line, "", f"nested deeper than {MAX_TAXONOMY_DEPTH} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class _Reader:
    """Turns a composed YAML node tree into plain values, remembering the line of every key path."""

    def __init__(self, path: str):
        import yaml

        self.path = path
        self.lines: dict[str, int] = {}
        self._constructor = yaml.constructor.SafeConstructor()
        self._mapping, self._sequence = yaml.MappingNode, yaml.SequenceNode

    def value(self, node: yaml.Node, key: str) -> Any:
        line = node.start_mark.line + 1
        self.lines.setdefault(key, line)
        if node.tag not in _PLAIN_TAGS:
            raise TaxonomyError(self.path, line, key or "<top>", f"unsupported YAML tag {node.tag!r}")
        if isinstance(node, self._mapping):
            out: dict[str, Any] = {}
            for k_node, v_node in node.value:
                k = self._constructor.construct_object(k_node) if k_node.tag in _PLAIN_TAGS else None
                kl = k_node.start_mark.line + 1
                if not isinstance(k, str):
                    raise TaxonomyError(self.path, kl, key or "<top>", "mapping keys must be strings")
                sub = f"{key}.{k}" if key else k
                if k in out:
                    raise TaxonomyError(self.path, kl, sub, "duplicate key")
                self.lines[sub] = kl
                out[k] = self.value(v_node, sub)
            return out
        if isinstance(node, self._sequence):
            return [self.value(item, f"{key}[{i}]") for i, item in enumerate(node.value)]
        return self._constructor.construct_object(node)


_TOP_KEYS = {
    "version",
    "attribute",
    "enum",
    "test_method_prefix",
    "inherit",
    "instantiation",
    "device_params",
    "devices",
    "availability_checks",
    "accelerator_apis",
    "device_neutral",
    "decorator_sets",
    "classifications",
    "runners",
}
_CLASS_KEYS = {
    "description",
    "device",
    "instantiation",
    "device_param",
    "only_for",
    "except_for",
    "availability_checks",
    "forbidden_decorators",
}


class _Validator:
    def __init__(self, path: str, lines: dict[str, int], raw: dict[str, Any]):
        self.path, self.lines, self.raw = path, lines, raw

    def error(self, key: str, message: str) -> TaxonomyError:
        line = self.lines.get(key)
        probe = key
        while line is None and probe:
            probe = probe.rpartition(".")[0]
            line = self.lines.get(probe)
        return TaxonomyError(self.path, line, key, message)

    def get(
        self,
        mapping: dict[str, Any],
        key: str,
        prefix: str,
        kind: type | tuple[type, ...],
        default: Any = ...,
    ) -> Any:
        full = f"{prefix}.{key}" if prefix else key
        if key not in mapping:
            if default is ...:
                raise self.error(prefix or full, f"missing required key {key!r}")
            return default
        value = mapping[key]
        if value is None and default is None:  # an optional key written as null
            return None
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = " or ".join(t.__name__ for t in (kind if isinstance(kind, tuple) else (kind,)))
            raise self.error(full, f"expected {_kind_name(names)}, got {_describe(value)}")
        return value

    def identifier(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.replace("_", "a").isalnum() or value[0].isdigit():
            raise self.error(key, f"expected an identifier, got {_describe(value)}")
        return value

    def dotted(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not all(
            p and p.replace("_", "a").isalnum() and not p[0].isdigit() for p in value.split(".")
        ):
            raise self.error(key, f"expected a dotted name, got {_describe(value)}")
        return value

    def module_prefix(self, value: Any, key: str) -> str:
        """A dotted module prefix of at least two parts (``torch.cuda``): one part would match everything."""
        name = self.dotted(value, key)
        if "." not in name:
            raise self.error(key, f"expected a module prefix such as torch.cuda, got {_describe(value)}")
        return name

    def names(
        self,
        mapping: dict[str, Any],
        key: str,
        prefix: str,
        check: Callable[[Any, str], str],
        default: Any = ...,
    ) -> tuple[str, ...]:
        full = f"{prefix}.{key}" if prefix else key
        items = self.get(mapping, key, prefix, list, default)
        return tuple(check(v, f"{full}[{i}]") for i, v in enumerate(items))

    def choice(self, mapping: dict[str, Any], key: str, prefix: str, allowed: tuple[str, ...]) -> str:
        value = self.get(mapping, key, prefix, str, allowed[-1])
        if value not in allowed:
            raise self.error(f"{prefix}.{key}", f"expected one of {', '.join(allowed)}, got {value!r}")
        return value

    def unknown_keys(self, mapping: dict[str, Any], allowed: set[str], prefix: str) -> None:
        for k in mapping:
            if k not in allowed:
                full = f"{prefix}.{k}" if prefix else k
                raise self.error(full, f"unknown key (expected one of {', '.join(sorted(allowed))})")

    def build(self, digest: str) -> Taxonomy:
        raw = self.raw
        self.unknown_keys(raw, _TOP_KEYS, "")
        version = self.get(raw, "version", "", int, 1)
        if version != 1:
            raise self.error("version", f"unsupported taxonomy version {version} (this hwlint reads 1)")
        attribute = self.identifier(self.get(raw, "attribute", "", str, "hw_classification"), "attribute")
        enum = self.get(raw, "enum", "", dict, {})
        self.unknown_keys(enum, {"name", "module"}, "enum")
        enum_name = self.identifier(
            self.get(enum, "name", "enum", str, "HardwareClassification"), "enum.name"
        )
        enum_module = self.dotted(
            self.get(enum, "module", "enum", str, "torch.testing._internal.common_utils"), "enum.module"
        )
        prefix = self.identifier(self.get(raw, "test_method_prefix", "", str, "test"), "test_method_prefix")
        inherit = self.get(raw, "inherit", "", bool, False)
        inst = self.get(raw, "instantiation", "", dict, {})
        self.unknown_keys(inst, {"functions", "positional"}, "instantiation")
        functions = self.names(
            inst, "functions", "instantiation", self.identifier, ["instantiate_device_type_tests"]
        )
        if not functions:
            raise self.error("instantiation.functions", "at least one instantiation function is needed")
        positional = self.names(
            inst, "positional", "instantiation", self.identifier, list(DEFAULT_POSITIONAL)
        )
        device_params = self.names(raw, "device_params", "", self.identifier, ["device", "devices"])
        devices = self.build_devices()
        checks = frozenset(self.names(raw, "availability_checks", "", self.dotted, []))
        apis = self.names(raw, "accelerator_apis", "", self.module_prefix, [])
        sets = self.build_decorator_sets()
        classifications = self.build_classifications(devices, sets)
        runners = self.build_runners(devices, classifications)
        neutral = self.build_device_neutral(devices)
        return Taxonomy(
            path=self.path,
            digest=digest,
            attribute=attribute,
            enum_name=enum_name,
            enum_module=enum_module,
            test_method_prefix=prefix,
            inherit=inherit,
            instantiation_functions=functions,
            positional=positional,
            device_params=device_params,
            devices=devices,
            availability_checks=checks,
            classifications=classifications,
            runners=runners,
            decorator_sets=sets,
            accelerator_apis=apis,
            device_neutral=neutral,
            raw=raw,
        )

    def build_device_neutral(self, devices: dict[str, Device]) -> DeviceNeutral:
        key = "device_neutral"
        raw = self.get(self.raw, key, "", dict, {})
        self.unknown_keys(raw, {"torch", "module", "except_for", "opt_ins", "calls"}, key)
        version = self.get(raw, "torch", key, (str, int, float), "")
        module = self.dotted(self.get(raw, "module", key, str, DeviceNeutral.module), f"{key}.module")
        except_for = None
        if "except_for" in raw:
            except_for = self.names(raw, "except_for", key, self.identifier)
            for i, d in enumerate(except_for):
                if d not in devices:
                    raise self.error(
                        f"{key}.except_for[{i}]", f"unknown device type {d!r} (not under devices)"
                    )
        opt_ins = self.names(raw, "opt_ins", key, self.identifier, [])
        known = {d.opt_in for d in devices.values() if d.opt_in}
        for i, o in enumerate(opt_ins):
            if o not in known:
                raise self.error(
                    f"{key}.opt_ins[{i}]",
                    f"{o!r} is no device's opt_in ({', '.join(sorted(known)) or 'none'})",
                )
        calls = self.get(raw, "calls", key, dict, {})
        pairs = []
        for source, target in calls.items():
            ckey = f"{key}.calls.{source}"
            self.module_prefix(source, ckey)
            pairs.append((source, self.module_prefix(target, ckey)))
        return DeviceNeutral(str(version), module, except_for, opt_ins, tuple(pairs))

    def build_devices(self) -> dict[str, Device]:
        raw = self.get(self.raw, "devices", "", dict, None)
        if raw is None:
            raw = {
                "cpu": {},
                "cuda": {},
                "mps": {"opt_in": "allow_mps"},
                "xpu": {"opt_in": "allow_xpu"},
                "privateuse1": {},
            }
        devices = {}
        for name, spec in raw.items():
            key = f"devices.{name}"
            if name != name.lower() or not name.isidentifier():
                raise self.error(key, "device types are lowercase identifiers")
            spec = {} if spec is None else spec
            if not isinstance(spec, dict):
                raise self.error(key, f"expected a mapping, got {_describe(spec)}")
            self.unknown_keys(spec, {"opt_in"}, key)
            opt_in = spec.get("opt_in")
            if opt_in is not None:
                opt_in = self.identifier(opt_in, f"{key}.opt_in")
            devices[name] = Device(name, opt_in)
        if not devices:
            raise self.error("devices", "at least one device type is needed")
        return devices

    def build_decorator_sets(self) -> dict[str, tuple[str, ...]]:
        raw = self.get(self.raw, "decorator_sets", "", dict, {})
        sets = {}
        for name, items in raw.items():
            key = f"decorator_sets.{name}"
            if not isinstance(items, list):
                raise self.error(key, f"expected a list, got {_describe(items)}")
            sets[name] = tuple(self.identifier(v, f"{key}[{i}]") for i, v in enumerate(items))
        return sets

    def build_classifications(
        self, devices: dict[str, Device], sets: dict[str, tuple[str, ...]]
    ) -> dict[str, Classification]:
        raw = self.get(self.raw, "classifications", "", dict)
        if not raw:
            raise self.error("classifications", "at least one classification is needed")
        out: dict[str, Classification] = {}
        by_device: dict[str, str] = {}
        for name, spec in raw.items():
            key = f"classifications.{name}"
            if not name.isidentifier():
                raise self.error(key, "classification names are identifiers (enum member names)")
            if not isinstance(spec, dict):
                spec = {} if spec is None else spec
                if not isinstance(spec, dict):
                    raise self.error(key, f"expected a mapping, got {_describe(spec)}")
            self.unknown_keys(spec, _CLASS_KEYS, key)
            device = self.get(spec, "device", key, str, None)
            if device is not None:
                if device not in devices:
                    raise self.error(f"{key}.device", f"unknown device type {device!r} (not under devices)")
                if device in by_device:
                    raise self.error(
                        f"{key}.device", f"device {device!r} already belongs to {by_device[device]}"
                    )
                by_device[device] = name
            only_for = self.choice(spec, "only_for", key, ONLY_FOR)
            if only_for == "device" and device is None:
                raise self.error(f"{key}.only_for", "only_for: device needs the classification's device")
            decorators: set[str] = set()
            for i, item in enumerate(self.get(spec, "forbidden_decorators", key, list, [])):
                ikey = f"{key}.forbidden_decorators[{i}]"
                name_ = self.identifier(item, ikey)
                decorators.update(sets.get(name_, (name_,)))
            out[name] = Classification(
                name=name,
                description=self.get(spec, "description", key, str, ""),
                device=device,
                instantiation=self.choice(spec, "instantiation", key, INSTANTIATION),
                device_param=self.choice(spec, "device_param", key, DEVICE_PARAM),
                only_for=only_for,
                except_for=self.choice(spec, "except_for", key, EXCEPT_FOR),
                availability_checks=self.choice(spec, "availability_checks", key, AVAILABILITY),
                forbidden_decorators=frozenset(decorators),
            )
        return out

    def build_runners(
        self, devices: dict[str, Device], classifications: dict[str, Classification]
    ) -> dict[str, Runner]:
        raw = self.get(self.raw, "runners", "", dict, {})
        out = {}
        for name, spec in raw.items():
            key = f"runners.{name}"
            if not isinstance(spec, dict):
                raise self.error(key, f"expected a mapping, got {_describe(spec)}")
            self.unknown_keys(spec, {"device", "runs", "backend", "backends"}, key)
            device = self.get(spec, "device", key, str)
            if device not in devices:
                raise self.error(f"{key}.device", f"unknown device type {device!r} (not under devices)")
            runs = self.names(spec, "runs", key, self.identifier)
            for i, c in enumerate(runs):
                if c not in classifications:
                    raise self.error(f"{key}.runs[{i}]", f"unknown classification {c!r}")
            backends = list(self.names(spec, "backends", key, self.identifier, []))
            if "backend" in spec:
                backends.insert(0, self.identifier(spec["backend"], f"{key}.backend"))
            if backends and device != "privateuse1":
                raise self.error(f"{key}.backend", "only a privateuse1 runner names a backend")
            out[name] = Runner(name, device, runs, tuple(backends))
        return out


def _kind_name(names: str) -> str:
    return {
        "dict": "a mapping",
        "list": "a list",
        "str": "a string",
        "int": "an integer",
        "bool": "true or false",
    }.get(names, names)


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    kind = _kind_name(type(value).__name__)
    text = repr(value)
    return f"{kind} {text}" if len(text) <= 40 else kind


def effective_dict(taxonomy: Taxonomy) -> dict[str, Any]:
    """The taxonomy with every default filled in, in the file's own shape (for `taxonomy show`)."""
    return {
        "version": 1,
        "attribute": taxonomy.attribute,
        "enum": {"name": taxonomy.enum_name, "module": taxonomy.enum_module},
        "test_method_prefix": taxonomy.test_method_prefix,
        "inherit": taxonomy.inherit,
        "instantiation": {
            "functions": list(taxonomy.instantiation_functions),
            "positional": list(taxonomy.positional),
        },
        "device_params": list(taxonomy.device_params),
        "devices": {d.name: ({"opt_in": d.opt_in} if d.opt_in else {}) for d in taxonomy.devices.values()},
        "availability_checks": sorted(taxonomy.availability_checks),
        "accelerator_apis": list(taxonomy.accelerator_apis),
        "device_neutral": {
            "torch": taxonomy.device_neutral.torch,
            "module": taxonomy.device_neutral.module,
            # absent: the generic runners' devices
            **(
                {}
                if taxonomy.device_neutral.except_for is None
                else {"except_for": list(taxonomy.device_neutral.except_for)}
            ),
            "opt_ins": list(taxonomy.device_neutral.opt_ins),
            "calls": dict(taxonomy.device_neutral.calls),
        },
        "decorator_sets": {k: list(v) for k, v in taxonomy.decorator_sets.items()},
        "classifications": {
            c.name: {
                "description": c.description,
                "device": c.device,
                "instantiation": c.instantiation,
                "device_param": c.device_param,
                "only_for": c.only_for,
                "except_for": c.except_for,
                "availability_checks": c.availability_checks,
                "forbidden_decorators": sorted(c.forbidden_decorators),
            }
            for c in taxonomy.classifications.values()
        },
        "runners": {
            r.name: {
                "device": r.device,
                "runs": list(r.runs),
                **({"backends": list(r.backends)} if r.backends else {}),
            }
            for r in taxonomy.runners.values()
        },
    }
