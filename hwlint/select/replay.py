"""Selection: which test classes a CI runner executes, computed statically from the file model.

This mirrors the torch runtime (see the notes on ``instantiate_device_type_tests`` and the
``--hw-classification`` filter) without importing torch or the test modules:

* Each module is replayed in source order. A class definition binds its name; an instantiation call
  deletes the generic class from the module and binds ``TestFoo`` + ``DEVICE`` for the runner's own
  device type only (CI sets ``PYTORCH_TESTING_DEVICE_ONLY_FOR=<device>``), when that device survives
  ``only_for`` / ``except_for`` and the device's opt-in keyword. A generated name replaces a
  hand-written class of the same name, and a later class definition replaces a generated one.
* What is bound at the end and has test methods is what pytest collects on that runner. Each such
  class is then *selected* (its effective classification, own or inherited as ``getattr`` finds it,
  is one the runner runs), *mismatched* (classified for other runners), *unclassified*, or
  *unplaced* (a classification hwlint cannot read: not a static enum member, or a generic class
  defined in another module).

PrivateUse1 classes are named ``TestFooPRIVATEUSE1`` or after the backend (``TestFooOPENREG``)
depending on collection order, so a selected PrivateUse1 class carries every name it may have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..collection import (
    UNSEEN_GLOBALS,
    UNSEEN_IMPORT,
    collectable,
    declaration_doubts,
    decorator_reason,
    generated_devices,
    generated_suffixes,
    hidden_tests,
    runtime_tests,
    surely_testcase,
    test_holders,
    tests,
    unknown_class_decorators,
    unseen_classes,
)
from ..model import (
    ClassInfo,
    Declaration,
    FileModel,
    Instantiation,
    effective_declaration,
    mro,
)
from ..taxonomy import Runner, Taxonomy
from .notices import Kind
from .records import (
    MISMATCHED,
    SELECTED,
    UNCLASSIFIED,
    UNPLACED,
    Candidate,
    FileSelection,
    Note,
    NotGenerated,
)

# ---------------------------------------------------------------------------------------------


def slim_selection(fs: FileSelection) -> FileSelection:
    """*fs* without references into the file model: small to pickle and to cache."""
    return replace(
        fs,
        candidates=[replace(c, source=None, call=None) for c in fs.candidates],
        not_generated=[replace(n, call=None) for n in fs.not_generated],
    )


def selection_at(fs: FileSelection, path: str) -> FileSelection:
    """A cached selection under the path it is asked for now (the cache is keyed by absolute path)."""
    if fs.path == path:
        return fs
    return replace(
        fs,
        path=path,
        candidates=[replace(c, path=path) for c in fs.candidates],
        not_generated=[replace(n, path=path) for n in fs.not_generated],
    )


def select_model(
    model: FileModel,
    taxonomy: Taxonomy,
    runner: Runner,
    backends: Sequence[str] = (),
    include_unclassified: bool = False,
) -> FileSelection:
    """The classes pytest collects from one file on *runner*, each with its status."""
    fs = FileSelection(model.path)
    if model.error is not None:
        fs.error = f"line {model.error.line}: {model.error.message}"
        return fs
    bound, maybe, file_unsure = _replay(model, taxonomy, runner, backends, fs)
    deleted = {d.name for d in model.deletions}
    fs.functions = [
        f.name for f in model.test_functions if not model.under_main_guard(f.line) and f.name not in deleted
    ]
    seen: set[int] = set()
    for entry in bound.values():
        if id(entry) in seen:
            continue
        seen.add(id(entry))
        cand = _candidate(model, taxonomy, runner, entry, include_unclassified)
        if cand is not None:
            unsure = (*file_unsure, *_unsure(model, taxonomy, entry, maybe))
            if cand.conditional:
                line = cand.call.site.line if cand.call else entry.site.line  # type: ignore[union-attr]
                what = "instantiated" if cand.call else "defined"
                unsure = (
                    Note(None, f"{what} in a block importing the module may skip (line {line})"),
                    *unsure,
                )
            fs.candidates.append(replace(cand, unsure=unsure) if unsure else cand)
    fs.candidates += _unseen_candidates(model, fs)
    fs.candidates.sort(key=source_order)
    fs.unseen += [Note(Kind.HIDDEN_TESTS.value, why) for why in hidden_tests(model)]
    return fs


def _unseen_candidates(model: FileModel, fs: FileSelection) -> list[Candidate]:
    """A class pytest collects under a module-level name hwlint does not see the class of
    (``TestB = make_class()``, ``from helpers import TestHidden``): selected in case on every
    runner, through its file (its classification is the runtime filter's to read), so that a file
    holding only such classes is listed too."""
    have = {n for c in fs.candidates for n in c.names}
    out = []
    for u in unseen_classes(model):
        if not u.name or u.name in have:
            continue
        have.add(u.name)
        note = Note(Kind.UNSEEN_CLASS.value, f"{u.what} (line {u.line})")
        out.append(Candidate(model.path, (u.name,), SELECTED, None, None, None, unsure=(note,)))
    return out


def source_order(c: Candidate) -> tuple[int, str]:
    """Source order: a generated class sits at its instantiation call."""
    if c.call is not None:
        return c.call.site.line, c.name
    return (c.source.site.line if c.source else 0), c.name


# -- replaying the module ---------------------------------------------------------------------


@dataclass
class _Generated:
    names: tuple[str, ...]
    generic: str
    source: ClassInfo | None
    call: Instantiation
    device: str
    notes: tuple[tuple[str, str], ...]  # (what cannot be read, its meaning when selected)
    replaced: list[str] = field(default_factory=list)


def _replay(
    model: FileModel, taxonomy: Taxonomy, runner: Runner, backends: Sequence[str], fs: FileSelection
) -> tuple[dict[str, ClassInfo | _Generated], dict[str, str], tuple[str, ...]]:
    """Module globals at the end of import, on the common path: name -> hand-written class or
    generated class; names whose binding depends on a run-time condition, and why; reasons no
    class of the module is certain (code that may rebind any name).

    The common path: a try body runs to its end, so a class its handler defines again is the
    body's; an if/else or loop body may or may not run, so what it binds is conditional, and an
    instantiation or ``del`` under a condition leaves the generic class possibly in place."""
    # pytest imports the module under its own name, so `if __name__ == "__main__":` bodies never run
    events: list[tuple[int, int, ClassInfo | Instantiation | str]] = [
        (c.site.line, 0, c) for c in model.classes if not model.under_main_guard(c.site.line)
    ]
    events += [
        (i.site.line, 1, i)
        for i in model.instantiations
        if i.class_name and not model.under_main_guard(i.site.line)
    ]
    events += [(d.line, 2, d.name) for d in model.deletions if not model.under_main_guard(d.line)]
    events.sort(key=lambda e: (e[0], e[1]))
    bound: dict[str, ClassInfo | _Generated] = {}
    maybe: dict[str, str] = {}
    file_unsure: list[Note] = []

    def defined_in(name: str, first: int, last: int) -> bool:
        return any(first <= c.site.line <= last for c in model.classes if c.name == name)

    for line, _, item in events:
        conditional = model.is_conditional(line)
        if isinstance(item, str):  # `del Name`
            if conditional:
                maybe[item] = f"`del {item}` at line {line} runs only under a condition"
            else:
                bound.pop(item, None)
            continue
        if isinstance(item, ClassInfo):
            if model.handler_shadowed(line, item.name, defined_in):
                continue  # the try body's class is the one that exists when nothing raises
            bound[item.name] = item
            continue
        generic_name = item.class_name or ""
        source = bound.get(generic_name)
        resolve = getattr(model.resolver, "resolve_name", None)
        if source is None and resolve is not None:
            source = resolve(model, generic_name, line)  # a generic class imported from another module
        # The runtime deletes the generic class from the module (scope[generic.__name__]).
        if conditional and source is not None:
            maybe[generic_name] = (
                f"instantiated under a condition (line {line}): it stays collected when that does not run"
            )
        else:
            bound.pop(generic_name, None)
        if source is None and not any(i.binding(generic_name) for i in model.imports):
            why = Note(
                Kind.DYNAMIC.value,
                f"line {line}: {item.function}({generic_name}, ...) instantiates a class hwlint cannot "
                "see (a loop variable or a computed class): the classes it generates are not selected",
            )
            fs.unseen.append(why)
            file_unsure.append(why)
            continue
        generic = source if isinstance(source, ClassInfo) else None
        gen = _generate(model, taxonomy, runner, backends, item, generic_name, generic, fs)
        if gen is None:
            continue
        for name in gen.names:
            old = bound.get(name)
            if isinstance(old, ClassInfo) and old.is_test:
                gen.replaced.append(f"{name} (line {old.site.line})")
            bound[name] = gen
    for d in model.dynamic:
        line = d.site.line
        if model.under_main_guard(line):
            continue
        if d.kind == "exit":
            file_unsure.append(Note(None, f"line {line}: `{d.site.text}` may end the module's import early"))
            continue
        what = DYNAMIC.get(d.kind)
        if what is None or (d.kind == "setattr" and model.class_named(d.site.text) is None):
            continue  # setattr on something other than a class of the module adds no test
        found = Kind.SETATTR if d.kind == "setattr" else Kind.DYNAMIC
        fs.unseen.append(Note(found.value, f"line {line}: {what} (`{d.site.text}`)"))
        if d.kind in ("globals", "exec"):
            file_unsure.append(Note(found.value, f"line {line}: {what}"))
    for why in unseen_bindings(model):
        note = Note(Kind.DYNAMIC.value, why)
        fs.unseen.append(note)
        file_unsure.append(note)
    return bound, maybe, tuple(dict.fromkeys(file_unsure))


def unseen_bindings(model: FileModel) -> list[str]:
    """Module code that may bind a class pytest collects and hwlint does not see
    (:func:`hwlint.collection.unseen_classes`, but writes into ``globals()``, which
    :data:`DYNAMIC` words, and imports by name, which the cross-file phase words: it knows whether
    the module is among the scanned files), and the classes nested in a plain ``Test*`` class."""
    out = [
        f"line {u.line}: {u.what}: pytest collects it, and hwselect lists its file"
        if u.name
        else f"line {u.line}: {u.what}, which pytest collects and hwlint does not see (not selected)"
        for u in unseen_classes(model)
        if u.kind not in (UNSEEN_GLOBALS, UNSEEN_IMPORT)
    ]
    for inner in model.inner_classes:
        if not model.under_main_guard(inner.site.line):
            out.append(
                f"line {inner.site.line}: pytest collects `{inner.name}`, a class nested in a class, "
                "which is not selected"
            )
    return out


DYNAMIC = {
    "globals": "writes module globals at run time: the classes it creates are not selected, and any "
    "name may be rebound",
    "exec": "runs exec(): the classes it creates are not selected, and any name may be rebound",
    "type": "creates a class with type(): it is not selected",
    "setattr": "adds attributes to a class with setattr(): tests added this way are not counted",
}


#: How hwselect words a reason the classification the runtime reads may not be the declaration
#: (:func:`hwlint.collection.declaration_doubts`).
UNCERTAIN_CLASSIFICATION = "the classification the runtime reads may differ: "


def _unsure(
    model: FileModel, taxonomy: Taxonomy, entry: ClassInfo | _Generated, maybe: dict[str, str]
) -> tuple[Note, ...]:
    """Why the collected class *entry* may not exist under its name at run time (empty: it will)."""
    out: list[Note] = []
    cls = entry if isinstance(entry, ClassInfo) else entry.source
    name = entry.name if isinstance(entry, ClassInfo) else entry.generic
    if isinstance(entry, ClassInfo) and name in maybe:
        out.append(Note(None, maybe[name]))
    if cls is None:
        return tuple(out)
    line = model.runtime_bound(name, after=cls.site.line)
    if line:
        out.append(Note(None, f"the name {name} is rebound at run time (line {line})"))
    for c in mro(model, cls):
        for base in c.bases:
            line = model.runtime_bound(base.partition(".")[0], before=c.site.line)
            if line:
                out.append(Note(None, f"base {base} of {c.name} is bound at run time (line {line})"))
    for d in cls.decorators:
        head = _head(d.site.text)
        line = model.runtime_bound(head, before=cls.site.line)
        if line:
            out.append(
                Note(
                    None,
                    f"decorator @{d.site.text} is bound at run time (line {line}) and may replace the class",
                )
            )
    if isinstance(entry, ClassInfo) and not name.startswith("Test") and not surely_testcase(model, cls):
        out.append(Note(None, f"{name} is not named Test* and no base is surely a unittest.TestCase"))
    held = test_holders(model, cls)
    if held and all(name in c.conditional_tests for name, c in held.items()):
        out.append(Note(None, "every test of the class is defined under a condition"))
    added = runtime_tests(model, cls) if not tests(model, cls) else None
    if added is not None:  # it has a test only if module code adds one
        out.append(Note(None, f"its tests come at run time: {added}"))
    out += [
        Note(Kind.CLASS_DECORATOR.value, decorator_reason(c, d))
        for c, d in unknown_class_decorators(model, cls)
    ]
    # (class decorators are said above, in the words hwselect has for them)
    out += [
        Note(Kind.UNCERTAIN_CLASSIFICATION.value, UNCERTAIN_CLASSIFICATION + d)
        for d in declaration_doubts(model, cls, taxonomy.attribute, decorators=False)
    ]
    return tuple(dict.fromkeys(out))


def _head(text: str) -> str:
    """The first name of a decorator's source text (``unittest`` for ``unittest.skipIf(...)``)."""
    end = 0
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[:end]


def _generate(
    model: FileModel,
    taxonomy: Taxonomy,
    runner: Runner,
    backends: Sequence[str],
    call: Instantiation,
    generic_name: str,
    generic: ClassInfo | None,
    fs: FileSelection,
) -> _Generated | None:
    device = runner.device
    if device not in taxonomy.devices:
        fs.not_generated.append(
            NotGenerated(
                model.path,
                generic_name,
                call,
                f"device type {device!r} is not in the taxonomy",
                "unknown_device",
            )
        )
        return None
    if device not in generated_devices(taxonomy, call):
        kind, reason = _why_not_generated(taxonomy, call, device)
        fs.not_generated.append(NotGenerated(model.path, generic_name, call, reason, kind))
        return None
    suffixes = generated_suffixes(taxonomy, device)[:1] + [b.upper() for b in backends]
    names = tuple(dict.fromkeys(generic_name + s for s in suffixes))
    return _Generated(
        names, generic_name, generic, call, device, _uncertain_generation(taxonomy, call, device)
    )


def _why_not_generated(taxonomy: Taxonomy, call: Instantiation, device: str) -> tuple[str, str]:
    """Which of only_for / except_for / the opt-in keeps *device* out of *call*, in words."""
    where = f"line {call.site.line}"
    aliases = taxonomy.device_aliases(device)
    only, excluded = call.only_for, call.except_for
    if only is not None and only.devices and not aliases & set(only.devices):
        return "only_for", f"only_for={only.site.text} leaves out {device} ({where})"
    if excluded is not None and excluded.devices is not None and aliases & set(excluded.devices):
        return "except_for", f"except_for={excluded.site.text} names {device} ({where})"
    opt = taxonomy.devices[device].opt_in
    return "opt_in", f"{opt}=True is not passed ({where})"


def _uncertain_generation(
    taxonomy: Taxonomy, call: Instantiation, device: str
) -> tuple[tuple[str, str], ...]:
    """Arguments hwlint cannot read that may keep the runner's device from being generated after
    all: (what cannot be read, what that means when the class is selected)."""
    notes = []
    for keyword, filt in (("only_for", call.only_for), ("except_for", call.except_for)):
        if filt is not None and filt.devices is None:
            notes.append(
                (
                    f"{keyword}={filt.site.text} (line {call.site.line}) cannot be resolved statically",
                    f"selected in case it generates {device}",
                )
            )
    opt = taxonomy.devices[device].opt_in
    if opt and call.opt_in(opt) is None:
        notes.append(
            (f"{opt} (line {call.site.line}) cannot be resolved statically", "selected in case it is set")
        )
    return tuple(notes)


def _generation_notes(entry: _Generated, status: str, member: str | None, runner: Runner) -> list[Note]:
    """The uncertain-generation notes, worded for what happens to the class on this runner."""
    if status == SELECTED:
        return [
            Note(Kind.UNRESOLVED_SELECTED.value, f"{text}; {if_selected}")
            for text, if_selected in entry.notes
        ]
    if status == UNCLASSIFIED:
        outcome = "not selected either way: the class is unclassified, so the runtime's filter drops it"
    elif status == MISMATCHED:
        outcome = f"not selected either way: runner {runner.name} does not run {member}"
    else:
        outcome = "not selected: its classification cannot be read"
    return [Note(Kind.UNRESOLVED_UNSELECTED.value, f"{text}; {outcome}") for text, _ in entry.notes]


# -- classifying what is bound ----------------------------------------------------------------


def _candidate(
    model: FileModel,
    taxonomy: Taxonomy,
    runner: Runner,
    entry: ClassInfo | _Generated,
    include_unclassified: bool,
) -> Candidate | None:
    """What pytest collects of the class *entry* binds at the end of the module, placed on *runner*
    with the notes that say what could not be settled (None: pytest collects nothing of it)."""
    if isinstance(entry, ClassInfo):
        methods = tests(model, entry)
        if (not methods and runtime_tests(model, entry) is None) or not collectable(model, entry):
            return None
        status, member, holder, notes = _place(model, taxonomy, runner, entry, include_unclassified)
        return Candidate(
            model.path,
            (entry.name,),
            status,
            member,
            holder,
            entry,
            methods=methods,
            tests=len(methods),
            keywords=_keywords(entry),
            notes=notes,
            conditional=model.is_conditional(entry.site.line),
        )
    notes: list[Note] = []
    if entry.replaced:
        notes.append(
            Note(
                Kind.REPLACED.value,
                f"replaces the hand-written class {', '.join(entry.replaced)}: instantiating "
                f"{entry.generic} binds that name in the module",
            )
        )
    source = entry.source
    if source is not None and not tests(model, source) and runtime_tests(model, source) is None:
        return None  # a generated class without tests: pytest collects no item from it
    if entry.source is None:
        status, member, holder = UNPLACED, None, None
        why = f"{entry.generic} is not defined in this file, so its classification is unknown here"
        notes.append(Note(Kind.UNPLACED.value, why))
        methods: tuple[str, ...] = ()
    else:
        status, member, holder, more = _place(model, taxonomy, runner, entry.source, include_unclassified)
        notes += more
        methods = _generated_methods(model, entry)
    notes = _generation_notes(entry, status, member, runner) + notes
    return Candidate(
        model.path,
        entry.names,
        status,
        member,
        holder,
        entry.source,
        generic=entry.generic,
        call=entry.call,
        methods=methods,
        tests=_generated_count(model, entry),
        keywords=_keywords(entry.source) if entry.source else (),
        notes=tuple(notes),
        conditional=model.is_conditional(entry.call.site.line),
    )


def _place(
    model: FileModel, taxonomy: Taxonomy, runner: Runner, cls: ClassInfo, include_unclassified: bool
) -> tuple[str, str | None, str | None, tuple[Note, ...]]:
    """(status, member, holder, notes) for the classification ``getattr`` finds on *cls*."""
    options = _declaration_options(model, cls)
    if len(options) > 1:
        placed = {_place_one(taxonomy, runner, d, h, include_unclassified)[0] for d, h in options}
        if len(placed) > 1:
            lines = [str(d.site.line) for d, _ in options if d is not None]
            where = f"line{'s' * (len(lines) > 1)} {', '.join(lines)}"
            note = Note(
                Kind.UNPLACED.value, f"{taxonomy.attribute} depends on a run-time condition ({where})"
            )
            return UNPLACED, None, None, (note,)
    found = effective_declaration(model, cls)
    return _place_one(taxonomy, runner, *(found or (None, None)), include_unclassified)


def _declaration_options(
    model: FileModel, cls: ClassInfo
) -> list[tuple[Declaration | None, ClassInfo | None]]:
    """Every declaration ``getattr`` may find on *cls*, given conditional assignments in class bodies
    (``(None, None)``: none at all)."""
    out: list[tuple[Declaration | None, ClassInfo | None]] = []
    for c in mro(model, cls):
        decls = list(c.declarations)
        fixed = [i for i, d in enumerate(decls) if not d.conditional]
        start = fixed[-1] if fixed else 0
        out += [(d, c) for d in decls[start:]]
        if fixed:
            return out
    return [*out, (None, None)]


def _place_one(
    taxonomy: Taxonomy,
    runner: Runner,
    decl: Declaration | None,
    holder: ClassInfo | None,
    include_unclassified: bool,
) -> tuple[str, str | None, str | None, tuple[Note, ...]]:
    """(status, member, holder, notes) for one declaration *decl* held by *holder* (None: none)."""
    if decl is None or holder is None:
        return (SELECTED if include_unclassified else UNCLASSIFIED), None, None, ()
    if decl.member is None:
        what = f"{taxonomy.attribute} = {decl.site.text} (line {decl.site.line}) is not a static enum member"
        note = Note(Kind.UNPLACED.value, what)
        return UNPLACED, None, holder.name, (note,)
    if decl.member not in taxonomy.classifications:
        note = Note(
            Kind.UNPLACED.value,
            f"{decl.member} (line {decl.site.line}) is not a classification in the taxonomy",
        )
        return UNPLACED, decl.member, holder.name, (note,)
    status = SELECTED if decl.member in runner.runs else MISMATCHED
    return status, decl.member, holder.name, ()


def _generated_methods(model: FileModel, entry: _Generated) -> tuple[str, ...]:
    """Test names of a generated class, every spelling it may have.

    The generic class's own tests get the device suffix (one per possible PrivateUse1 name);
    tests it inherits from bases are not instantiated and keep their names.
    """
    if entry.source is None:
        return ()
    suffixes = [n[len(entry.generic) :].lower() for n in entry.names]
    own = [m.name for m in entry.source.test_methods] + list(entry.source.assigned_tests)
    out = [f"{name}_{s}" for name in own for s in suffixes]
    out += [name for name in tests(model, entry.source) if name not in own]
    return tuple(dict.fromkeys(out))


def _generated_count(model: FileModel, entry: _Generated) -> int:
    """Test methods of a generated class, each counted once whatever its suffix."""
    return len(tests(model, entry.source)) if entry.source else 0


def _keywords(cls: ClassInfo) -> tuple[str, ...]:
    names = {d.name for d in cls.decorators}
    for m in cls.methods:
        names.update(d.name for d in m.decorators)
    return tuple(sorted(n for n in names if n))


# -- explain ----------------------------------------------------------------------------------


# -- sharding ---------------------------------------------------------------------------------
