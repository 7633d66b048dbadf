"""Splitting a class: the tests bound to one device moved into a class of their own, classified for
that device, so that each runs where its device is instead of being skipped (or failing) on every
runner its class goes to.

Two shapes, as the runtime allows:

* a class instantiated for every device (ACCELERATOR): the tests pinned to one device (``@onlyCUDA``)
  move to a subclass ``<Class><Device>Only``, classified for the device and instantiated ``only_for``
  it after the class's own call. The call deletes the class's tests (torch >= 2.13), so the subclass
  keeps only those it holds, and inherits the class's helpers and setUp;
* a class no call instantiates (GENERIC): the tests a device guard skips without the device
  (``@skipIf(not TEST_CUDA, ...)``, ``@requires_cuda``) or that hard-use it move to a class on the
  same bases, which copies every member of the class but its other tests (helpers, setUp,
  properties and class attributes its bases read), and its class decorators. A subclass would
  inherit the tests that stay and run them a second time.

The name never is one instantiation generates (``TestFooCUDA``, HWC107): ``TestFooCudaOnly``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from ..collection import collectable, hidden_bases
from ..context import Context
from ..edits import Edit, EditBuilder
from ..edits.imports import MAX_LINE
from ..model import ClassInfo, Decorator, DeviceUse, Method, Site, UseKind, mro, required_by
from ..taxonomy import Classification, Taxonomy


@dataclass(frozen=True)
class Split:
    """Tests that move to a class of their own: their names, the device, the new class's name and
    classification."""

    moved: tuple[str, ...]
    device: str
    name: str
    classification: str


def split_name(ctx: Context, cls: ClassInfo, device: str) -> str | None:
    """``<Class><Device>Only``, or None when the file binds that name already."""
    name = f"{cls.name}{device.capitalize()}Only"
    if ctx.model.class_named(name) is not None or any(a.name == name for a in ctx.model.attribute_bound):
        return None
    return name


def movable(ctx: Context, cls: ClassInfo, moved: set[str]) -> str | None:
    """Why the tests *moved* cannot leave *cls* (None: they can): a class that is not a plain
    module-level one, tests a base or the body binds otherwise, a name defined twice."""
    if cls.nested or cls.site.col != 0 or cls.colon is None or cls.body.line <= cls.site.line:
        return "the class is not a plain module-level class with a body of its own lines"
    own = {m.name for m in cls.test_methods}
    if not moved <= own:
        return "some of the tests come from a base"
    if cls.conditional_tests:
        return "the class defines tests under a condition"
    read = sorted(moved & set(cls.body_reads))
    if read:
        return f"a statement of the class body reads `{read[0]}`"
    defined = [m.name for m in cls.methods]
    if any(defined.count(n) > 1 for n in moved):
        return "the class defines a moved test twice"
    return None


def plain_splits(ctx: Context, cls: ClassInfo, bound: dict[str, str]) -> tuple[tuple[Split, ...], str]:
    """The splits of a class no call instantiates whose tests *bound* (name -> device) run only with
    one device, and why there are none (an empty tuple) where they cannot be made."""
    tax = ctx.taxonomy
    if not bound:
        return (), "no test needs one device"
    why = movable(ctx, cls, set(bound))
    if why is None and ctx.model.instantiations_of(cls):
        why = "the class is instantiated"
    if why is None and not collectable(ctx.model, cls, ctx.resolver):
        # a template (MakeTestCase's dict(_TestJITIRToONNX.__dict__), a mixin): its tests run in the
        # classes made from it, which a copy on the same bases would not reach
        why = "pytest does not collect the class: its tests run in the classes made from it"
    if why is None and any(c is not cls and c.test_methods for c in mro(ctx.model, cls, ctx.resolver)[1:]):
        why = "a base in the file holds tests, which the new class would run again"
    if why is None and any(cls.name in (b.rpartition(".")[2] for b in c.bases) for c in ctx.model.classes):
        why = "a class of the file derives from it and would lose the moved tests"
    for p in ctx.model.passed:
        if why is None and p.name == cls.name and not p.alone:
            why = f"module code passes the class to `{p.function}` with other arguments"
    if why is not None:
        return (), why
    out = []
    for device in sorted(set(bound.values())):
        c = tax.classification_for_device(device)
        name = split_name(ctx, cls, device)
        if c is None or name is None:
            return (), f"no class can be made for {device}"
        moved = tuple(m.name for m in cls.test_methods if bound.get(m.name) == device)
        out.append(Split(moved, device, name, c.name))
    return tuple(out), ""


@dataclass(frozen=True)
class DevicePlan:
    """What the split does with a class only runners without a device run (GENERIC: the CPU
    runner) whose tests need that device: the tests a decorator skips without it (HWC205) and those
    that call its API (HWC204), directly or through a helper method they call.

    *whole*: the classification the whole class takes instead (every test needs one device, or code
    every test may reach calls its API: a class decorator, setUp, a property such as ``world_size``
    a base reads); *splits*: the tests that move (the others run where they ran); *why*: why those
    that need a device stay, per test (``""`` for the class)."""

    whole: str | None = None
    splits: tuple[Split, ...] = ()
    why: str = ""
    stays: dict[str, str] = field(default_factory=dict)
    #: helper methods whose API calls only moved tests reach: they leave the class with them
    dropped: tuple[str, ...] = ()
    #: HWC205's tests: name -> {device: the decorator that skips it without the device}
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the API calls (line, col) that stay in the class, and why
    kept: dict[tuple[int, int], str] = field(default_factory=dict)


def device_plan(
    ctx: Context, cls: ClassInfo, c: Classification, extra: dict[str, str] | None = None
) -> DevicePlan:
    """The plan of a class classified (or about to be) *c*; *extra*: tests the inference found
    bound to one device by their hard uses (test -> device). Computed once per class."""
    key = ("device-plan", id(cls), c.name, tuple(sorted((extra or {}).items())))
    if key not in ctx.inferred:
        ctx.inferred[key] = _device_plan(ctx, cls, c, extra or {})
    return ctx.inferred[key]


def _device_plan(ctx: Context, cls: ClassInfo, c: Classification, extra: dict[str, str]) -> DevicePlan:
    """Each test's devices (what skips it without one, the APIs it reaches), then: the whole class
    for one device where code every test may reach needs it or every test does; else the tests
    bound to one device moved, with the helpers only they reach; else why not."""
    tax = ctx.taxonomy
    held = {r.device for r in tax.runners.values() if c.name in r.runs}
    if not held:
        return DevicePlan()
    forbidden = c.availability_checks == "forbidden"
    # an API call the classification forbids that guards a test is HWC204's, not a second finding
    reported = {site.line for site in cls.availability_checks} if forbidden else set()
    required = required_by(unreported(cls.decorators, reported), cls.shared_uses or cls.device_uses)
    uses = dict(cls.test_uses)
    tests = [m.name for m in cls.test_methods]
    # the accelerator API calls the classification forbids: where -> the device each calls
    calls = {(u.site.line, u.site.col): api_device(tax, u) for u in _api_uses(cls)} if forbidden else {}
    reaches = {n: {at for u in uses[n] if (at := (u.site.line, u.site.col)) in calls} for n in uses}
    reached = set().union(*reaches.values())
    # what every test may reach: class decorators' skips, and API calls in setUp, the class body
    # or, under a base from another file that may read it (``world_size`` in an FSDPTest), in a
    # property or in code no test calls by name
    shared = {(u.site.line, u.site.col) for u in cls.shared_uses} & set(calls)
    owner = {(u.site.line, u.site.col): m.name for m in cls.methods for u in m.device_uses}
    hidden = bool(hidden_bases(mro(ctx.model, cls, ctx.resolver)))
    properties = {m.name for m in cls.methods if any(d.name == "property" for d in m.decorators)}
    read = {at for at in calls if at not in reached or owner.get(at) in properties}
    apart = {at for at in calls if at in shared or at not in owner or (hidden and at in read)}
    everywhere = {d for d in required if d in tax.devices and d not in held} | {calls[at] for at in apart}
    needs: dict[str, set[str]] = {}
    skipped: dict[str, dict[str, str]] = {}
    for m in cls.test_methods:
        own = uses.get(m.name, m.device_uses)
        missing = {
            d: t
            for d, t in {**required, **required_by(unreported(m.decorators, reported), own)}.items()
            if d in tax.devices and d not in held
        }
        if missing:
            skipped[m.name] = missing
        devices = set(missing) | {calls[at] for at in reaches.get(m.name, ())}
        if m.name in extra:
            devices.add(extra[m.name])
        if devices:
            needs[m.name] = devices
    if c.device is not None:
        return DevicePlan(why=f"the class is classified {c.name}", skipped=skipped)
    for n, found in reaches.items():  # tests of bases in the file
        if n not in needs and found:
            needs[n] = {calls[at] for at in found}
    if not needs and not everywhere:
        unreached = {
            at: f"no test calls or reads `{owner[at]}`, and no base from another file may" for at in calls
        }
        return DevicePlan(skipped=skipped, kept={at: f"{why} call it" for at, why in unreached.items()})
    devices = everywhere.union(*needs.values())
    stays = {}
    for m in cls.test_methods:
        for d in m.decorators if m.name in needs else ():
            asked = {
                calls[at]
                for at in reaches.get(m.name, ())
                if d.site.line <= at[0] <= (d.site.end_line or d.site.line)
            }
            kept = asked - set(required_by([d], uses.get(m.name, m.device_uses)))
            if kept and d.name.lower().startswith("skip"):  # @skipIf(torch.cuda.is_available(), ...)
                stays[m.name] = f"`@{d.name}` skips it where {' or '.join(sorted(kept))} is"
    for n, ds in needs.items():
        unnamed = sorted(d for d in ds if d not in tax.devices)
        if n in stays:
            continue
        if unnamed:
            stays[n] = "it calls an accelerator API that names no one device"
        elif len(ds - held) > 1:
            stays[n] = f"it needs several devices ({', '.join(sorted(ds - held))})"
    if everywhere:
        device = next(iter(everywhere))
        target = tax.classification_for_device(device)
        if len(devices) == 1 and device in tax.devices and target is not None:
            return DevicePlan(whole=target.name, skipped=skipped)
        first = min(apart, default=None)
        why = (
            f"code every test may reach (line {first[0]}) needs {' and '.join(sorted(everywhere))}, "
            f"its tests {' and '.join(sorted(devices))}: no one device's class takes them all"
            if first is not None
            else f"the class is skipped without {' and '.join(sorted(everywhere))}, and its tests need "
            f"{' and '.join(sorted(devices))}"
        )
        kept = {at: why for at in calls}
        return DevicePlan(why=why, stays=stays, skipped=skipped, kept=kept)
    bound = {n: next(iter(ds)) for n, ds in needs.items() if n not in stays}
    if set(bound) >= set(tests) | set(uses) and len(set(bound.values())) == 1:
        target = tax.classification_for_device(next(iter(bound.values())))
        if target is not None:
            return DevicePlan(whole=target.name, skipped=skipped)
    splits, why = plain_splits(ctx, cls, {n: d for n, d in bound.items() if n in tests})
    if not splits and set(bound) - set(tests) and not why:
        why = "some of the tests come from a base"
    moved = {t for s in splits for t in s.moved}
    defined = [m.name for m in cls.methods]
    dropped = []
    for m in cls.methods:
        sites = {at for u in m.device_uses if (at := (u.site.line, u.site.col)) in calls}
        if m.is_test or not sites or sites & shared or defined.count(m.name) > 1:
            continue
        reaching = {n for n in reaches if sites & reaches[n]}
        if reaching and reaching <= moved:
            dropped.append(m.name)
    kept = {}
    for at in calls:
        staying = sorted(n for n in reaches if at in reaches[n] and n not in moved)
        if staying:
            kept[at] = f"`{staying[0]}` stays: {stays.get(staying[0]) or why}"
        elif at not in reached:
            kept[at] = f"no test calls or reads `{owner[at]}`, and no base from another file may call it"
        elif owner[at] not in (*moved, *dropped):
            kept[at] = f"`{owner[at]}` stays in `{cls.name}`, which names it elsewhere"
    return DevicePlan(None, tuple(splits), why, stays, tuple(dropped), skipped, kept)


def _api_uses(cls: ClassInfo) -> list[DeviceUse]:
    """The uses of *cls* that are accelerator API calls: its methods' (those that are no evidence
    of a device, ``torch.version.cuda.split(".")``, included) and its own body's."""
    return [u for m in cls.methods for u in m.device_uses if u.api] + [u for u in cls.device_uses if u.api]


