"""The taxonomy's schema: every key a taxonomy file may hold, declared once, in the record it fills.

A record (:class:`Taxonomy`, :class:`Device`, :class:`DeviceNeutral`, :class:`Classification`,
:class:`Runner`) is a frozen dataclass whose YAML keys are declared with :func:`key`: the key's path
in the file, the :class:`Kind` of value it takes (which validates it), its default in the file's own
terms and one line of documentation. That one declaration is the dataclass field and its default,
what :mod:`hwlint.taxonomy.load` validates, what :func:`effective_dict` prints (`hwlint taxonomy
show`) and a row of the reference in docs/taxonomy.md (:mod:`hwlint.taxonomy.reference`). A rule
that spans keys (a classification's ``only_for: device`` needs its ``device``) is a function in the
record's ``CHECKS``, with a docstring the reference prints.

So a new key, constraint or vocabulary list is one ``key(...)`` line here, plus the code that reads it.
"""

# ruff: noqa: RUF009  (a record's defaults are key(...) calls: each returns a dataclasses.field)

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

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


class TaxonomyError(Exception):
    """A taxonomy file that cannot be used. ``str()`` is ``path:line: key: message``."""

    def __init__(self, path: str, line: int | None, key: str, message: str):
        self.path, self.line, self.key, self.message = path, line, key, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")


class Context(Protocol):
    """What a :class:`Kind` reads a value with (:class:`hwlint.taxonomy.load._Validator`)."""

    def error(self, key: str, message: str) -> TaxonomyError:
        """The error at *key* (its line found by the key's path)."""
        ...

    def section(self, name: str) -> Any:
        """The value of the taxonomy's field *name* read so far (``devices``, ``classifications``)."""
        ...


# -- kinds of value ------------------------------------------------------------------------------


def kind_name(names: str) -> str:
    return {
        "dict": "a mapping",
        "list": "a list",
        "str": "a string",
        "int": "an integer",
        "bool": "true or false",
    }.get(names, names)


def describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    kind = kind_name(type(value).__name__)
    text = repr(value)
    return f"{kind} {text}" if len(text) <= 40 else kind


class Kind:
    """How one value is read: its YAML type (:attr:`types`, checked first where the value is a key's
    own), then :meth:`check`, which validates it and builds the record's value; :meth:`plain` turns
    that value back into the file's terms (`taxonomy show`). :attr:`shape` names it in the docs."""

    types: tuple[type, ...] = (object,)
    shape = "value"
    plural = ""  # the shape of a list of them (default: the shape's plural)

    def read(self, ctx: Context, value: Any, key: str) -> Any:
        if not isinstance(value, self.types) or (self.types == (int,) and type(value) is bool):
            names = " or ".join(t.__name__ for t in self.types)
            raise ctx.error(key, f"expected {kind_name(names)}, got {describe(value)}")
        return self.check(ctx, value, key)

    def check(self, ctx: Context, value: Any, key: str) -> Any:
        return value

    def plain(self, value: Any) -> Any:
        return value


class Text(Kind):
    types = (str,)
    shape = "text"


class Flag(Kind):
    types = (bool,)
    shape = "true or false"


class Number(Kind):
    types = (int,)
    shape = "integer"


class Version(Kind):
    """A version, written as a string or a number (``"2.13"``, ``2.13``); read as a string."""

    types = (str, int, float)
    shape = "version"

    def check(self, ctx: Context, value: Any, key: str) -> str:
        return str(value)


class Name(Kind):
    """A string of some form (an identifier, a dotted name...), one message when it is not."""

    types: tuple[type, ...] = (str,)

    def __init__(
        self, shape: str, expected: str, valid: Callable[[str], bool], typed: bool = True, plural: str = ""
    ):
        """*typed*: a key of this kind that holds no string is "expected a string" (else "expected
        *expected*", as for an item of a list)."""
        self.shape, self.expected, self.valid, self.plural = shape, expected, valid, plural
        if not typed:
            self.types = (object,)

    def check(self, ctx: Context, value: Any, key: str) -> str:
        if not isinstance(value, str) or not self.valid(value):
            raise ctx.error(key, f"expected {self.expected}, got {describe(value)}")
        return value


