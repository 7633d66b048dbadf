"""How a taxonomy record declares its YAML keys, and how a mapping is read into one.

:func:`key` declares one dataclass field as one key of the file: its path, the :class:`Kind` of
value it takes (which validates it and builds the record's value), its default in the file's own
terms and a line of documentation. :func:`read_fields` reads a record's keys from a mapping (unknown
keys refused, defaults filled in, the record's ``CHECKS`` run); :func:`plain_record` turns a record
back into the file's terms. The records themselves, the table of every key, are
:mod:`hwlint.taxonomy.schema`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..words import clipped, excerpt, visible


class TaxonomyError(Exception):
    """A taxonomy file that cannot be used. ``str()`` is ``path:line: key: message``."""

    def __init__(self, path: str, line: int | None, key: str, message: str):
        self.path, self.line, self.key, self.message = path, line, key, message
        # the key may hold a name from the file: shown escaped, never a raw newline or ESC
        where = f"{visible(path)}:{line}" if line else visible(path)
        super().__init__(f"{where}: {clipped(key)}: {message}" if key else f"{where}: {message}")


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
    return f"{kind_name(type(value).__name__)} {excerpt(value)}"


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


def _is_name(value: str) -> bool:
    return (
        value[:1].isascii()
        and (value[:1].isalnum() or value[:1] == "_")
        and value.isascii()
        and all(c.isalnum() or c in "_.-" for c in value)
    )


#: What CI writes into logs, shell commands and matrix JSON (a runner's, a device type's, a
#: classification's, a backend's name): ASCII letters, digits, ``_``, ``.`` and ``-``, not first
#: ``-`` or ``.``. A newline or ESC would forge a log line (``::error``), ``cpu;$(id)`` a command
#: in a workflow's ``run:``, a leading ``-`` an option of the command it is passed to.
NAME = Name(
    "name",
    "a name of ASCII letters, digits, `_`, `.` and `-` (starting with a letter, digit or `_`)",
    _is_name,
)


#: A PrivateUse1 backend's name: generated classes are named after it (``TestFooOPENREG``), and it is
#: printed as runner names are.
ASCII_IDENTIFIER = Name(
    "ASCII identifier",
    "an identifier of ASCII letters, digits and `_`",
    lambda v: v.isascii() and _is_identifier(v),
)


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
            raise ctx.error(key, f"expected one of {', '.join(self.allowed)}, got {excerpt(value)}")
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
    ``name`` is its key: a :data:`NAME` always, and what *name_ok* accepts (else *bad_name*);
    *too_few* is the message for an empty mapping."""

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
            if not isinstance(name, str) or not _is_name(name):
                raise ctx.error(where, f"expected {NAME.expected}, got {describe(name)}")
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