def api_device(tax: Taxonomy, use: DeviceUse) -> str:
    """The device an accelerator API call calls: the one its evidence names, else the first part of
    its dotted name that names one (``torch.version.cuda.split`` -> cuda), else any accelerator."""
    if use.device in tax.devices:
        return use.device
    for part in use.site.text.partition("(")[0].split("."):
        if part in tax.devices:
            return part
    return use.device


def unreported(decorators: tuple[Decorator, ...], lines: set[int]) -> list[Decorator]:
    """*decorators* but those on *lines*."""
    return [
        d for d in decorators if not lines & set(range(d.site.line, (d.site.end_line or d.site.line) + 1))
    ]


def described(splits: tuple[Split, ...]) -> str:
    """``move `test_a`, `test_b` to `TestFooCudaOnly` (CUDA)`` for each split."""
    parts = []
    for s in splits:
        shown = ", ".join(f"`{t}`" for t in s.moved[:3]) + (" and more" if len(s.moved) > 3 else "")
        parts.append(f"move {shown} to `{s.name}` ({s.classification})")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------
# Edits


def _newline(b: EditBuilder) -> str:
    return "\r\n" if "\r\n" in b.source[:4096] else "\n"


def _spans(b: EditBuilder, cls: ClassInfo, methods: list[Method]) -> list[list[int]]:
    """The lines to delete for *methods* (decorators and the comments right above them, with the
    blank line that separated each), merged where they touch."""
    spans = []
    for m in methods:
        first = _first_line(b, cls, m)
        blank_above = first > cls.site.line + 1 and not b.lines(first - 1, first - 1).strip()
        blank_below = (
            not blank_above
            and m.end_line < cls.end_line
            and not b.lines(m.end_line + 1, m.end_line + 1).strip()
        )
        spans.append([first - 1 if blank_above else first, m.end_line + 1 if blank_below else m.end_line])
    merged: list[list[int]] = []
    for span in sorted(spans):
        if merged and span[0] <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], span[1])
        else:
            merged.append(span)
    return merged