def _is_identifier(value: str) -> bool:
    return value.replace("_", "a").isalnum() and not value[0].isdigit()


IDENTIFIER = Name("identifier", "an identifier", _is_identifier)
ANY_IDENTIFIER = Name("identifier", "an identifier", _is_identifier, typed=False)
#: A word of an identifier as the device scan splits them (`skipIfNoNCCL`: skip, if, no, nccl).
WORD = Name(
    "lowercase word",
    "a lowercase word (letters only)",
    lambda v: v.isascii() and v.isalpha() and v.islower(),
    plural="lowercase words",
)
DOTTED = Name("dotted name", "a dotted name", lambda v: all(p and _is_identifier(p) for p in v.split(".")))


class ModulePrefix(Kind):
    """A dotted name of at least two parts (``torch.cuda``): one part would match every call."""

    types = (str,)
    shape = "module prefix (`torch.cuda`)"
    plural = "module prefixes (`torch.cuda`)"

    def check(self, ctx: Context, value: Any, key: str) -> str:
        name = DOTTED.check(ctx, value, key)
        if "." not in name:
            raise ctx.error(key, f"expected a module prefix such as torch.cuda, got {describe(value)}")
        return name


MODULE_PREFIX = ModulePrefix()


class Choice(Kind):
    types = (str,)

    def __init__(self, allowed: tuple[str, ...]):
        self.allowed = allowed
        self.shape = " \\| ".join(f"`{a}`" for a in allowed)

    def check(self, ctx: Context, value: Any, key: str) -> str:
        if value not in self.allowed:
            raise ctx.error(key, f"expected one of {', '.join(self.allowed)}, got {value!r}")
        return value


class Known(Kind):
    """A name that must be among those another part of the taxonomy defines (a device type under
    ``devices``, a classification): *known* gives them, *message* says what an unknown one is."""

    types = (str,)

    def __init__(
        self,
        shape: str,
        known: Callable[[Context], Iterable[str]],
        message: Callable[[str, Context], str],
        form: Kind | None = None,
        plural: str = "",
    ):
        self.shape, self.known, self.message, self.form = shape, known, message, form
        self.plural = plural

    def check(self, ctx: Context, value: Any, key: str) -> str:
        if self.form is not None:
            value = self.form.check(ctx, value, key)
        if value not in self.known(ctx):
            raise ctx.error(key, self.message(value, ctx))
        return value


def _unknown_device(name: str, ctx: Context) -> str:
    return f"unknown device type {name!r} (not under devices)"


DEVICE = Known(
    "device type (a key of `devices`)",
    lambda ctx: ctx.section("devices"),
    _unknown_device,
    plural="device types (keys of `devices`)",
)


class ListOf(Kind):
    """A list of *item* values; the record holds a tuple (or a frozenset, shown sorted)."""

    types = (list,)

    def __init__(self, item: Kind, into: type = tuple, at_least: int = 0, too_few: str = ""):
        self.item, self.into, self.at_least, self.too_few = item, into, at_least, too_few
        self.shape = f"list of {item.plural or item.shape + 's'}"

    def check(self, ctx: Context, value: Any, key: str) -> Any:
        items = [self.item.check(ctx, v, f"{key}[{i}]") for i, v in enumerate(value)]
        if len(items) < self.at_least:
            raise ctx.error(key, self.too_few)
        return self.into(items)

    def plain(self, value: Any) -> Any:
        return sorted(value) if isinstance(value, frozenset) else [self.item.plain(v) for v in value]


class MapOf(Kind):
    """A mapping of names (any string) to *value* values."""

    types = (dict,)

    def __init__(self, value: Kind, shape: str):
        self.value, self.shape = value, shape

    def check(self, ctx: Context, value: Any, key: str) -> Any:
        return {name: self.value.read(ctx, v, f"{key}.{name}") for name, v in value.items()}

    def plain(self, value: Any) -> Any:
        return {name: self.value.plain(v) for name, v in value.items()}


class Pairs(Kind):
    """A mapping of *source* to *target* names, kept in order as a tuple of pairs."""

    types = (dict,)

    def __init__(self, source: Kind, target: Kind, shape: str):
        self.source, self.target, self.shape = source, target, shape

    def check(self, ctx: Context, value: Any, key: str) -> Any:
        pairs = []
        for s, t in value.items():
            where = f"{key}.{s}"
            pairs.append((self.source.check(ctx, s, where), self.target.check(ctx, t, where)))
        return tuple(pairs)

    def plain(self, value: Any) -> Any:
        return dict(value)


