"""Class decorators hwselect knows to leave a test class alone, and the ones it does not.

A class decorator runs at import and may do anything to the class: upstream's
``@_expose_mixin_tests`` copies a mixin's ``test_*`` methods onto it with ``setattr``; torch's
``@slowTest`` or ``@onlyCUDA`` return a function in its place (pytest then collects no class of that
name); ``parameterized_class`` makes new classes. A decorator is *harmless* when it returns the class
itself with the same name and the same tests (it may mark them skipped, expected to fail, or patch
their configuration); each entry below was checked against torch's testing modules (2.13 and
2.14.1) or the standard library. Any other class decorator puts the class among the uncertain ones:
addressed through its file, named on stderr.
"""

from __future__ import annotations

import re

from ..model import ClassInfo, Decorator, FileModel, mro

#: Decorators (the dotted name as written, call arguments aside) that return the class unchanged.
HARMLESS_NAMES = frozenset(
    {
        # unittest and pytest
        "skip",
        "skipIf",
        "skipUnless",
        "expectedFailure",
        "skipif",
        "xfail",
        # torch.testing._internal.common_utils
        "markDynamoStrictTest",
        "unMarkDynamoStrictTest",
        "instantiate_parametrized_tests",  # expands @parametrize tests in place; the class stays
        "serialTest",
        "requires_cuda",
        "requires_cuda_p2p_access",
        # torch.testing._internal.common_distributed
        "requires_nccl",
        "requires_nccl_version",
        "requires_gloo",
        "requires_mpi",
        "skip_if_win32",
        "skip_but_pass_in_sandcastle",
        "skip_but_pass_in_sandcastle_if",
        # torch.testing._internal.inductor_utils: functools.partial(unittest.skipIf, ...)
        "requires_gpu",
        # torch.testing._internal.common_device_type: records dtypes on the object, returns it
        "dtypes",
        # dataclasses
        "dataclass",
    }
)
#: Name patterns of torch's skip and expected-failure decorators (``skipIfRocm``,
#: ``skipIfTorchDynamo``, ``xfailIfS390X``, ``dtypesIfCUDA``): each handles a class by marking it.
HARMLESS_PATTERN = re.compile(
    r"^(?:skipIf|skipUnless|xfailIf|xpassIf|expectedFailureIf|dtypesIf)[A-Za-z0-9_]*$"
)
#: Dotted prefixes and suffixes: pytest's markers, configuration patches (``config.patch``,
#: ``torch._inductor.config.patch``, ``inductor_config.patch``) and ``unittest.mock.patch``, which on
#: a class patch each test method and return the class.
_HARMLESS_DOTTED = re.compile(
    r"^(?:pytest\.)?mark\.\w+$|(?:^|\.|_)config\.patch$|^(?:unittest\.)?(?:mock\.)?patch(?:\.object|\.dict|\.multiple)?$"
)
_UNITTEST = re.compile(r"^unittest\.(?:skip|skipIf|skipUnless|expectedFailure)$")


def dotted(decorator: Decorator) -> str:
    """The decorator's dotted name as written: ``unittest.skipIf`` for ``@unittest.skipIf(...)``."""
    text = decorator.site.text.lstrip("@").strip()
    m = re.match(r"[\w.]+", text)
    return m.group(0) if m else ""


def harmless(decorator: Decorator) -> bool:
    """True when *decorator*, applied to a test class, returns that class with its tests."""
    name = dotted(decorator)
    if not name:
        return False
    if name in HARMLESS_NAMES or _UNITTEST.match(name) or _HARMLESS_DOTTED.search(name):
        return True
    last = name.rpartition(".")[2]
    # torch's own helpers are imported under their name; a dotted spelling keeps the last part
    return (last in HARMLESS_NAMES and name.startswith(("torch.", "common_", "unittest."))) or bool(
        HARMLESS_PATTERN.match(last)
    )


def unknown_class_decorators(model: FileModel, cls: ClassInfo) -> list[tuple[ClassInfo, Decorator]]:
    """The class decorators on *cls* and its bases in the file that hwlint does not know to be
    harmless, with the class each decorates."""
    return [(c, d) for c in mro(model, cls) for d in c.decorators if not harmless(d)]


def may_add_tests(model: FileModel, cls: ClassInfo) -> bool:
    """True when an unknown class decorator may give *cls* tests hwlint cannot see: it decorates
    *cls* or a base in the file, and *cls* is a test holder (``Test*``, or a ``...TestCase`` base)."""
    if not unknown_class_decorators(model, cls):
        return False
    if cls.name.startswith("Test"):
        return True
    return any(b.rpartition(".")[2].endswith("TestCase") for c in mro(model, cls) for b in c.bases)


#: How :func:`decorator_reason` begins (hwselect names such selected classes on stderr).
DECORATOR_REASON = "class decorator @"


def decorator_reason(c: ClassInfo, d: Decorator) -> str:
    """Why a class with the unknown decorator *d* (on *c*) is addressed through its file."""
    return (
        f"{DECORATOR_REASON}{dotted(d) or d.name} on {c.name} (line {d.site.line}) is not one hwlint "
        "knows to leave the class alone: tests it adds are not counted, and it may rename or replace "
        "the class"
    )