def _first_line(b: EditBuilder, cls: ClassInfo, m: Method) -> int:
    """The first line of *m*: its first decorator, or a comment right above it."""
    first = min([m.site.line, *(d.site.line for d in m.decorators)])
    while first - 1 > cls.site.line and b.lines(first - 1, first - 1).lstrip().startswith("#"):
        first -= 1
    return first


def deletions(b: EditBuilder, cls: ClassInfo, methods: list[Method], declared_above: bool) -> list[Edit]:
    """*methods* removed from *cls*. *declared_above*: a declaration is written first in the body,
    which keeps its own blank line (a deletion starting right below the header does not take it)."""
    merged = _spans(b, cls, methods)
    top = merged[0]
    if (
        declared_above
        and top[0] == cls.site.line + 1
        and top[1] < cls.end_line
        and not b.lines(top[1] + 1, top[1] + 1).strip()
    ):
        top[1] += 1
    return [b.delete_lines(first, last) for first, last in merged]


def subclass_edits(
    ctx: Context, b: EditBuilder, cls: ClassInfo, splits: tuple[Split, ...], declared_above: bool
) -> list[Edit]:
    """The pinned tests of an instantiated class moved into subclasses, each classified for its
    device and instantiated ``only_for`` it right after the class's own call."""
    tax = ctx.taxonomy
    ref, _ = b.enum(cls.site.line)
    newline = _newline(b)
    by_name = {m.name: m for m in cls.methods}
    every = [by_name[t] for s in splits for t in s.moved]
    edits = deletions(b, cls, every, declared_above)
    indent = " " * every[0].site.col
    classes, calls = "", ""
    call = ctx.model.instantiations_of(cls)[0]
    line = b.lines(call.site.line, call.site.line)
    call_indent = line[: len(line) - len(line.lstrip(" \t"))]  # the call's own block
    for s in splits:
        methods = [by_name[t] for t in s.moved]
        # a blank line between the methods, as between those of the class (E301)
        body = (newline * 2).join(b.lines(_first_line(b, cls, m), m.end_line).rstrip("\r\n") for m in methods)
        declaration = f"{indent}{tax.attribute} = {ref}.{s.classification}"
        header = b.call_text(f"class {s.name}", [cls.name], end=":")
        classes += f"{newline}{newline}{header}{newline}{declaration}{newline}{newline}"
        classes += f"{body}{newline}"
        items = [s.name, "globals()", f'only_for="{s.device}"']
        calls += f"{call_indent}{b.call_text(call.function, items, call_indent)}{newline}"
    edits.append(b.insert_after_line(cls.end_line, classes))
    edits.append(b.insert_after_line(call.site.end_line, calls))
    return edits