class Section(Kind):
    """A mapping that fills one record (``device_neutral``)."""

    types = (dict,)

    def __init__(self, record: type):
        self.record = record
        self.shape = f"mapping: `{record.__name__}` (below)"

    def check(self, ctx: Context, value: Any, key: str) -> Any:
        return self.record(**read_fields(ctx, self.record, value, key))

    def plain(self, value: Any) -> Any:
        return plain_record(value)


class Entries(Kind):
    """A mapping of names to records (``devices``, ``classifications``, ``runners``): each entry is
    a mapping of the record's keys (an empty entry takes every default, as does null when the record
    has no required key) and the record's
    ``name`` is its key. *name_ok* and *bad_name* check the names, *too_few* an empty mapping."""

    types = (dict,)

    def __init__(
        self,
        record: type,
        name_ok: Callable[[str], bool] = lambda name: True,
        bad_name: str = "",
        too_few: str = "",
    ):
        self.record, self.name_ok, self.bad_name, self.too_few = record, name_ok, bad_name, too_few
        self.shape = f"mapping of names to `{record.__name__}` (below)"

    def check(self, ctx: Context, value: Any, key: str) -> Any:
        if not value and self.too_few:
            raise ctx.error(key, self.too_few)
        out: dict[str, Any] = {}
        for name, spec in value.items():
            where = f"{key}.{name}"
            if not self.name_ok(name):
                raise ctx.error(where, self.bad_name)
            if spec is None and not any(k.default is REQUIRED for _, k in keys(self.record)):
                spec = {}  # every default
            if not isinstance(spec, dict):
                raise ctx.error(where, f"expected a mapping, got {describe(spec)}")
            out[name] = self.record(name=name, **read_fields(ctx, self.record, spec, where, out))
        return out

    def plain(self, value: Any) -> Any:
        return {name: plain_record(r) for name, r in value.items()}


# -- a key of a record ---------------------------------------------------------------------------

REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()
_KEY = "hwlint.taxonomy"


@dataclass(frozen=True)
class Key:
    """One key of the file, read into one field of a record."""

    path: str  # the key, dotted when it sits in a sub-mapping of the record (`enum.name`)
    kind: Kind
    default: Any  # in the file's own terms (a list, not a tuple); REQUIRED: no default
    doc: str
    single: str = ""  # a second key that gives one item of this list, first (runners' `backend`)
    check: Callable[[Any], str | None] | None = None  # a message for a value it refuses

    @property
    def optional(self) -> bool:
        """Whether the key may be absent or null, meaning "none" (its default is null)."""
        return self.default is None


class _Defaults:
    """The context the defaults are read with: they are valid, and refer to nothing."""

    def error(self, key: str, message: str) -> TaxonomyError:
        raise AssertionError(f"invalid default of {key}: {message}")

    def section(self, name: str) -> Any:
        return {}


def key(
    path: str,
    kind: Kind,
    default: Any = REQUIRED,
    doc: str = "",
    *,
    single: str = "",
    check: Callable[[Any], str | None] | None = None,
) -> Any:
    """Declare a record's field as a key of the file (see the module's docstring)."""
    spec = Key(path, kind, default, doc, single, check)
    metadata = {_KEY: spec}
    if default is REQUIRED:
        return field(metadata=metadata)
    value = None if default is None else kind.read(_Defaults(), default, path)
    if isinstance(value, (dict, list, set)):
        return field(default_factory=lambda: kind.read(_Defaults(), default, path), metadata=metadata)
    return field(default=value, metadata=metadata)


def keys(record: type) -> list[tuple[str, Key]]:
    """(field name, key) of each key of *record*, in the file's order."""
    return [(f.name, f.metadata[_KEY]) for f in dataclasses.fields(record) if _KEY in f.metadata]


