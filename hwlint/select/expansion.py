"""How many test items a class's tests expand into, where the decorators say it statically.

torch's ``instantiate_device_type_tests`` makes one test per dtype of ``@dtypes(...)`` (or of the
device's own ``@dtypesIfCUDA(...)``) and per op of ``@ops(...)``, and ``@parametrize(...)`` makes one
per value (``instantiate_parametrized_tests`` or a device instantiation). Stacked decorators
multiply. A count is read when the arguments are literals, ``range(N)``, torch's dtype lists
(``floating_types()``, ``all_types_and(torch.half)``...), ``itertools.product`` of those (with
``repeat=``) or ``list(...)`` of one; anything else (``@ops(op_db)``, a
computed list) counts 1 for that decorator. The shard planner uses the count to estimate the time
of a class without a recorded duration.
"""

from __future__ import annotations

import ast
import functools

from ..collection import test_holders
from ..model import ClassInfo, FileModel, Method
from .records import TestExpansion

#: torch.testing._internal.common_dtype helpers: dtypes each returns (``..._and(*extra)`` adds one
#: per extra argument). Measured on torch 2.13.
DTYPE_LISTS = {
    "all_types": 7,
    "all_types_and_complex": 9,
    "all_types_and_half": 8,
    "all_mps_types": 8,
    "complex_types": 2,
    "double_types": 2,
    "empty_types": 0,
    "float8_types": 4,
    "floating_and_complex_types": 4,
    "floating_types": 2,
    "floating_types_and_half": 3,
    "get_all_int_dtypes": 5,
    "get_all_qint_dtypes": 5,
    "integral_types": 5,
    "all_types_and": 7,
    "all_types_and_complex_and": 9,
    "all_types_complex_float8_and": 13,
    "all_mps_types_and": 8,
    "complex_types_and": 2,
    "float8_types_and": 4,
    "floating_and_complex_types_and": 4,
    "floating_types_and": 2,
    "integral_types_and": 5,
}
_PARAMETRIZE = {"parametrize", "parametrize_test"}


def test_items(
    model: FileModel, source: ClassInfo | None, generated: str | None, device: str
) -> tuple[TestExpansion, ...]:
    """Each test of a class collected from *source*, in definition order, with the items it expands
    into, whether every decorator that expands it was counted, and whether none does.

    *generated*: the runner's device type generates the class from *source* (its own tests expand
    by dtypes and ops; tests inherited from bases keep one item each, as torch instantiates only the
    generic class's own tests, and an instantiated base's are gone:
    :func:`~hwlint.collection.test_holders`). Otherwise each test expands by its ``@parametrize`` values.
    """
    if source is None:
        return ()
    out: list[TestExpansion] = []
    for name, holder in test_holders(model, source).items():
        m = _definition(holder, name)
        if m is None:
            out.append(TestExpansion(name, 1, True, True))
            continue
        instantiated = bool(generated) and holder is source
        out.append(TestExpansion(name, *method_items(m, device if instantiated else None)))
    return tuple(out)


def _definition(holder: ClassInfo, name: str) -> Method | None:
    """The ``def`` of test *name* in *holder*'s body (None: a name bound there, ``test_x = f``)."""
    return next((m for m in holder.methods if m.name == name and m.is_test), None)


def method_items(m: Method, device: str | None) -> tuple[int, bool, bool]:
    """Items one test method expands into, whether that count is exact (every expanding decorator
    counted; one that is not counts 1), and whether no decorator expands it; *device*:
    instantiated for that device type."""
    texts = {d.name: d.site.text for d in m.decorators}
    n, exact, plain = 1, True, True
    for d in m.decorators:
        count = None
        if d.name in _PARAMETRIZE:
            count = _count(d.site.text, "parametrize")
        elif device is not None and d.name == "ops":
            count = _count(d.site.text, "ops")
        elif device is None or not _opaque(d.name):
            continue
        n *= count or 1
        exact, plain = exact and count is not None, False
    if device is not None:
        own = texts.get(f"dtypesIf{device.upper()}")
        text = own if own is not None else texts.get("dtypes")
        if text is not None:
            count = _count(text, "dtypes")
            n *= count or 1
            exact, plain = exact and count is not None, False
    return n, exact, plain