def copy_edits(
    ctx: Context,
    b: EditBuilder,
    cls: ClassInfo,
    splits: tuple[Split, ...],
    declared_above: bool,
    dropped: tuple[str, ...] = (),
) -> list[Edit]:
    """The bound tests of a class no call instantiates moved into classes on its bases, each a copy
    of the class without the tests that stay (see the module doc), and each module-level
    ``instantiate_parametrized_tests(Class)`` repeated for them. The helpers *dropped* leave the
    class too (the copies keep them) where the file names them nowhere else (:func:`leaving`)."""
    tax = ctx.taxonomy
    ref, _ = b.enum(cls.site.line)
    newline = _newline(b)
    by_name = {m.name: m for m in cls.methods}
    gone = [by_name[t] for s in splits for t in s.moved]
    edits = deletions(b, cls, gone + [by_name[n] for n in leaving(b, cls, gone, dropped)], declared_above)
    first = min([cls.site.line, *(d.site.line for d in cls.decorators)])
    segment = b.lines(first, cls.end_line)
    node = ast.parse(segment).body[0]
    assert isinstance(node, ast.ClassDef)
    shift = first - 1
    header_start = b.offset(cls.site.line, cls.site.col)
    header = b.source[header_start : b.offset(cls.colon.line, cls.colon.col)]  # type: ignore[union-attr]
    decorators = _wrapped_decorators(b, b.lines(first, cls.site.line - 1)) if first < cls.site.line else ""
    members = _members(b, cls, node, shift, tax.attribute)
    indent = " " * (node.body[0].col_offset if node.body else 4)
    tests = {m.name for m in cls.test_methods}
    text = ""
    for s in splits:
        kept = copied(
            members, tests | set(cls.assigned_tests), s.moved, decorators + header, _plain_bases(cls)
        )
        new_header = re.sub(rf"^class\s+{re.escape(cls.name)}\b", f"class {s.name}", header)
        declaration = f"{indent}{tax.attribute} = {ref}.{s.classification}"
        body = ""
        for i, (name, t) in enumerate(kept):
            # a def apart from what is next to it; class attributes together
            apart = i and (name or kept[i - 1][0])
            body += (newline + newline if apart else newline if i else "") + t.rstrip("\r\n")
        text += f"{newline}{newline}{decorators}{new_header}{newline}"
        text += f"{declaration}{newline}{newline}{body}{newline}"
    edits.append(b.insert_after_line(cls.end_line, text))
    for p in ctx.model.passed:
        if p.name == cls.name:
            last = _statement_end(b, p.line)
            statement = b.lines(p.line, last).rstrip("\r\n")
            repeated = "".join(
                re.sub(rf"\b{re.escape(cls.name)}\b", s.name, statement) + newline for s in splits
            )
            edits.append(b.insert_after_line(last, repeated))
    return edits