def read_fields(
    ctx: Context,
    record: type,
    mapping: dict[str, Any],
    prefix: str,
    siblings: dict[str, Any] | None = None,
    into: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The field values of *record* read from *mapping* (the mapping at key path *prefix*): unknown
    keys refused, defaults filled in, then the record's ``CHECKS`` (given *siblings*, the entries
    read before this one). *into* receives each value as soon as it is read (a later key may refer
    to it: ``ctx.section``)."""
    specs = keys(record)
    values: dict[str, Any] = {} if into is None else into
    _unknown_keys(
        ctx, mapping, {k for _, s in specs for k in (s.path.partition(".")[0], s.single) if k}, prefix
    )
    sections: dict[str, dict[str, Any]] = {}
    for name, spec in specs:
        where, sub, path = mapping, spec.path, prefix
        if "." in spec.path:
            head, _, sub = spec.path.partition(".")
            path = f"{prefix}.{head}" if prefix else head
            if head not in sections:
                sections[head] = _section(ctx, mapping, head, path, [s for _, s in specs])
            where = sections[head]
        values[name] = _read_key(ctx, where, spec, sub, path)
    for check in getattr(record, "CHECKS", ()):
        check(ctx, values, prefix, siblings or {})
    return values


def _section(ctx: Context, mapping: dict[str, Any], head: str, path: str, specs: list[Key]) -> dict[str, Any]:
    section = mapping.get(head, {})
    if not isinstance(section, dict):
        raise ctx.error(path, f"expected a mapping, got {describe(section)}")
    subs = {s.path.partition(".")[2] for s in specs if s.path.partition(".")[0] == head and "." in s.path}
    _unknown_keys(ctx, section, subs, path)
    return section


def _read_key(ctx: Context, mapping: dict[str, Any], spec: Key, name: str, prefix: str) -> Any:
    full = f"{prefix}.{name}" if prefix else name
    if name not in mapping and not (spec.single and spec.single in mapping):
        if spec.default is REQUIRED:
            raise ctx.error(prefix or full, f"missing required key {name!r}")
        return None if spec.default is None else spec.kind.read(ctx, spec.default, full)
    value = mapping.get(name, [])
    if value is None and (spec.optional or (isinstance(spec.kind, Entries) and spec.default is not REQUIRED)):
        value = spec.default  # written as null: the default (for an optional key: none)
        if value is None:
            return None
    value = spec.kind.read(ctx, value, full)
    if spec.single and spec.single in mapping:
        item = spec.kind.item  # type: ignore[attr-defined]  # (a `single` key is a list's)
        value = (item.check(ctx, mapping[spec.single], f"{prefix}.{spec.single}"), *value)
    if spec.check is not None:
        message = spec.check(value)
        if message:
            raise ctx.error(full, message)
    return value


def _unknown_keys(ctx: Context, mapping: dict[str, Any], allowed: set[str], prefix: str) -> None:
    for k in mapping:
        if k not in allowed:
            full = f"{prefix}.{k}" if prefix else k
            raise ctx.error(full, f"unknown key (expected one of {', '.join(sorted(allowed))})")


def plain_record(record: Any) -> dict[str, Any]:
    """*record* in the file's terms, every key present (defaults filled in)."""
    out: dict[str, Any] = {}
    for name, spec in keys(type(record)):
        value = getattr(record, name)
        target = out
        path = spec.path
        if "." in path:
            head, _, path = path.partition(".")
            target = out.setdefault(head, {})
        target[path] = None if value is None else spec.kind.plain(value)
    return out


# -- the records ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    """A device type `instantiate_device_type_tests` can generate classes for."""

    name: str
    opt_in: str | None = key(
        "opt_in",
        ANY_IDENTIFIER,
        None,
        "the keyword argument without which instantiation skips the device (`allow_mps`)",
    )
    collective_backends: tuple[str, ...] = key(
        "collective_backends",
        ListOf(WORD),
        [],
        'distributed backends that exist for this device only: `backend="nccl"` is a use of it, '
        "`requires_nccl()` a guard",
    )
    library_modules: tuple[str, ...] = key(
        "library_modules",
        ListOf(WORD),
        [],
        "torch modules named after a library of this device only: `torch.backends.cudnn.*` is a guard "
        "(a setting or a query), `skipIfNoCudnn` too",
    )

    @property
    def libraries(self) -> tuple[str, ...]:
        """The words that name this device through one of its libraries."""
        return (*self.collective_backends, *self.library_modules)


