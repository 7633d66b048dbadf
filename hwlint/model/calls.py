"""Instantiation calls and the module-level constants their device filters may name.

The builder reads ``instantiate_device_type_tests(TestFoo, globals(), only_for=DEVICES)`` with the
value ``DEVICES`` has at that line: string and tuple constants are followed through later
``append``/``extend``/``remove``/``+=`` as long as the change is unconditional and static.
"""

from __future__ import annotations

import ast

from .records import DeviceFilter, Instantiation
from .syntax import dotted_name

_UNKNOWN = object()
_MUTATORS = frozenset({"append", "extend", "remove", "insert", "pop", "clear"})


class _CallScan:
    def note_module_statement(self, stmt: ast.stmt, nested: bool = False) -> None:
        """Record enum aliases and string constants that device filters may name.

        A list or tuple constant changed later (``devices.append("xpu")``, ``+=``, ``extend``,
        ``remove``) is followed when the change is unconditional and static; otherwise the name
        becomes unresolvable, so a filter that uses it is reported, never silently wrong."""
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
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
                self.mutations.pop(t.id, None)
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
            self.mutate(name, value, how if how != "append" else "extend", nested, stmt.lineno)

    def mutate(self, name: str, value: object, how: str, nested: bool, line: int) -> None:
        """Record ``name.extend(value)`` / ``name.remove(value)``; a use after it sees the change
        (one under an ``if``, *nested*, makes the value unknown there)."""
        if name in self.constants:
            self.mutations.setdefault(name, []).append((line, how, value, nested))

    def value_at(self, name: str) -> object:
        """The constant *name* as the statement at ``self.at_line`` sees it, mutations applied."""
        value = self.constants[name]
        for line, how, change, nested in self.mutations.get(name, ()):
            if line > self.at_line:
                break
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
        if isinstance(node, ast.Name) and node.id in self.constants and node.id not in self.reassigned:
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
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                dynamic = True
                break
            if i < len(self.tax.positional):
                args[self.tax.positional[i]] = arg
        for kw in call.keywords:
            if kw.arg is None:
                dynamic = True
            else:
                args[kw.arg] = kw.value
        self.at_line = call.lineno
        first_key = self.tax.positional[0] if self.tax.positional else ""
        first = args.get(first_key, call.args[0] if call.args else None)
        class_name = first.id if isinstance(first, ast.Name) else None
        opt_ins = []
        for kw in sorted(self.opt_in_keywords):
            if kw in args:
                v = self.literal(args[kw])
                opt_ins.append((kw, bool(v) if isinstance(v, bool) or v is None else None))
        only_for = self.device_filter(args.get("only_for"))
        except_for = self.device_filter(args.get("except_for"))
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

    def device_filter(self, node: ast.expr | None) -> DeviceFilter | None:
        if node is None:
            return None
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
        return DeviceFilter(self.site(node), None)