def _wrapped_decorators(b: EditBuilder, text: str) -> str:
    """The class decorators *text* (whole lines) as a copy writes them: a one-line call longer than
    the line length wrapped as the formatters wrap it (:meth:`EditBuilder.call_text`), the others
    as they are."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        call = _call_of(body[1:]) if body.startswith("@") and len(body) > MAX_LINE else None
        if call is None:
            out.append(line)
            continue
        function, items = call
        out.append(f"@{b.call_text(function, items)}{line[len(body) :]}")
    return "".join(out)


def _call_of(text: str) -> tuple[str, list[str]] | None:
    """(the function, the arguments' texts) of *text* when it is one call, else None."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call) or "#" in text:
        return None
    items = [ast.get_source_segment(text, a) for a in [*node.args, *node.keywords]]
    function = ast.get_source_segment(text, node.func)
    if function is None or None in items or not items:
        return None
    return function, items  # type: ignore[return-value]


#: methods unittest and pytest call by name, whoever defines them
_HOOKS = re.compile(r"__\w+__|setUp\w*|tearDown\w*|_?call\w*|run|debug|subTest|id")
#: lookups by a computed name (``getattr(self, f"_check_{op}")``): a copy of such a class keeps every helper
_LOOKUPS = re.compile(r"\b(getattr|vars|dir)\s*\(|__dict__|__getattribute__")


def copied(
    members: list[tuple[str, str]],
    tests: set[str],
    moved: tuple[str, ...],
    seed: str = "",
    plain: bool = True,
) -> list[tuple[str, str]]:
    """The members of :func:`_members` a copy keeps for the tests *moved*: every statement but the
    other tests and the private helpers (``_name``, undecorated) that nothing kept names, through the
    helpers it names in turn. A public helper, a hook (``setUp``), a decorated one (a property
    a base reads) stay, since code outside the class may call it; all stay where a name is looked up
    by string, or the class has a base but a ``TestCase`` (*plain* false: ``NNTestCase`` calls its
    subclass's ``_forward``). *seed*: the class's decorators and header."""
    helpers = {
        name
        for name, t in members
        if plain
        and name.startswith("_")
        and name not in tests
        and not _HOOKS.fullmatch(name)
        and _plain_def(t)
    }
    kept = [t for name, t in members if name not in helpers and (name not in tests or name in moved)]
    text = seed + "".join(kept)
    if _LOOKUPS.search(text):
        return [(name, t) for name, t in members if name not in tests or name in moved]
    reached: set[str] = set()
    while True:
        more = {n for n in helpers - reached if re.search(rf"\b{re.escape(n)}\b", text)}
        if not more:
            break
        reached |= more
        text += "".join(t for name, t in members if name in more)
    return [
        (name, t)
        for name, t in members
        if (name not in tests or name in moved) and (name not in helpers or name in reached)
    ]


def _plain_bases(cls: ClassInfo) -> bool:
    """Whether every base of *cls* is a ``TestCase`` (unittest's, torch's, inductor's...), which
    call no private method of a subclass."""
    return all(b.rpartition(".")[2] == "TestCase" for b in cls.bases)


def _plain_def(text: str) -> bool:
    """Whether *text* (a member's, from its first decorator or comment) is an undecorated def."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("@"):
            return False
        if stripped.startswith(("def ", "async def ")):
            return True
        if stripped and not stripped.startswith("#"):
            return False
    return False


def leaving(b: EditBuilder | None, cls: ClassInfo, gone: list[Method], dropped: tuple[str, ...]) -> list[str]:
    """The helpers of *dropped* that leave *cls* with the tests *gone*: those the class's text names
    nowhere but in those tests and in the helpers leaving, and the rest of the file never as
    ``<Class>.helper`` (a reference, ``self.helper`` passed on, ``getattr`` by name, would lose its
    target). Without the text (a check that builds no edits), all of them."""
    if b is None:
        return list(dropped)
    by_name = {m.name: m for m in cls.methods}
    first_line = min([cls.site.line, *(d.site.line for d in cls.decorators)])
    start, end = b.offset(first_line, 0), b.offset(first_line, 0) + len(b.lines(first_line, cls.end_line))
    outside = b.source[:start] + b.source[end:]
    out = [
        n for n in dropped if re.search(rf"\b{re.escape(cls.name)}\s*\.\s*{re.escape(n)}\b", outside) is None
    ]
    while out:
        parts, at = [], start
        for first, last in sorted(
            (_first_line(b, cls, m), m.end_line) for m in [*gone, *(by_name[n] for n in out)]
        ):
            begin = b.offset(first, 0)
            parts.append(b.source[at:begin])
            at = max(at, begin + len(b.lines(first, last)))
        text = "".join(parts) + b.source[at:end]
        kept = [n for n in out if re.search(rf"\b{re.escape(n)}\b", text) is None]
        if kept == out:
            break
        out = kept
    return out


def _statement_end(b: EditBuilder, line: int) -> int:
    """The last line of the module-level statement that starts at *line*."""
    last = line
    while True:
        try:
            ast.parse(b.lines(line, last))
            return last
        except SyntaxError:
            if last >= len(b.starts) - 1:
                raise
            last += 1


def _members(
    b: EditBuilder, cls: ClassInfo, node: ast.ClassDef, shift: int, attribute: str
) -> list[tuple[str, str]]:
    """(name, text) of each statement of the class body but its docstring and declaration: a def's
    or a nested class's name, "" for other statements; the text from its first decorator (or a
    comment right above)."""
    out = []
    previous_end = cls.site.line
    for i, stmt in enumerate(node.body):
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))]) + shift
        last = (stmt.end_lineno or stmt.lineno) + shift
        while first - 1 > previous_end and b.lines(first - 1, first - 1).lstrip().startswith("#"):
            first -= 1
        previous_end = last
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == attribute for t in targets):
                continue
        name = stmt.name if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ""
        bound = [t.id for t in getattr(stmt, "targets", ()) if isinstance(t, ast.Name)]
        bound += [(a.asname or a.name) for a in getattr(stmt, "names", ()) if isinstance(a, ast.alias)]
        name = name or next((n for n in bound if n in cls.assigned_tests), "")  # a test bound otherwise
        out.append((name, b.lines(first, last)))
    return out


# ---------------------------------------------------------------------------------------------
# HWC203: device-specific decorators in a class instantiated for every device

#: torch's ``NATIVE_DEVICES`` (common_utils) from 2.13 on, the oldest torch the taxonomy's
#: device-neutral fixes write for: ``@onlyNativeDeviceTypes`` skips every other device type.
NATIVE_DEVICE_TYPES = frozenset({"cpu", "cuda", "xpu", "meta", "mps", "mtia", "privateuse1"})

NATIVE, ACCELERATOR_PIN, MOVE = "native", "accelerator", "move"


@dataclass(frozen=True)
class PinPlan:
    """What HWC203's fix does with each forbidden decorator of a class: (line, col) of the
    decorator -> (what, detail), and the splits of the tests that move."""

    actions: dict[tuple[int, int], tuple[str, str]]
    splits: tuple[Split, ...]
    why: str  # why nothing moves, where tests stay pinned
    # why a decorator stays, where it is its own reason (a native pin a non-native device needs)
    kept: dict[tuple[int, int], str] = field(default_factory=dict)


def generated_devices(ctx: Context, cls: ClassInfo) -> set[str] | None:
    """The device types the class's one instantiation generates (a runner's device among them), or
    None when it is not instantiated once in this file, without ``only_for``."""
    calls = ctx.model.instantiations_of(cls)
    if (
        len(calls) != 1
        or ctx.foreign_instantiations(cls)
        or calls[0].only_for is not None
        or calls[0].dynamic
    ):
        return None
    call, tax = calls[0], ctx.taxonomy
    out = {d for d, spec in tax.devices.items() if not spec.opt_in or call.opt_in(spec.opt_in) is not False}
    if call.except_for is not None:
        if call.except_for.devices is None:
            return None
        out -= set(call.except_for.devices)
    if "include_lazy" in call.site.text and "include_lazy=False" not in call.site.text.replace(" ", ""):
        out.add("lazy")
    return out


def pin_plan(ctx: Context, cls: ClassInfo, forbidden: frozenset[str]) -> PinPlan:
    """HWC203's plan for *cls* (computed once per class, kept in *ctx*)."""
    key = ("pins", id(cls))
    if key not in ctx.inferred:
        ctx.inferred[key] = _pin_plan(ctx, cls, forbidden)
    return ctx.inferred[key]


