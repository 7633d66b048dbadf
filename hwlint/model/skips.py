"""Which devices a skip decorator's condition needs: the polarity of ``@skipIf`` / ``@skipUnless``.

The device scan records ``TEST_CUDA`` in ``@unittest.skipIf(not TEST_CUDA, "no cuda")`` as a guard
and says no more: the same name guards ``@skipIf(TEST_CUDA, ...)``, which skips WITH the device.
A test that a decorator skips whenever a device is absent runs only where the device is, as a test
that hard-uses it does: on a runner without the device it is collected and skipped, every time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

from .records import Decorator, DeviceUse, UseKind
from .syntax import dotted_name


def skipped_without(text: str, guards: Mapping[str, str]) -> set[str]:
    """The devices without which the decorator *text* skips its test: ``skipIf(not TEST_CUDA, ...)``,
    ``skipIf(not A or not B, ...)``, ``skipUnless(torch.cuda.is_available(), ...)``,
    ``skipIf(torch.cuda.device_count() < 2, ...)``. *guards*: the text of each guard of the
    decorator (whitespace removed) -> the device it asks about (the device scan's guard uses)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return set()
    if not isinstance(node, ast.Call) or not node.args:
        return set()
    name = dotted_name(node.func).rpartition(".")[2]
    if name == "skipIf":
        return _true_without(node.args[0], guards)
    if name == "skipUnless":
        return _false_without(node.args[0], guards)
    return set()


def _device(node: ast.expr, guards: Mapping[str, str]) -> str | None:
    return guards.get("".join(ast.unparse(node).split()))


def _true_without(cond: ast.expr, guards: Mapping[str, str]) -> set[str]:
    """Devices whose absence makes *cond* true."""
    if isinstance(cond, ast.UnaryOp) and isinstance(cond.op, ast.Not):
        return _false_without(cond.operand, guards)
    if isinstance(cond, ast.BoolOp):
        parts = [_true_without(v, guards) for v in cond.values]
        if isinstance(cond.op, ast.Or):
            return set().union(*parts)
        return set.intersection(*parts)
    if isinstance(cond, ast.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], (ast.Lt, ast.LtE)):
        # device_count() < 2: no device, no count
        left, right = cond.left, cond.comparators[0]
        count = isinstance(left, ast.Call) and dotted_name(left.func).endswith("device_count")
        if count and isinstance(right, ast.Constant) and isinstance(right.value, int) and right.value >= 1:
            found = _device(left, guards)
            return {found} if found else set()
    return set()


def _false_without(cond: ast.expr, guards: Mapping[str, str]) -> set[str]:
    """Devices whose absence makes *cond* false."""
    if isinstance(cond, ast.UnaryOp) and isinstance(cond.op, ast.Not):
        return _true_without(cond.operand, guards)
    if isinstance(cond, ast.BoolOp):
        parts = [_false_without(v, guards) for v in cond.values]
        if isinstance(cond.op, ast.And):
            return set().union(*parts)
        return set.intersection(*parts)
    if isinstance(cond, (ast.Name, ast.Attribute, ast.Call)):
        found = _device(cond, guards)
        return {found} if found else set()
    return set()


def required_by(decorators: Iterable[Decorator], uses: Iterable[DeviceUse]) -> dict[str, str]:
    """Device -> the text of the first of *decorators* (a test's or a class's) that skips its test
    without that device: ``@requires_cuda`` (a guard named ``requires_*``), ``@skipIf(not TEST_CUDA,
    ...)``. *uses*: the device uses of the decorated code (the scan's guards name the devices)."""
    uses = list(uses)
    guards = {"".join(u.site.text.split()): u.device for u in uses if u.kind == UseKind.GUARD}
    out: dict[str, str] = {}
    if not guards:
        return out  # a skip names a device only through a guard
    for d in decorators:
        for device in sorted(skipped_without(d.site.text, guards)):
            out.setdefault(device, d.site.text)
        for u in uses:
            inside = d.site.line <= u.site.line <= (d.site.end_line or d.site.line)
            named = u.site.text.rpartition(".")[2].startswith("requires_")
            if u.kind == UseKind.GUARD and u.decorator and inside and named:
                out.setdefault(u.device, d.site.text)
    return out