def _opt_ins(ctx: Context) -> set[str]:
    return {d.opt_in for d in ctx.section("devices").values() if d.opt_in}


def _not_an_opt_in(name: str, ctx: Context) -> str:
    return f"{name!r} is no device's opt_in ({', '.join(sorted(_opt_ins(ctx))) or 'none'})"


@dataclass(frozen=True)
class DeviceNeutral:
    """How a test is written for every device: the fixes of HWC301 and HWC302 read this.

    ``calls`` maps a device-specific function to its device-neutral counterpart in the torch version
    ``torch`` (``torch.cuda.synchronize`` -> ``torch.accelerator.synchronize``); the class conversion
    instantiates with ``except_for`` and the ``opt_ins`` keywords set to True, importing the
    instantiation function from ``module``."""

    torch: str = key("torch", Version(), "", "the torch version whose functions `calls` names")
    module: str = key(
        "module",
        DOTTED,
        "torch.testing._internal.common_device_type",
        "where a converted class imports the instantiation function from",
    )
    except_for: tuple[str, ...] | None = key(
        "except_for",
        ListOf(Known(DEVICE.shape, DEVICE.known, _unknown_device, IDENTIFIER, DEVICE.plural)),
        None,
        "devices a converted class is not instantiated for (null: the devices of the runners that run "
        "the generic classification)",
    )
    opt_ins: tuple[str, ...] = key(
        "opt_ins",
        ListOf(Known("a device's `opt_in`", _opt_ins, _not_an_opt_in, IDENTIFIER, "devices' `opt_in`s")),
        [],
        "opt-in keywords a converted class is instantiated with, set to True",
    )
    calls: tuple[tuple[str, str], ...] = key(
        "calls",
        Pairs(MODULE_PREFIX, MODULE_PREFIX, "mapping of dotted name to dotted name"),
        {},
        "device-specific functions and their device-neutral counterparts (same positional arguments, "
        "same kind of result)",
    )

    def counterpart(self, name: str) -> str | None:
        for source, target in self.calls:
            if source == name:
                return target
        return None


class _Decorators(Kind):
    """Decorator names, a name of a decorator set standing for its members."""

    types = (list,)
    shape = "list of decorator names or `decorator_sets` names"

    def check(self, ctx: Context, value: Any, key: str) -> frozenset[str]:
        sets = ctx.section("decorator_sets")
        names: set[str] = set()
        for i, item in enumerate(value):
            name = IDENTIFIER.check(ctx, item, f"{key}[{i}]")
            names.update(sets.get(name, (name,)))
        return frozenset(names)

    def plain(self, value: Any) -> Any:
        return sorted(value)


def _one_classification_per_device(ctx: Context, values: dict[str, Any], key: str, siblings: dict) -> None:
    """A device belongs to one classification at most."""
    device = values["device"]
    for other in siblings.values():
        if device is not None and other.device == device:
            raise ctx.error(f"{key}.device", f"device {device!r} already belongs to {other.name}")


def _only_for_device_needs_a_device(ctx: Context, values: dict[str, Any], key: str, siblings: dict) -> None:
    """`only_for: device` needs the classification's `device`."""
    if values["only_for"] == "device" and values["device"] is None:
        raise ctx.error(f"{key}.only_for", "only_for: device needs the classification's device")


@dataclass(frozen=True)
class Classification:
    """A member of the enum, and what a class that declares it must obey."""

    CHECKS: ClassVar[tuple[Callable[..., None], ...]] = (
        _one_classification_per_device,
        _only_for_device_needs_a_device,
    )

    name: str
    description: str = key("description", Text(), "", "what runs it (for people; `taxonomy show`)")
    device: str | None = key(
        "device", DEVICE, None, "the one device type its classes run on (null: none, or every one)"
    )
    instantiation: str = key(
        "instantiation", Choice(INSTANTIATION), "either", "whether `instantiate_device_type_tests` is called"
    )
    device_param: str = key(
        "device_param", Choice(DEVICE_PARAM), "either", "whether every test method takes `device`/`devices`"
    )
    only_for: str = key(
        "only_for",
        Choice(ONLY_FOR),
        "either",
        "instantiation's `only_for` (`device`: exactly the classification's device)",
    )
    except_for: str = key("except_for", Choice(EXCEPT_FOR), "either", "instantiation's `except_for`")
    availability_checks: str = key(
        "availability_checks",
        Choice(AVAILABILITY),
        "allowed",
        "whether the class may call an accelerator API (`availability_checks`, `accelerator_apis`)",
    )
    forbidden_decorators: frozenset[str] = key(
        "forbidden_decorators", _Decorators(), [], "decorators its tests may not carry"
    )


