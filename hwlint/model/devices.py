"""The device-evidence scan: which code of a class names a device, and how (a hard use that fails
without the device, or a guard that only asks), attributed to each test through the helpers it calls.

It is what the inference, HWC004, HWC204 and HWC301/HWC302 read, and the costliest part of a model:
every walk is pruned by :class:`~hwlint.model.syntax.WordIndex` to the nodes whose text names a
device word.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import repeat

from ..taxonomy import Taxonomy
from .records import (
    ANY_ACCELERATOR,
    ROLE_DEVICE,
    ROLE_OTHER,
    ROLE_TYPE,
    SCOPE_DEFAULT,
    SCOPE_NESTED,
    ClassInfo,
    DeviceUse,
    FileModel,
    Method,
    Site,
    UseForm,
    UseKind,
    device_feature,
    mro,
)
from .syntax import (
    DEFS,
    WordIndex,
    after_word,
    child_nodes,
    class_body_statements,
    dotted_name,
    line_offsets,
    parametrized_values,
    rooted_at,
)

# Device policy is the taxonomy's: each device's collective backends (`backend="nccl"`,
# `requires_nccl()`) and library modules (`torch.backends.cudnn`), and the words that name an
# accelerator but no device (`gpu`). vocabulary_of() reads them once per taxonomy.


# Words of an identifier: snake_case parts and CamelCase humps, acronyms kept whole (skipIfNoCUDA).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


# An identifier is a use only when it starts with one of these words and names a device as a later
# word: TEST_CUDA, RUN_CUDA, requires_cuda, skipIfXpu, x.is_cuda (guards); onlyCUDA (a pin). Anything
# else that merely contains a device word (check_code_for_cuda_kernel_launches, XpuInterface,
# gpu_trace) is no use at all.
_GUARD_HEADS = frozenset(
    {"test", "tests", "run", "has", "have", "requires", "require", "skip", "is", "no", "with", "if", "unless"}
)


_PIN_HEADS = frozenset({"only"})


# Calls whose first argument is a device type, never a device with an index.
_DEVICE_TYPE_CALLS = frozenset({"autocast", "GradScaler", "device_module", "get_device_module"})


# Keyword arguments whose value is a device.
_DEVICE_KEYWORDS = frozenset({"device", "device_type"})
#: Calls that attach an expectation to the device types they name (skip* and xfail* too)
_EXPECTATIONS = frozenset({"DecorateInfo", "decorate", "decorateIf"})


# Methods that run for every test of the class: their uses (and their helpers') are every test's.
_EVERY_TEST = ("setUp", "setUpClass", "tearDown", "tearDownClass", "asyncSetUp", "asyncTearDown")


# Queries that only ask about a device: guards wherever they appear (torch.cuda.is_available());
# device_count() is a guard in a condition and a hard use elsewhere (it sizes the work).
_QUERY_PREFIX = "is_"


_COUNT_QUERIES = frozenset({"device_count"})


# Modes of the walk: plain code, a condition (if/while/assert tests, comparisons, skip decorators'
# arguments) and code guarded by a device condition (the body of `if TEST_CUDA:`).
_PLAIN, _CONDITION, _GUARDED = 0, 1, 2


@dataclass(frozen=True)
class _Vocabulary:
    """What the device-use walk looks for under one taxonomy, computed once per taxonomy."""

    devices: tuple[str, ...]
    words: tuple[str, ...]  # lowercase words whose absence from a text proves it has no use
    # Devices whose uses no one reads: those of the runners that run the generic classification
    # (a test that moves a tensor to the CPU runs anywhere). They are no use, and their words
    # (``cpu``) do not make a node worth a visit; a condition that names them still guards.
    ignored: frozenset[str]
    identifier_words: tuple[str, ...]
    api_modules: frozenset[str]  # torch.<module> of accelerator API prefixes, and accelerator modules
    module_devices: dict[str, str]  # torch module named after a library -> its device (cudnn: cuda)
    backend_devices: dict[str, str]  # collective backend -> its device (nccl: cuda)
    library_devices: dict[str, str]  # both
    accelerator_words: frozenset[str]  # words that name an accelerator but no device (gpu)
    # dotted call name -> whether the taxonomy lists it as an accelerator API (asked of every call)
    api_calls: dict[str, bool] = field(default_factory=dict, compare=False)
    # identifier -> the (device, kind) pairs it spells (asked of every name and attribute visited)
    identifiers: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict, compare=False)


_VOCABULARIES: dict[tuple[str, str], _Vocabulary] = {}


_API_MEMO_LIMIT = 100_000  # distinct dotted call names remembered per taxonomy and process


def vocabulary_of(tax: Taxonomy) -> _Vocabulary:
    key = (tax.path, tax.digest)
    found = _VOCABULARIES.get(key)
    if found is not None:
        return found
    devices = tuple(tax.devices)
    module_devices = {m: d.name for d in tax.devices.values() for m in d.library_modules}
    backend_devices = {b: d.name for d in tax.devices.values() for b in d.collective_backends}
    library_devices = {**module_devices, **backend_devices}
    accelerator_words = frozenset(tax.accelerator_words)
    api_tails = {p.lower() for p in tax.accelerator_apis}  # whole prefixes: "ipu" alone is in "manipulate"
    # a part after the first, of a call any of whose parts is an accelerator module: `.ipu`
    api_tails |= {f".{m.lower()}" for m in tax.accelerator_modules}
    check_tails = {c.rpartition(".")[2].lower() for c in tax.availability_checks}
    ignored = tax.generic_runner_devices()
    words = dict.fromkeys(
        [
            *(d for d in devices if d not in ignored),
            *tax.accelerator_words,
            *library_devices,
            *sorted(api_tails),
            *sorted(check_tails),
        ]
    )
    api_modules = frozenset(
        p.split(".")[1] for p in tax.accelerator_apis if p.startswith("torch.") and p.count(".") == 1
    ) | frozenset(tax.accelerator_modules)
    vocab = _Vocabulary(
        devices,
        tuple(words),
        ignored,
        (*devices, *tax.accelerator_words, *library_devices),
        api_modules,
        module_devices,
        backend_devices,
        library_devices,
        accelerator_words,
    )
    _VOCABULARIES[key] = vocab
    return vocab


def strongest(uses: Iterable[DeviceUse]) -> tuple[tuple[str, str], ...]:
    """(device, kind) pairs of *uses* with evidence, the hard kind winning per device."""
    out: dict[str, str] = {}
    for u in uses:
        if u.kind == UseKind.NONE:
            continue
        if out.get(u.device) != UseKind.HARD:
            out[u.device] = u.kind
    return tuple(sorted(out.items()))


class _Closure:
    """The uses of a method and, transitively, of the methods it calls.

    Iterative (Tarjan's strongly connected components, in one pass per query): a file controls the
    depth of its call chains, and 1,500 helpers calling each other in turn would exhaust the
    recursion limit. A method's uses come in the order a depth-first walk of its calls meets
    them (its own first); the methods of a cycle all reach the same uses, each its own first."""

    def __init__(self, methods: dict[str, Method]):
        self.methods = methods
        self.memo: dict[str, tuple[DeviceUse, ...]] = {}

    def uses(self, name: str) -> tuple[DeviceUse, ...]:
        if name not in self.memo:
            if name not in self.methods:
                return ()
            self._fill(name)
        return self.memo[name]

    def _callees(self, name: str) -> list[str]:
        return [c for c in self.methods[name].calls if c in self.methods]

    def _fill(self, root: str) -> None:
        """Memoize the uses of *root* and of every method it reaches that is not known yet."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []  # Tarjan's stack of the methods whose component is open
        on_stack: set[str] = set()
        walk = [(root, iter(self._callees(root)))]
        index[root] = low[root] = 0
        stack.append(root)
        on_stack.add(root)
        while walk:
            name, todo = walk[-1]
            callee = next(todo, None)
            if callee is not None:
                if callee in self.memo:
                    continue
                if callee not in index:
                    index[callee] = low[callee] = len(index)
                    stack.append(callee)
                    on_stack.add(callee)
                    walk.append((callee, iter(self._callees(callee))))
                elif callee in on_stack:
                    low[name] = min(low[name], index[callee])
                continue
            walk.pop()
            if walk:
                parent = walk[-1][0]
                low[parent] = min(low[parent], low[name])
            if low[name] != index[name]:
                continue
            component = []  # *name* closes a component: its methods are on the stack above it
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == name:
                    break
            self._settle(name, set(component))

    def _settle(self, head: str, component: set[str]) -> None:
        """The uses of a component's methods, once those of every method it calls outside are known."""
        if len(component) == 1:
            found = list(self.methods[head].device_uses)
            for callee in self._callees(head):
                if callee != head:
                    found += self.memo[callee]
            self.memo[head] = tuple(dict.fromkeys(found))
            return
        # a cycle: a depth-first walk from its head, calls out of it from the memo
        found, seen = [], {head}
        walk = [iter((head,))]
        while walk:
            name = next(walk[-1], None)
            if name is None:
                walk.pop()
                continue
            if name in component:
                found += self.methods[name].device_uses
                inner = []
                for callee in self._callees(name):
                    if callee not in component:
                        inner.append(callee)
                    elif callee not in seen:
                        seen.add(callee)
                        inner.append(callee)
                walk.append(iter(inner))
            else:
                found += self.memo[name]
        shared = tuple(dict.fromkeys(found))
        for name in component:
            self.memo[name] = tuple(dict.fromkeys((*self.methods[name].device_uses, *shared)))


#: ``self.name(`` / ``cls.name(``: read from the text, which costs far less than walking the tree (a
#: mention in a comment or a string at worst attributes a helper's uses to one test too many).
# (without a leading \\b, which the engine would test at every position: a match preceded by a word
# character, `myself.x(`, is dropped by the caller)
# (one pattern per receiver: a pattern that starts with a literal is searched for as a string, three
# times faster than an alternation tried at every position)
#: ``self.name(``, ``cls.name(``, and reads: a property, a bound method passed on (``self._test_x``)
_SELF_CALLS = tuple((who, re.compile(rf"{who}\s*\.\s*([A-Za-z_]\w*)")) for who in ("self", "cls"))


def _first_line(stmt: ast.stmt) -> int:
    """The first line of *stmt*, its decorators included."""
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])


