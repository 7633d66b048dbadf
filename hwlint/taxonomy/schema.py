"""The taxonomy's schema: every key a taxonomy file may hold, declared once, in the record it fills.

A record (:class:`Taxonomy`, :class:`Device`, :class:`DeviceNeutral`, :class:`Classification`,
:class:`Runner`) is a frozen dataclass whose YAML keys are declared with
:func:`~hwlint.taxonomy.fields.key` (the kinds of value and the reading live in
:mod:`hwlint.taxonomy.fields`): the key's path
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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .fields import (
    ANY_IDENTIFIER,
    ASCII_IDENTIFIER,
    DOTTED,
    IDENTIFIER,
    MODULE_PREFIX,
    REQUIRED,
    WORD,
    Choice,
    Context,
    Entries,
    Flag,
    Kind,
    Known,
    ListOf,
    MapOf,
    Number,
    Pairs,
    Section,
    Text,
    Version,
    key,
    plain_record,
)

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


# -- a kind of value the records share ------------------------------------------------------------


def _unknown_device(name: str, ctx: Context) -> str:
    return f"unknown device type {name!r} (not under devices)"


DEVICE = Known(
    "device type (a key of `devices`)",
    lambda ctx: ctx.section("devices"),
    _unknown_device,
    plural="device types (keys of `devices`)",
)


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
        ListOf(ASCII_IDENTIFIER),
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
        "whether a fix that imports the enum always also defines it where the import fails (`try: from "
        "<module> import <name>` / `except ImportError:` `<name> = enum.Enum(...)` with the taxonomy's "
        "classifications); false: the torch the tree runs on decides (the checkout's module, else the "
        "installed one: the fallback where it lacks the enum)",
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