def _pin_plan(ctx: Context, cls: ClassInfo, forbidden: frozenset[str]) -> PinPlan:
    tax = ctx.taxonomy
    generated = generated_devices(ctx, cls)
    if generated is None:
        return PinPlan({}, (), "the class is not instantiated once in this file without `only_for`")
    actions: dict[tuple[int, int], tuple[str, str]] = {}
    kept: dict[tuple[int, int], str] = {}
    bound: dict[str, str] = {}
    for m in cls.test_methods:
        pins = [d for d in m.decorators if d.name in forbidden]
        devices = set()
        for d in pins:
            native = _native_extra(d.site.text, d.name)
            others = generated - NATIVE_DEVICE_TYPES - (native or frozenset())
            if native is not None and not others and _alone(ctx, d.site):
                actions[(d.site.line, d.site.col)] = (NATIVE, ", ".join(sorted(generated)))
            elif native is not None:
                kept[(d.site.line, d.site.col)] = (
                    f"its instantiation generates {', '.join(sorted(others))}, which it skips"
                    if others
                    else "it shares its line with other code"
                )
            elif native is None:
                devices.add(_pinned_device(ctx, d.site.text, d.name))
        if len(devices) != 1 or None in devices:
            continue
        device = next(iter(devices))
        pin = next(d for d in pins if _native_extra(d.site.text, d.name) is None)
        if device == "cuda" and _neutral_body(ctx, cls, m):
            actions[(pin.site.line, pin.site.col)] = (ACCELERATOR_PIN, "")
        elif device in tax.devices:
            bound[m.name] = device
            actions[(pin.site.line, pin.site.col)] = (MOVE, device)
    if not bound:
        return PinPlan(actions, (), "", kept)
    why = movable(ctx, cls, set(bound))
    if why is None and any(cls.name in (b.rpartition(".")[2] for b in c.bases) for c in ctx.model.classes):
        why = "a class of the file derives from it and would lose the moved tests"
    if why is None and set(bound) == {m.name for m in cls.test_methods}:
        why = "every test is pinned: the class is its devices' own"
    splits = []
    for device in sorted(set(bound.values())):
        c = tax.classification_for_device(device)
        name = split_name(ctx, cls, device)
        if why is None and (c is None or name is None):
            why = f"no class can be made for {device}"
        if why is None:
            moved = tuple(m.name for m in cls.test_methods if bound.get(m.name) == device)
            splits.append(Split(moved, device, name, c.name))  # type: ignore[arg-type,union-attr]
    if why is not None:
        return PinPlan({k: v for k, v in actions.items() if v[0] != MOVE}, (), why, kept)
    return PinPlan(actions, tuple(splits), "", kept)