class _DeviceUses:
    """Collects the :class:`DeviceUse` s under some nodes, in source order, each with its kind.

    A use names a taxonomy device: an attribute chain under ``torch.<device>`` or
    ``torch.backends.<device>`` (cuDNN counts as cuda), a ``.<device>()`` method call, a string literal
    ``"<device>"`` or ``"<device>:N"``, an identifier that starts with a guard or pin word and names
    the device (``TEST_CUDA``, ``requires_cuda``, ``onlyCUDA``, ``x.is_cuda``), or a call to a
    module-level function of the same file whose body has such a use. Identifiers that name
    accelerators without a device (``requires_gpu``) count as :data:`ANY_ACCELERATOR`. Calls that
    the taxonomy lists as accelerator APIs are recorded too (``api``), with kind *none* when they are
    no evidence (``torch.backends.cuda.matmul...``).
    """

    def __init__(self, builder: DeviceScan, *nodes: ast.AST):
        self.b = builder
        vocab = builder.vocabulary
        self.devices = vocab.devices
        self.ignored = vocab.ignored
        self.words = vocab.identifier_words
        self.api_modules = vocab.api_modules
        self.api_calls = vocab.api_calls
        self.identifiers = vocab.identifiers
        self.module_devices, self.backend_devices = vocab.module_devices, vocab.backend_devices
        self.library_devices, self.accelerator_words = vocab.library_devices, vocab.accelerator_words
        self.found: list[DeviceUse] = []
        self.roles: dict[int, str] = {}  # literal node id -> its role, noted by the call around it
        self.features: dict[int, str] = {}  # literal node id -> the device feature of that call
        stack: list[tuple[ast.AST, int]] = [(n, _PLAIN) for n in reversed(nodes)]
        names_word = builder.device_index().names_word
        while stack:  # iterative and pruning: ast.NodeVisitor costs a method lookup per node
            node, mode = stack.pop()
            if not names_word(node):
                continue  # its text names no device word: it holds no use
            children = self.visit(node, mode)
            if children is None:
                kids = child_nodes(node)
                kids.reverse()
                stack.extend(zip(kids, repeat(mode)))
            else:
                stack.extend(reversed(children))
        self.found.sort(key=lambda u: (u.site.line, u.site.col))

    def add(
        self,
        device: str,
        node: ast.AST,
        kind: str,
        mode: int,
        api: bool = False,
        form: str = "",
        detail: str = "",
        target: Site | None = None,
    ) -> None:
        if device in self.ignored:
            return
        if kind == UseKind.HARD and mode != _PLAIN:
            kind = UseKind.GUARD  # asked about, or only run where the device is present
        use = DeviceUse(device, self.b.site(node), kind, api, form, detail, target)
        self.found.append(replace(use, feature=self.features[id(node)]) if id(node) in self.features else use)

    def visit(self, node: ast.AST, mode: int) -> list[tuple[ast.AST, int]] | None:
        """Record *node*'s use, if any; return the children still to visit (None: all of them)."""
        kind = type(node)
        if kind is ast.Attribute:
            return self.attribute(node, mode)  # type: ignore[arg-type]
        if kind is ast.Call:
            return self.call(node, mode)  # type: ignore[arg-type]
        if kind is ast.Constant:
            self.constant(node, mode)  # type: ignore[arg-type]
        elif kind is ast.Name and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
            # an assignment target defines a name (`_do_cuda_memory_leak_check = True`), it uses no device
            for device, use in self.identifier_devices(node.id):  # type: ignore[attr-defined]
                self.add(device, node, use, mode)
        elif kind is ast.Compare:
            return [(c, _CONDITION) for c in ast.iter_child_nodes(node)]
        elif kind in (ast.If, ast.While, ast.IfExp):
            test = node.test  # type: ignore[attr-defined]
            inner = _GUARDED if mode == _GUARDED or self.names_device(test) else mode
            rest = [(c, inner) for c in ast.iter_child_nodes(node) if c is not test]
            return [(test, _CONDITION), *rest]
        elif kind is ast.Assert:
            return [(c, _CONDITION) for c in ast.iter_child_nodes(node)]
        elif kind is ast.arguments:
            self.named_values(self.b.parameter_defaults(node), mode)  # def test_x(self, device=GPU_TYPE)
        return None

    def named_values(self, values: Iterable[ast.expr], mode: int) -> None:
        """Record the device each name among *values*, used as a device, spells (GPU_TYPE, DEVICE_CUDA)."""
        for value in values:
            if type(value) in (ast.Name, ast.Attribute):
                for device in self.named_device(value) or self.b.listed_devices(value):
                    self.add(device, value, UseKind.HARD, mode, form=UseForm.NAME, detail=dotted_name(value))

    def names_device(self, node: ast.AST) -> bool:
        """Whether the text of *node* (a condition) names a device or a device word."""
        text = self.b.segment(node, 10_000).lower()
        return any(w in text for w in self.b.device_words) or any(w in text for w in self.ignored)

    def attribute(self, node: ast.Attribute, mode: int) -> list[tuple[ast.AST, int]] | None:
        if type(node.ctx) is not ast.Load:  # `self.cuda_ready = ...` names a field; its value is visited
            return None
        parts = dotted_name(node).split(".")
        if len(parts) >= 2 and parts[0] == "torch":
            found = self.torch_use(parts, call=False)
            if found is not None:
                site = self.b.site(node)
                self.add(found[0], node, found[1], mode, form=UseForm.CHAIN, detail=site.text, target=site)
                return []  # the outermost chain is the use; its prefixes are not uses of their own
        for device, use in self.identifier_devices(node.attr):
            self.add(device, node, use, mode)
        return None

    def torch_use(self, parts: list[str], call: bool, mode: int = _PLAIN) -> tuple[str, str] | None:
        """(device, kind) of the chain ``torch.<module>...``, or None when it names no device."""
        backends = parts[1] == "backends" and len(parts) > 2
        module = parts[2] if backends else parts[1]
        device = self.module_devices.get(module, module)
        if device not in self.devices:
            if backends or (module not in self.api_modules and module not in self.accelerator_words):
                return None
            device = ANY_ACCELERATOR  # torch.accelerator, torch.hpu, torch.mtia...
        rest = parts[3:] if backends else parts[2:]
        leaf = rest[0] if rest else ""
        if leaf.startswith(_QUERY_PREFIX) or (leaf in _COUNT_QUERIES and mode != _PLAIN):
            return device, UseKind.GUARD
        if backends or module in self.module_devices:
            # settings (torch.backends.cudnn.benchmark): no device needed, yet a sign of one
            return device, UseKind.GUARD
        return device, UseKind.HARD

    def call(self, node: ast.Call, mode: int) -> list[tuple[ast.AST, int]] | None:
        func = node.func
        args = [*node.args, *node.keywords]
        name = dotted_name(func)
        feature = device_feature(name) if name else ""
        for value in (*node.args, *(kw.value for kw in node.keywords)) if feature else ():
            self.features[id(value)] = feature  # a device given to one device's feature: autocast("xpu")
        api = self.api_calls.get(name)
        if api is None:
            if len(self.api_calls) >= _API_MEMO_LIMIT:  # names come from the files: keep the memo bounded
                self.api_calls.clear()
            api = self.api_calls[name] = bool(name) and self.b.tax.is_accelerator_call(name)
        parts = name.split(".") if name else []
        if len(parts) >= 2 and parts[0] == "torch":
            found = self.torch_use(parts, call=True, mode=mode)
            if found is not None or api:
                device, kind = found if found is not None else (ANY_ACCELERATOR, UseKind.NONE)
                form = UseForm.CHAIN_KEYWORDS if node.keywords else UseForm.CHAIN
                self.add(device, node, kind, mode, api, form, name, self.b.site(func, name))
                return [(a, mode) for a in args]
        elif api:
            self.add(ANY_ACCELERATOR, node, UseKind.NONE, mode, api)
        # device=GPU_TYPE, torch.device(DEVICE_CUDA)
        self.named_values(self.device_arguments(node, name), mode)
        if isinstance(func, ast.Attribute) and func.attr in self.devices:
            # tensor.cuda(), module.xpu(): the rewrite replaces `.cuda(...)`, from the end of the value
            value = func.value
            end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
            start = self.b.site(value)
            inner = ", ".join(self.b.segment(a, 10_000) for a in args)
            target = Site(start.end_line, start.end_col, f".{func.attr}({inner})", end_line, end_col)
            if not self.b.ascii:
                target = replace(target, end_col=self.b.col(end_line, end_col))
            # upstream's linter reads `torch.nn.Linear(2, 2).cuda()` as the call `torch...cuda`: one of
            # its dotted parts is an accelerator module, so an accelerator API call where it forbids one
            api = func.attr in self.b.tax.accelerator_modules and rooted_at(func.value, "torch")
            self.add(func.attr, node, UseKind.HARD, mode, api, UseForm.METHOD, inner, target)
            return [(func.value, mode), *((a, mode) for a in args)]  # not func.attr a second time
        self.note_roles(node, name)
        self.named_values(self.b.parametrized_devices(node, name), mode)  # @parametrize("device", [GPU_TYPE])
        if isinstance(func, ast.Name):
            for device, kind in self.b.helper_devices.get(func.id, ()):  # a helper of this module
                self.add(device, node, kind, mode, form=UseForm.HELPER, detail=func.id)
        last = name.rpartition(".")[2] if name else ""
        # skipIf(not TEST_CUDA, ...), xfail("eq", device_type="cuda"): where they apply, not a use
        if last.lower().startswith(("skip", "xfail")) or last in _EXPECTATIONS:
            return [(func, mode), *((a, _CONDITION) for a in args)]
        return None

    def note_roles(self, node: ast.Call, name: str) -> None:
        """Note what the string arguments of *node* stand for: a device or a device type."""
        last = name.rpartition(".")[2] if name else ""
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Constant):
            if last == "to" and isinstance(node.func, ast.Attribute):
                self.roles[id(first)] = ROLE_DEVICE
            elif name in ("torch.device", "device"):
                self.roles[id(first)] = ROLE_DEVICE if len(node.args) == 1 else ROLE_TYPE
            elif last in _DEVICE_TYPE_CALLS:
                self.roles[id(first)] = ROLE_TYPE
        for kw in node.keywords:
            if isinstance(kw.value, ast.Constant) and kw.arg in ("device", "device_type"):
                self.roles[id(kw.value)] = ROLE_DEVICE if kw.arg == "device" else ROLE_TYPE

    @staticmethod
    def device_arguments(node: ast.Call, name: str) -> list[ast.expr]:
        """Arguments of *node* used as a device: ``device=``/``device_type=`` values, the first argument
        of ``torch.device(...)`` and of ``.to(...)``."""
        out = [kw.value for kw in node.keywords if kw.arg in _DEVICE_KEYWORDS]
        func = node.func
        if node.args and (name == "torch.device" or (type(func) is ast.Attribute and func.attr == "to")):
            out.append(node.args[0])
        return [v for v in out if type(v) in (ast.Name, ast.Attribute)]

    def named_device(self, node: ast.expr) -> list[str]:
        """The device a name used as a device spells, whatever its first word (GPU_TYPE, DEVICE_CUDA):
        a named device, or "accelerator" for a gpu word."""
        identifier = node.id if isinstance(node, ast.Name) else node.attr  # type: ignore[attr-defined]
        lowered = identifier.lower()
        if not any(w in lowered for w in self.words):
            return []
        words = {self.library_devices.get(w.lower(), w.lower()) for w in _WORDS.findall(identifier)}
        found = [d for d in self.devices if d in words]
        if not found and words & self.accelerator_words:
            found = [ANY_ACCELERATOR]
        return found

    def constant(self, node: ast.Constant, mode: int) -> None:
        value = node.value
        if isinstance(value, str) and len(value) <= 24:
            head, _, index = value.partition(":")
            head = self.backend_devices.get(head, head) if not index else head
            if head in self.devices and (not index or index.isdigit()):
                role = self.roles.get(id(node), ROLE_OTHER) if head == value.partition(":")[0] else ROLE_OTHER
                site = self.b.site(node)
                self.add(head, node, UseKind.HARD, mode, form=UseForm.LITERAL, detail=role, target=site)

    def identifier_devices(self, identifier: str) -> tuple[tuple[str, str], ...]:
        """(device, kind) a name spells out: TEST_CUDA, requires_cuda, skipIfNoXPU, x.is_cuda (guards),
        onlyCUDA (hard). A name that merely contains a device word is no use. Remembered per
        taxonomy: a tree repeats its names (self, torch, x, TEST_CUDA) at every visit."""
        found = self.identifiers.get(identifier)
        if found is None:
            if len(self.identifiers) >= _API_MEMO_LIMIT:  # names come from the files: keep the memo bounded
                self.identifiers.clear()
            found = self.identifiers[identifier] = tuple(self._identifier_devices(identifier))
        return found

    def _identifier_devices(self, identifier: str) -> list[tuple[str, str]]:
        lowered = identifier.lower()
        if not any(w in lowered for w in self.words):
            return []
        words = [w.lower() for w in _WORDS.findall(identifier)]
        if not words:
            return []
        head = words[0]
        if head in _PIN_HEADS:
            kind = UseKind.HARD
        elif head in _GUARD_HEADS:
            kind = UseKind.GUARD
        else:
            return []
        rest = {self.library_devices.get(w, w) for w in words[1:]}
        found = [d for d in self.devices if d in rest]
        if not found and rest & self.accelerator_words:
            found = [ANY_ACCELERATOR]
        return [(d, kind) for d in found]