def _backend_only_on_privateuse1(ctx: Context, values: dict[str, Any], key: str, siblings: dict) -> None:
    """Only a `privateuse1` runner names a backend."""
    if values["backends"] and values["device"] != "privateuse1":
        raise ctx.error(f"{key}.backend", "only a privateuse1 runner names a backend")


def _unknown_classification(name: str, ctx: Context) -> str:
    return f"unknown classification {name!r}"


@dataclass(frozen=True)
class Runner:
    """A CI runner: the classifications it executes, on one device type."""

    CHECKS: ClassVar[tuple[Callable[..., None], ...]] = (_backend_only_on_privateuse1,)

    name: str
    device: str = key(
        "device", DEVICE, REQUIRED, "the device type of the classes it runs (a ROCm runner's is `cuda`)"
    )
    runs: tuple[str, ...] = key(
        "runs",
        ListOf(
            Known(
                "classification name",
                lambda ctx: ctx.section("classifications"),
                _unknown_classification,
                IDENTIFIER,
            )
        ),
        REQUIRED,
        "the classifications it executes",
    )
    backends: tuple[str, ...] = key(
        "backends",
        ListOf(IDENTIFIER),
        [],
        "the PrivateUse1 backend names it runs",
        single="backend",
    )


def _version(value: int) -> str | None:
    return None if value == 1 else f"unsupported taxonomy version {value} (this hwlint reads 1)"


#: The devices of a taxonomy that lists none.
DEFAULT_DEVICES = {
    "cpu": {},
    "cuda": {"collective_backends": ["nccl"], "library_modules": ["cudnn"]},
    "mps": {"opt_in": "allow_mps"},
    "xpu": {"opt_in": "allow_xpu", "collective_backends": ["xccl"]},
    "privateuse1": {},
}


def _one_meaning_per_word(ctx: Context, values: dict[str, Any], key: str, siblings: dict) -> None:
    """A library word (`collective_backends`, `library_modules`) belongs to one device, and neither it
    nor an accelerator word is a device type."""
    devices: dict[str, Device] = values["devices"]
    owner: dict[str, str] = {}
    for device in devices.values():
        for field_name in ("collective_backends", "library_modules"):
            for i, word in enumerate(getattr(device, field_name)):
                where = f"devices.{device.name}.{field_name}[{i}]"
                if word in devices:
                    raise ctx.error(where, f"{word!r} is a device type")
                if word in owner:
                    raise ctx.error(where, f"{word!r} already belongs to device {owner[word]}")
                owner[word] = device.name
    for i, word in enumerate(values["accelerator_words"]):
        where = f"accelerator_words[{i}]"
        if word in devices:
            raise ctx.error(where, f"{word!r} is a device type")
        if word in owner:
            raise ctx.error(where, f"{word!r} is a library of device {owner[word]}")