def _alone(ctx: Context, site: Site) -> bool:
    """Whether the decorator at *site* has its lines to itself (a comment after it aside): deleting
    them deletes nothing else. Without the file's text (a check that builds no edits), assumed."""
    if ctx.builder is None:
        return True
    text = ctx.builder.lines(site.line, site.end_line or site.line)
    code = text.partition("#")[0] if "#" not in site.text else text
    return code.strip() == f"@{site.text}"


def _native_extra(text: str, name: str) -> frozenset[str] | None:
    """The device types ``@onlyNativeDeviceTypes`` (none) or ``@onlyNativeDeviceTypesAnd([...])``
    (those listed) lets run besides the native ones; None for any other decorator (or a list hwlint
    cannot read)."""
    if name == "onlyNativeDeviceTypes":
        return frozenset()
    if name != "onlyNativeDeviceTypesAnd":
        return None
    try:
        node = ast.parse(text.strip(), mode="eval").body
        values = ast.literal_eval(node.args[0]) if isinstance(node, ast.Call) and node.args else None
    except (SyntaxError, ValueError):
        return None
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        return None
    return frozenset(values)


def _pinned_device(ctx: Context, text: str, name: str) -> str | None:
    """The one device ``@onlyCUDA`` / ``@onlyOn("cuda")`` pins to, else None."""
    tax = ctx.taxonomy
    if name.startswith("only") and name[4:].lower() in tax.devices:
        return name[4:].lower()
    if name == "onlyOn":
        try:
            node = ast.parse(text.strip(), mode="eval").body
            value = ast.literal_eval(node.args[0]) if isinstance(node, ast.Call) and node.args else None
        except (SyntaxError, ValueError):
            return None
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        if isinstance(value, str) and value in tax.devices:
            return value
    return None