class DeviceScan:
    # -- where device words are ---------------------------------------------------------------
    def parameter_defaults(self, a: ast.arguments) -> list[ast.expr]:
        """The defaults of *a*'s device parameters (``device=GPU_TYPE``): a test run without the
        device fixture runs on that device."""
        positional = [*a.posonlyargs, *a.args]
        with_default = positional[len(positional) - len(a.defaults) :]
        pairs = [*zip(with_default, a.defaults, strict=True), *zip(a.kwonlyargs, a.kw_defaults, strict=True)]
        params = self.tax.device_params
        return [d for x, d in pairs if d is not None and x.arg in params]

    def parametrized_devices(self, call: ast.Call, name: str) -> list[ast.expr]:
        """What ``@parametrize("device", [...])`` gives the device parameter."""
        return parametrized_values(call, name.rpartition(".")[2], self.tax.device_params)

    def without_device(self, stmt: ast.If) -> list[tuple[int, int, str]]:
        """The branch of *stmt* that runs whenever one device is absent, as (first, last, device):
        the body of ``if not TEST_CUDA:`` (also ``if not torch.cuda.is_available() or ...:``), the
        else of ``if TEST_CUDA:``."""
        test = stmt.test
        values = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
        asked = [v.operand for v in values if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not)]
        branch = stmt.body
        if not asked and isinstance(test, (ast.Name, ast.Attribute, ast.Call)):
            asked, branch = [test], stmt.orelse
        if not branch:
            return []
        found = []
        for expr in asked:
            devices = {u.device for u in self.device_uses(expr)}
            if len(devices) == 1 and next(iter(devices)) in self.tax.devices:
                found.append((branch[0].lineno, branch[-1].end_lineno or branch[-1].lineno, devices.pop()))
        return found

    def device_lists(self) -> list[str]:
        """The module's list constants that hold a device name on some path (``devices = ["cpu"]``
        then ``devices.append("cuda")`` under an ``if``)."""
        return [
            name for name, value in self.constants.items() if isinstance(value, tuple) and self.listed(name)
        ]

    def listed(self, name: str) -> list[str]:
        """The devices the list constant *name* holds on some path: its value and every extension,
        those under an ``if`` included (what a parametrization over it gives the test)."""
        value = self.constants.get(name)
        if name in self.reassigned or not isinstance(value, tuple):
            return []
        held = {*value}
        for _, how, change, _ in self.mutations.get(name, ()):
            if how == "extend" and isinstance(change, tuple):
                held.update(change)
        devices = {v.partition(":")[0] for v in held}
        return [d for d in self.vocabulary.devices if d in devices]

    def listed_devices(self, node: ast.expr) -> list[str]:
        """:meth:`listed` for a name used as a value (``@parametrize("device", devices)``)."""
        return self.listed(node.id) if isinstance(node, ast.Name) else []

    def hot(self, first: int, last: int) -> bool:
        """Whether a line from *first* to *last* names a device word (or a helper's name)."""
        return self.device_index().lines(first, last)

    def names_device_word(self) -> bool:
        """Whether the file's text names a device word at all (the index is built for the walk
        anyway: its occurrences say so without another pass over the text)."""
        if self.text is not None:  # a fixed text, modelled on its original's tree
            lowered = self.text.lower()
            return any(w in lowered for w in self.device_words)
        return bool(self.device_index().hits)

    def device_index(self) -> WordIndex:
        if self._device_index is None:
            offsets = self.offsets() if self.ascii else line_offsets([ln.lower() for ln in self.lines])
            self._device_index = WordIndex(self.lowered, offsets, self.ascii, self.device_words)
        return self._device_index

    def note_word(self, word: str) -> None:
        """*word* (lowercase) is a device word from now on."""
        if self._device_index is not None:
            self._device_index.add(word)

    # -- classes ---------------------------------------------------------------------------
    def classes_to_scan(self, statements: list[tuple[ast.stmt, bool]]) -> set[int]:
        """ids of the class nodes whose device uses someone reads: undeclared classes (the inference,
        HWC005) and, transitively, their bases in the file; declared classes whose classification
        forbids accelerator API calls (HWC204), runs on every device (HWC301) or on one accelerator
        (HWC302). Only classes of a generic runner's own device (CPU) are left out."""
        by_name: dict[str, list[ast.ClassDef]] = {}
        todo: list[ast.ClassDef] = []
        generic_devices = {
            r.device
            for r in self.tax.runners.values()
            for n in r.runs
            if self.tax.classifications.get(n) and self.tax.classifications[n].instantiation == "forbidden"
        }
        allowed = {
            n
            for n, c in self.tax.classifications.items()
            if c.availability_checks != "forbidden" and c.device is not None and c.device in generic_devices
        }
        for stmt, _ in statements:
            if not isinstance(stmt, ast.ClassDef):
                continue
            by_name.setdefault(stmt.name, []).append(stmt)
            declared = [d for d in (self.declaration(s) for s in stmt.body) if d is not None]
            injected = self.injected_declaration(stmt)
            if injected is not None:
                declared.insert(0, injected[0])
            if not declared or declared[-1].member not in allowed:
                todo.append(stmt)
        wanted: set[int] = set()
        while todo:
            node = todo.pop()
            if id(node) in wanted:
                continue
            wanted.add(id(node))
            for base in node.bases:
                if isinstance(base, ast.Name):
                    todo.extend(by_name.get(base.id, ()))
        return wanted

    def attribute_uses(self, classes: list[ClassInfo]) -> list[ClassInfo]:
        """Give each scanned class its uses per test, through its bases in the file."""
        if not self.scan_devices:
            return classes
        local = FileModel(self.path, tuple(classes))
        prefix = self.tax.test_method_prefix
        out = []
        outside: dict[int, list[DeviceUse]] = {}  # id of a class -> its uses outside its methods
        for cls in classes:
            chain = mro(local, cls)
            methods: dict[str, Method] = {}
            for c in chain:
                for m in c.methods:
                    methods.setdefault(m.name, m)
            closure = _Closure(methods)
            shared: list[DeviceUse] = []
            for c in chain:
                if id(c) not in outside:  # a base's are read for each class derived from it
                    in_methods = {(u.site.line, u.site.col) for m in c.methods for u in m.device_uses}
                    outside[id(c)] = [u for u in c.device_uses if (u.site.line, u.site.col) not in in_methods]
                shared += outside[id(c)]
            for name in _EVERY_TEST:
                shared += closure.uses(name)
            tests = tuple((n, closure.uses(n)) for n in methods if n.startswith(prefix))
            out.append(replace(cls, shared_uses=tuple(dict.fromkeys(shared)), test_uses=tests))
        return out

    def link_helpers(self, node: ast.ClassDef, methods: list[Method]) -> list[Method]:
        """Record which methods call (through ``self``/``cls``) a method that leads to device uses,
        in this class or a class before it; a method that does joins the helpers."""
        defs = {
            id(m): d
            for m, d in zip(
                methods,
                (s for s, _ in class_body_statements(node.body) if isinstance(s, DEFS)),
                strict=True,
            )
        }
        helpers = self.method_helpers | {m.name for m in methods if m.device_uses}
        if not helpers:
            return methods
        called = {
            id(m): self.remember(("calls", id(defs[id(m)])), lambda m=m: self.self_calls(defs[id(m)]), False)
            for m in methods
        }
        changed = True
        while changed:
            changed = False
            for m in methods:
                if m.name not in helpers and called[id(m)] & helpers:
                    helpers.add(m.name)
                    changed = True
        self.method_helpers |= helpers
        return [
            replace(m, calls=tuple(sorted(called[id(m)] & helpers)))
            if called.get(id(m), set()) & helpers
            else m
            for m in methods
        ]

    def self_calls(self, node: ast.AST) -> set[str]:
        """Names called or read as ``self.name`` or ``cls.name`` in *node*'s lines."""
        starts, ends = self.offsets()
        start, end = starts[node.lineno - 1], ends[(node.end_lineno or node.lineno) - 1]  # type: ignore[attr-defined]
        text = self.source  # searched in place: a copy of every method's lines cost more than the search
        found: set[str] = set()
        for receiver, pattern in _SELF_CALLS:
            if text.find(receiver, start, end) >= 0:
                found.update(
                    m.group(1) for m in pattern.finditer(text, start, end) if not after_word(text, m.start())
                )
        return found

    def device_uses(self, *nodes: ast.AST) -> tuple[DeviceUse, ...]:
        """The device uses under *nodes*; a walk only where their text names a device or a helper."""
        if not self.scan_devices or not nodes:
            return ()
        key = tuple(map(id, nodes)) if self.memo is not None else ()
        if key:
            found = self.memo.get(key)  # type: ignore[union-attr]
            if found is not None:
                return found  # type: ignore[return-value]
        # A def's lineno is its `def` line: its decorators start above it.
        first = min(d.lineno for n in nodes for d in (n, *getattr(n, "decorator_list", ())))  # type: ignore[attr-defined]
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in nodes)  # type: ignore[attr-defined]
        found = tuple(_DeviceUses(self, *nodes).found) if self.hot(first, last) else ()
        if key:
            self.memo[key] = found  # type: ignore[index]
        return found

    def method_uses(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[DeviceUse, ...]:
        """The device uses of a method: those of its decorators (above the `def` line) marked, and
        those in a default argument or a nested function, lambda or class (see
        :attr:`DeviceUse.scope`)."""
        uses = self.device_uses(node)
        if not uses:
            return uses
        if node.decorator_list:
            uses = tuple(replace(u, decorator=True) if u.site.line < node.lineno else u for u in uses)
        spans = self.scope_spans(node, {u.site.line for u in uses})
        if not spans:
            return uses
        return tuple(self._scoped(u, spans) for u in uses)

    def scope_spans(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, lines: set[int]
    ) -> list[tuple[Site, str]]:
        """The default arguments of *node* and the functions, lambdas and classes nested in its body,
        as sites (character columns) with their :data:`SCOPE_DEFAULT` / :data:`SCOPE_NESTED`; of the
        nested ones, those in the body's statements that hold one of *lines* (the uses' lines)."""
        a = node.args
        out = [(self.site(d, ""), SCOPE_DEFAULT) for d in (*a.defaults, *a.kw_defaults) if d is not None]
        start = node.body[0].lineno
        body = "".join(self.lines[start - 1 : node.end_lineno or start]) if start > node.lineno else "def "
        if "lambda" not in body and "def " not in body and "class " not in body:
            return out  # nothing can nest in the body (a search in C, the walk is in Python)
        todo = [s for s in node.body if any(_first_line(s) <= n <= (s.end_lineno or s.lineno) for n in lines)]
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                first = min([n.lineno, *(d.lineno for d in getattr(n, "decorator_list", ()))])
                site = self.site(n, "")
                out.append((replace(site, line=first, col=0) if first < n.lineno else site, SCOPE_NESTED))
                continue  # what is inside is nested, whatever it holds
            todo.extend(child_nodes(n))
        return out

    @staticmethod
    def _scoped(use: DeviceUse, spans: list[tuple[Site, str]]) -> DeviceUse:
        at = (use.site.line, use.site.col)
        for s, scope in spans:
            if (s.line, s.col) <= at and at < (s.end_line, s.end_col):
                return replace(use, scope=scope)
        return use