@functools.lru_cache(maxsize=4096)
def _count(text: str, what: str) -> int | None:
    """The variants the decorator *text* makes, or None when they cannot be counted statically."""
    try:
        node = ast.parse(text.lstrip("@"), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(node, ast.Call):
        return None
    if what == "dtypes":
        return _sequence_length(node.args)
    values = node.args[1] if what == "parametrize" and len(node.args) > 1 else None
    if what == "ops":
        values = node.args[0] if node.args else None
    if values is None:
        return None
    return _length(values)


def _sequence_length(args: list[ast.expr]) -> int | None:
    n = 0
    for a in args:
        if isinstance(a, ast.Starred):
            inner = _length(a.value)
            if inner is None:
                return None
            n += inner
        else:
            n += 1
    return n


def _length(node: ast.expr) -> int | None:
    """Elements of a literal list/tuple/set, ``range(...)`` of literals, or a torch dtype list."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return _sequence_length(node.elts)
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name == "range" and all(
            isinstance(a, ast.Constant) and isinstance(a.value, int) for a in node.args
        ):
            try:
                return len(range(*(a.value for a in node.args)))  # type: ignore[misc]
            except (TypeError, ValueError, OverflowError):
                return None
        if name in DTYPE_LISTS:
            extra = _sequence_length(node.args) if name.endswith("_and") else 0
            return None if extra is None else DTYPE_LISTS[name] + extra
        if name in ("list", "tuple") and len(node.args) == 1 and not node.keywords:
            return _length(node.args[0])
        if name == "product":  # itertools.product(a, b, repeat=k): (len(a) * len(b)) ** k
            return _product(node)
    return None


def _product(node: ast.Call) -> int | None:
    repeat = 1
    for k in node.keywords:
        if k.arg != "repeat" or not isinstance(k.value, ast.Constant) or type(k.value.value) is not int:
            return None
        repeat = k.value.value
    n = 1
    for a in node.args:
        size = None if isinstance(a, ast.Starred) else _length(a)
        if size is None:
            return None
        n *= size
    return n**repeat if 0 <= repeat <= 8 else None


# -- the names @parametrize gives --------------------------------------------------------------
# torch names a parametrized test ``{test}_{id}`` (a device class appends the device and dtype
# after it): the id of one value is ``{arg}_{value}`` for an int, float or str (dots as ``_``), a
# dtype's own name for ``torch.float32``, ``subtest(..., name=N)``'s N, and ``{arg}{index}`` for
# anything else; the ids of several arguments are joined with ``_``. Measured with torch 2.13.


def neutral_tests(model: FileModel, source: ClassInfo | None, names: tuple[str, ...]) -> tuple[str, ...]:
    """The tests *names* (of a class collected from *source*) as the identity names them, without a
    device: one per ``@parametrize`` value where the values are literal, else ``test_x*`` (every
    variant of it; ``@ops``, ``@modules`` and ``@optims`` too)."""
    if source is None:
        return tuple(names)
    holders = test_holders(model, source)
    out: list[str] = []
    for name in names:
        m = _definition(holders[name], name) if name in holders else None
        ids = parameter_ids(m) if m is not None else ()
        if ids is None:
            out.append(f"{name}*")
        else:
            out += [f"{name}_{i}" for i in ids] if ids else [name]
    return tuple(dict.fromkeys(out))


#: torch's parametrizers that name each variant after an object hwlint cannot read (an OpInfo, a
#: ModuleInfo, an OptimizerInfo): ``test_x_{name}`` before the device suffix. A module's own alias
#: of one keeps its name as a suffix (``_gradcheck_ops = partial(ops, ...)`` in test_ops_fwd_gradients).
_OPAQUE_VARIANTS = frozenset({"ops", "modules", "optims", "reparametrize"})
_OPAQUE_SUFFIXES = ("_ops", "_modules", "_optims")


def _opaque(name: str) -> bool:
    return name in _OPAQUE_VARIANTS or name.endswith(_OPAQUE_SUFFIXES)


def parameter_ids(m: Method) -> tuple[str, ...] | None:
    """The ids ``@parametrize`` gives *m*'s variants (``()``: none; None: not known statically)."""
    found = [d for d in m.decorators if d.name in _PARAMETRIZE or _opaque(d.name)]
    if not found:
        return ()
    if len(found) > 1 or _opaque(found[0].name):
        return None
    return _ids(found[0].site.text)


@functools.lru_cache(maxsize=4096)
def _ids(text: str) -> tuple[str, ...] | None:
    try:
        node = ast.parse(text.lstrip("@"), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(node, ast.Call) or len(node.args) < 2 or node.keywords:
        return None  # name_fn= names them its own way
    names, values = node.args[0], node.args[1]
    if not (isinstance(names, ast.Constant) and isinstance(names.value, str)):
        return None
    args = [a.strip() for a in names.value.split(",") if a.strip()]
    if not isinstance(values, (ast.List, ast.Tuple)):
        return None
    out = []
    for i, v in enumerate(values.elts):
        one = _value_id(args, i, v)
        if one is None:
            return None
        out.append(one)
    return tuple(out)


def _value_id(args: list[str], index: int, node: ast.expr) -> str | None:
    if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "subtest":
        named = [k.value for k in node.keywords if k.arg == "name"]
        if named:
            return named[0].value if isinstance(named[0], ast.Constant) else None
        if not node.args:
            return None
        node = node.args[0]
    parts = node.elts if len(args) > 1 and isinstance(node, (ast.Tuple, ast.List)) else [node]
    if len(parts) != len(args):
        return None
    ids = []
    for arg, part in zip(args, parts, strict=True):
        if isinstance(part, ast.Attribute) and ast.unparse(part.value) == "torch":
            ids.append(part.attr)  # a dtype by its name (torch.float32)
            continue
        try:
            value = ast.literal_eval(part)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if isinstance(value, (int, float, str)):
            ids.append(f"{arg}_{str(value).replace('.', '_')}")
        else:
            ids.append(f"{arg}{index}")
    return "_".join(ids)