@dataclass(frozen=True, kw_only=True)
class Taxonomy:
    """A validated taxonomy: what the rules, the inference, the fixes and the selector read."""

    CHECKS: ClassVar[tuple[Callable[..., None], ...]] = (_one_meaning_per_word,)

    path: str
    digest: str
    version: int = key("version", Number(), 1, "the file format", check=_version)
    attribute: str = key(
        "attribute", IDENTIFIER, "hw_classification", "the class attribute that declares a classification"
    )
    enum_name: str = key("enum.name", IDENTIFIER, "HardwareClassification", "the enum's name")
    enum_module: str = key(
        "enum.module", DOTTED, "torch.testing._internal.common_utils", "the module that defines the enum"
    )
    enum_fallback: bool = key(
        "enum.fallback",
        Flag(),
        False,
        "whether a fix that imports the enum also defines it where the import fails (a suite that must "
        "import on a torch without it: `try: from <module> import <name>` / `except ImportError:` "
        "`<name> = enum.Enum(...)` with the taxonomy's classifications)",
    )
    test_method_prefix: str = key(
        "test_method_prefix", IDENTIFIER, "test", "a test class is one whose own body defines such a method"
    )
    inherit: bool = key(
        "inherit",
        Flag(),
        False,
        "whether a classification inherited from a base in the file declares a class (the runtime's "
        "view; upstream's linter: no)",
    )
    instantiation_functions: tuple[str, ...] = key(
        "instantiation.functions",
        ListOf(IDENTIFIER, at_least=1, too_few="at least one instantiation function is needed"),
        ["instantiate_device_type_tests"],
        "the functions that instantiate a class per device",
    )
    positional: tuple[str, ...] = key(
        "instantiation.positional",
        ListOf(IDENTIFIER),
        list(DEFAULT_POSITIONAL),
        "their parameters in order, for calls that pass filters positionally",
    )
    device_params: tuple[str, ...] = key(
        "device_params",
        ListOf(IDENTIFIER),
        ["device", "devices"],
        "parameters through which a test gets its device",
    )
    devices: dict[str, Device] = key(
        "devices",
        Entries(
            Device,
            lambda n: n == n.lower() and n.isidentifier(),
            "device types are lowercase identifiers",
            "at least one device type is needed",
        ),
        DEFAULT_DEVICES,
        "the device types instantiation can generate classes for",
    )
    accelerator_words: tuple[str, ...] = key(
        "accelerator_words",
        ListOf(WORD),
        ["gpu", "gpus", "multigpu", "accelerator", "accelerators"],
        "words that name an accelerator but no device: `requires_gpu()`, `GPU_TYPE`, `torch.accelerator` "
        "are uses of any accelerator",
    )
    availability_checks: frozenset[str] = key(
        "availability_checks",
        ListOf(DOTTED, into=frozenset),
        [],
        "calls that ask whether an accelerator exists (exact dotted names)",
    )
    accelerator_modules: tuple[str, ...] = key(
        "accelerator_modules",
        ListOf(IDENTIFIER),
        [],
        "accelerator module names: a call `torch.<...>` any of whose dotted parts after `torch` is one "
        "of them is an accelerator API call (upstream's rule: `torch.backends.mps.is_available()`)",
    )
    accelerator_apis: tuple[str, ...] = key(
        "accelerator_apis",
        ListOf(MODULE_PREFIX),
        [],
        "modules whose every attribute call counts as an accelerator API call (`torch.cuda`: any "
        "`torch.cuda.*(...)`)",
    )
    device_neutral: DeviceNeutral = key(
        "device_neutral",
        Section(DeviceNeutral),
        {},
        "how a test is written for every device (HWC301, HWC302)",
    )
    decorator_sets: dict[str, tuple[str, ...]] = key(
        "decorator_sets",
        MapOf(ListOf(IDENTIFIER), "mapping of names to lists of identifiers"),
        {},
        "named lists of decorators, for `forbidden_decorators`",
    )
    classifications: dict[str, Classification] = key(
        "classifications",
        Entries(
            Classification,
            str.isidentifier,
            "classification names are identifiers (enum member names)",
            "at least one classification is needed",
        ),
        REQUIRED,
        "the enum's members and what each requires",
    )
    runners: dict[str, Runner] = key("runners", Entries(Runner), {}, "the CI runners and what each executes")
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
        """True when a call of the dotted *name* is an availability check, a ``torch.`` call with a
        part among the accelerator modules (``torch.backends.mps.is_available``) or a call under an
        accelerator API prefix. (The device scan remembers the answer per name.)"""
        if name in self.availability_checks:
            return True
        if self.accelerator_modules and name.startswith("torch."):
            modules = self.accelerator_modules
            if any(part in modules for part in name.split(".")[1:]):
                return True
        return any(
            name.startswith(prefix) and name[len(prefix) : len(prefix) + 1] == "."
            for prefix in self.accelerator_apis
        )


def effective_dict(taxonomy: Taxonomy) -> dict[str, Any]:
    """The taxonomy with every default filled in, in the file's own shape (for `taxonomy show`)."""
    return plain_record(taxonomy)