def _neutral_body(ctx: Context, cls: ClassInfo, m: Method) -> bool:
    """Whether *m* (with its helpers and what every test shares) uses no device but through its
    parameter: no hard use outside the pinning decorators."""
    ignored = ctx.taxonomy.generic_runner_devices()
    uses = [*dict(cls.test_uses).get(m.name, m.device_uses), *cls.shared_uses]
    for u in uses:
        if u.kind != UseKind.HARD or u.device in ignored:
            continue
        if u.decorator and u.site.text.lstrip("@").startswith("only"):
            continue
        return False
    return True


def pin_edits(ctx: Context, b: EditBuilder, cls: ClassInfo, plan: PinPlan, at: tuple[int, int]) -> list[Edit]:
    """The edits of one decorator's action: the native pin removed, ``@onlyCUDA`` made
    ``@onlyAccelerator`` (imported), or the class's split (the same edits, keyed, for each of its
    decorators: written once)."""
    what, _ = plan.actions[at]
    d = next(d for m in cls.test_methods for d in m.decorators if (d.site.line, d.site.col) == at)
    if what == NATIVE:
        return [b.delete_lines(d.site.line, d.site.end_line or d.site.line)]
    if what == ACCELERATOR_PIN:
        ref, imports = b.reference(ctx.taxonomy.device_neutral.module, "onlyAccelerator", cls.site.line)
        return [b.replace(d.site, ref), *imports]
    edits = subclass_edits(ctx, b, cls, plan.splits, False)
    return [replace(e, key=f"split {cls.name} {i}") for i, e in enumerate(edits)]
