"""Instantiation calls and the module-level constants their device filters may name.

The builder reads ``instantiate_device_type_tests(TestFoo, globals(), only_for=DEVICES)`` with the
value ``DEVICES`` has at that line: string and tuple constants are followed through later
``append``/``extend``/``remove``/``+=`` and rebinding as long as the change is unconditional and
static. One condition changes nothing a filter decides: ``if TEST_HPU: devices.append("hpu")``
(a device appended where it exists; instantiation generates a device type only where its device
exists, so the list may as well hold it always).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from .records import DeviceFilter, Instantiation
from .syntax import WordIndex, dotted_name

_UNKNOWN = object()
_MUTATORS = frozenset({"append", "extend", "remove", "insert", "pop", "clear"})
#: Values a module constant may hold that code can change in place (``DEVICES[0] = "cpu"``).
_CONTAINERS = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)
#: Builtins that read a container they are given and never change it.
_READERS = frozenset(
    {"tuple", "list", "set", "frozenset", "sorted", "len", "str", "repr", "print", "any", "all"}
)


class CallScan:
    def note_module_statement(self, stmt: ast.stmt, nested: bool = False) -> None:
        """Record enum aliases and string constants that device filters may name.

        A list or tuple constant changed later (``devices.append("xpu")``, ``+=``, ``extend``,
        ``remove``) is followed when the change is unconditional and static; otherwise the name
        becomes unresolvable, so a filter that uses it is reported, never silently wrong. So does
        a list or set constant that any other code may change in place: written through an index
        (``DEVICES[0] = "cpu"``), given to a function or bound to another name (:meth:`escapes`)."""
        if self.mutable:
            for name in self.escapes(stmt):
                self.mutate(name, _UNKNOWN, "extend", True, stmt.lineno)
        if isinstance(stmt, ast.If) and not nested:
            device = self.availability_of(stmt.test)
            if device is not None:
                self.guarded.update((id(child), device) for child in stmt.body)
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                self.imported[alias.asname or alias.name] = "." * stmt.level + (stmt.module or "")
                if alias.name == self.tax.enum_name:
                    self.enum_names.add(alias.asname or alias.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if stmt.value is None:
                return
            for t in targets:
                if not isinstance(t, ast.Name):
                    continue
                if dotted_name(stmt.value).rpartition(".")[2] in self.enum_names and (
                    dotted_name(stmt.value) in self.enum_names
                    or dotted_name(stmt.value).endswith("." + self.tax.enum_name)
                ):
                    self.enum_names.add(t.id)
                value = self.literal(stmt.value)
                if t.id in self.constants and self.constants[t.id] != value:
                    self.reassigned.add(t.id)
                self.constants[t.id] = value
                self.history.setdefault(t.id, []).append((stmt.lineno, "bind", value, nested))
                if value is _UNKNOWN:
                    self.opaque[(t.id, stmt.lineno)] = stmt.value
                self.mutations.pop(t.id, None)
                if isinstance(stmt.value, _CONTAINERS):
                    self.mutable.add(t.id)
                else:
                    self.mutable.discard(t.id)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            value = self.literal(stmt.value) if isinstance(stmt.op, ast.Add) else _UNKNOWN
            self.mutate(name, value if isinstance(value, tuple) else _UNKNOWN, "extend", nested, stmt.lineno)
        elif (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.attr in _MUTATORS
        ):
            call = stmt.value
            name, how = call.func.value.id, call.func.attr  # type: ignore[attr-defined]
            args = [self.literal(a) for a in call.args]
            value: object = _UNKNOWN
            if how in ("append", "remove") and len(args) == 1 and isinstance(args[0], str):
                value = (args[0],)
            elif how == "extend" and len(args) == 1 and isinstance(args[0], tuple):
                value = args[0]
            # appending a device where it exists generates what appending it always would
            where = nested and not (how == "append" and value == (self.guarded.get(id(stmt)),))
            self.mutate(name, value, how if how != "append" else "extend", where, stmt.lineno)

    def availability_of(self, test: ast.expr) -> str | None:
        """The device whose presence *test* is, and nothing else: ``TEST_XPU`` (torch's
        ``common_utils`` sets ``TEST_<DEVICE>`` to its availability), ``torch.xpu.is_available()``,
        either after ``hasattr(torch, "xpu") and``; None for anything else (``HAS_CUDA`` in inductor
        also asks for triton)."""
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        found: set[str] = set()
        for part in parts:
            name = dotted_name(part.func) if isinstance(part, ast.Call) else dotted_name(part)
            if isinstance(part, ast.Call) and name == "hasattr" and len(part.args) == 2:
                continue  # `hasattr(torch, "hpu")`: asks whether the module exists at all
            head, _, device = name.partition("_")
            if isinstance(part, ast.Name) and head == "TEST" and device.isupper():
                found.add(device.lower())
            elif isinstance(part, ast.Call) and not part.args and name.startswith("torch."):
                module, _, call = name[len("torch.") :].rpartition(".")
                if call != "is_available" or "." in module:
                    return None
                found.add(module)
            else:
                return None
        return found.pop() if len(found) == 1 else None

    def escapes(self, stmt: ast.stmt) -> list[str]:
        """The mutable constants (:attr:`mutable`) that *stmt* may change in place by a route the
        constant's reading does not follow: any use but a plain read (a comparison, ``in``, a loop,
        an index read, a builtin that only reads, a filter argument of an instantiation call) and
        the mutator calls :meth:`note_module_statement` follows. A module function or class body
        counts where it is defined: it may run at import; there a call's argument counts as a read
        (``@parametrize("device", DEVICES)``), a write through an index does not."""
        body = isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if body:
            starts, ends = self.offsets()
            text = self.source[starts[stmt.lineno - 1] : ends[(stmt.end_lineno or stmt.lineno) - 1]]
            if not any(name in text for name in self.mutable):
                return []
            nodes: list[ast.AST] = [stmt]
        elif isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
            nodes = [v for f, v in ast.iter_fields(stmt) if f in ("test", "iter", "items", "target")]
            nodes = [n for v in nodes for n in (v if isinstance(v, list) else [v]) if isinstance(n, ast.AST)]
        else:
            nodes = [stmt]
        index = self.mutable_index
        if index is None or not self.mutable <= self.indexed_mutable:
            # subtrees whose text names no mutable constant are not walked
            if index is None:
                index = WordIndex(self.source, self.offsets(), self.ascii, (), whole=True)
                self.mutable_index = index
            for name in self.mutable - self.indexed_mutable:
                index.add(name)
            self.indexed_mutable |= self.mutable
        found: list[str] = []
        for top in nodes:
            for parent in index.walk(top):
                for field, child in ast.iter_fields(parent):
                    for node in child if isinstance(child, list) else [child]:
                        if (
                            isinstance(node, ast.Name)
                            and node.id in self.mutable
                            and node.id not in found
                            and not self.reads_only(parent, field, node, body)
                        ):
                            found.append(node.id)
        return found

    def reads_only(self, parent: ast.AST, field: str, node: ast.Name, body: bool = False) -> bool:
        """Whether the name *node*, the *field* of *parent*, is used in a way that cannot change the
        container it names (*body*: in a def or class body, where calls are taken as reads)."""
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            return True  # a rebinding: the assignment itself says what the name holds next
        if isinstance(parent, (ast.Compare, ast.BoolOp, ast.comprehension, ast.For, ast.AsyncFor)):
            return True
        if isinstance(parent, ast.Subscript):
            return isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.Attribute):
            return parent.attr in _MUTATORS or parent.attr in ("count", "index", "copy")
        if isinstance(parent, ast.keyword):
            return body or parent.arg in ("only_for", "except_for")
        if isinstance(parent, ast.Call) and field == "args":
            return body or dotted_name(parent.func) in _READERS
        return isinstance(parent, ast.BinOp)  # `DEVICES + ["xpu"]` makes a new list

    def mutate(self, name: str, value: object, how: str, nested: bool, line: int) -> None:
        """Record ``name.extend(value)`` / ``name.remove(value)``; a use after it sees the change
        (one under an ``if``, *nested*, makes the value unknown there)."""
        if name in self.constants:
            self.mutations.setdefault(name, []).append((line, how, value, nested))
            self.history.setdefault(name, []).append((line, how, value, nested))

    def value_at(self, name: str) -> object:
        """The constant *name* as the statement at ``self.at_line`` sees it: its last binding
        before that line, the changes after it applied (a binding or change under an ``if`` makes
        it unknown; one after the line is not seen: ``only_for = ("cuda",)``, a call, then
        ``only_for = ("cpu",)`` and a second call read one each)."""
        value: object = _UNKNOWN
        for line, how, change, nested in self.history.get(name, ()):
            if line > self.at_line:
                break
            if how == "bind":
                value = _UNKNOWN if nested else change
                continue
            if nested or not isinstance(value, tuple) or not isinstance(change, tuple):
                return _UNKNOWN
            if how == "extend":
                value = value + change
            elif change[0] in value:
                i = value.index(change[0])
                value = value[:i] + value[i + 1 :]
            else:  # list.remove raises: the module would not import
                return _UNKNOWN
        return value

    def literal(self, node: ast.expr) -> object:
        """A str / bool / None / tuple of str value, or the sentinel ``_UNKNOWN``."""
        if (isinstance(node, ast.Constant) and isinstance(node.value, (str, bool))) or (
            isinstance(node, ast.Constant) and node.value is None
        ):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            out: list[str] = []
            for elt in node.elts:
                v = self.literal(elt)
                if isinstance(v, str):
                    out.append(v)
                elif isinstance(v, tuple):
                    out.extend(v)
                else:
                    return _UNKNOWN
            return tuple(out)
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.value_at(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            # the operands of `a + b + ...` left to right, without recursion: CPython parses a
            # 2,500-term sum, a tree as deep as its terms (a tuple's nesting is bounded by the parser)
            terms: list[object] = []
            todo: list[ast.expr] = [node]
            while todo:
                n = todo.pop()
                if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
                    todo += (n.right, n.left)
                    continue
                value = self.literal(n)
                if not isinstance(value, tuple):
                    return _UNKNOWN
                terms += value
            return tuple(terms)
        return _UNKNOWN

    # -- instantiation calls ---------------------------------------------------------------
    def instantiation(self, call: ast.Call) -> Instantiation | None:
        func = call.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name not in self.functions:
            return None
        args: dict[str, ast.expr] = {}
        dynamic = False
        unread: ast.expr | None = None  # the first `*args` / `**kwargs` whose arguments are unknown
        positional: list[ast.expr] = []
        for arg in call.args:
            if not isinstance(arg, ast.Starred):
                positional.append(arg)
            elif isinstance(arg.value, (ast.Tuple, ast.List)):
                positional += arg.value.elts  # `*(TestFoo, globals())`: the arguments it spells
            else:
                dynamic, unread = True, arg
                break
        for name, arg in zip(self.tax.positional, positional, strict=False):
            args[name] = arg
        for kw in call.keywords:
            spelled = _keywords(kw.value) if kw.arg is None else [(kw.arg, kw.value)]
            if spelled is None:
                dynamic, unread = True, unread or kw
            else:
                args.update(spelled)
        self.at_line = call.lineno
        first_key = self.tax.positional[0] if self.tax.positional else ""
        first = args.get(first_key, call.args[0] if call.args else None)
        class_name = first.id if isinstance(first, ast.Name) else None
        opt_ins = []
        for kw in sorted(self.opt_in_keywords):
            if kw in args:
                v = self.literal(args[kw])
                opt_ins.append((kw, bool(v) if isinstance(v, bool) or v is None else None))
        named = {kw.arg for kw in call.keywords if kw.arg is not None}
        only_for, except_for = (
            f if f is None or name in named else replace(f, keyword=False)
            for name, f in (
                (name, self.device_filter(args.get(name), unread)) for name in ("only_for", "except_for")
            )
        )
        self.at_line = 1 << 30
        return Instantiation(
            site=self.site(call, self.segment(call)),
            function=dotted_name(func) or name,
            class_name=class_name,
            only_for=only_for,
            except_for=except_for,
            opt_ins=tuple(opt_ins),
            dynamic=dynamic,
        )

    def device_filter(self, node: ast.expr | None, unread: ast.AST | None = None) -> DeviceFilter | None:
        """The filter *node* gives (None: no filter). *unread*: the ``*args`` / ``**kwargs`` of the
        call whose arguments cannot be read: an absent filter may then be passed there, with a value
        hwlint does not know (not spelled: no rule says it is passed)."""
        if node is None:
            return DeviceFilter(self.site(unread), None, spelled=False) if unread is not None else None
        value = self.literal(node)
        if value is None:  # only_for=None is the default: no filter
            return None
        if isinstance(value, str):
            # torch tests `device_type in only_for`: on a string that is a substring test, so
            # only_for="cpu,cuda" keeps both cpu and cuda (and "tpu" keeps nothing)
            known = (*self.tax.devices, *self.tax.backends())
            return DeviceFilter(self.site(node), (value, *(d for d in known if d in value and d != value)))
        if isinstance(value, tuple):
            return DeviceFilter(self.site(node), value)
        return DeviceFilter(self.site(node), None, unresolved=self.unresolved(node))

    def unresolved(self, node: ast.expr) -> str:
        """Why *node*'s value cannot be computed, where that can be said in a few words."""
        if isinstance(node, ast.IfExp):
            return "a condition picks its value"
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return next((why for why in map(self.unresolved, node.elts) if why), "")
        if not isinstance(node, ast.Name):
            return ""
        if node.id in self.imported and node.id not in self.constants:
            return f"`{node.id}` is imported from `{self.imported[node.id]}`"
        why = ""
        for line, how, _, nested in self.history.get(node.id, ()):
            if line > self.at_line:
                break
            if nested:
                done = "bound" if how == "bind" else "changed"
                return f"`{node.id}` is {done} under a condition (line {line})"
            if how == "bind":
                value = self.opaque.get((node.id, line))
                why = "" if value is None else self.unresolved(value)
                why = f"`{node.id}` (line {line}): {why}" if why else ""
        return why


def _keywords(value: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """The (keyword, value) pairs ``**value`` passes when it spells them: a dict display with
    string keys (``**{"only_for": "cuda"}``) or ``dict(only_for="cuda")``; None when it does not."""
    if isinstance(value, ast.Dict):
        keys = [
            k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None for k in value.keys
        ]
        if None in keys:
            return None
        return list(zip(keys, value.values, strict=True))  # type: ignore[arg-type]
    if isinstance(value, ast.Call) and dotted_name(value.func) == "dict" and not value.args:
        pairs = [(k.arg, k.value) for k in value.keywords]
        return None if any(k is None for k, _ in pairs) else pairs  # type: ignore[return-value]
    return None
