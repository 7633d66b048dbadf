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

import functools
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from ..collection import generated_devices, generated_suffixes
from ..model import (
    ClassInfo,
    Declaration,
    FileModel,
    Instantiation,
    LocalResolver,
    build_model,
    effective_declaration,
    mro,
)
from ..pipeline.cache import Cache
from ..pipeline.engine import MAX_FILE_BYTES, analyze_files, read_source
from ..project import Links, links_of, on_demand
from ..taxonomy import Runner, Taxonomy

SELECTED, MISMATCHED, UNCLASSIFIED, UNPLACED = "selected", "mismatched", "unclassified", "unplaced"
STATUSES = (SELECTED, MISMATCHED, UNCLASSIFIED, UNPLACED)


class SelectionError(Exception):
    """A request the selector cannot serve (unknown runner, for instance)."""


@dataclass(frozen=True)
class Candidate:
    """A test class pytest collects from one module on the runner, and what the filter does with it."""

    path: str
    names: tuple[str, ...]  # the class's name; a PrivateUse1 class has one per possible name
    status: str
    classification: str | None  # enum member in effect, if any
    holder: str | None  # the class whose body declares it (itself, a base, or the generic class)
    source: ClassInfo | None  # the class written in the file (the generic class, for generated ones)
    generic: str | None = None  # set for generated classes: the instantiated class's name
    call: Instantiation | None = None
    methods: tuple[str, ...] = ()  # test method names as collected (device suffix included)
    keywords: tuple[str, ...] = ()  # decorator names: pytest's -k also matches marker names
    notes: tuple[str, ...] = ()  # why the placement is uncertain, for stderr and explain
    # Its existence or name depends on a run-time fact: defined or generated in a block importing may
    # skip (if, except...), an unresolved filter, a base or decorator rebound at run time, a non-Test*
    # class not surely a TestCase, dynamic code in the module. ``unsure`` says which.
    conditional: bool = False
    tests: int = 0  # test methods pytest collects from the class (before parametrization)
    unsure: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.names[0]

    @property
    def nodeid(self) -> str:
        return f"{self.path}::{self.name}"

    @property
    def uncertain_name(self) -> bool:
        """True when the collected name depends on collection order (PrivateUse1)."""
        return len(self.names) > 1

    @property
    def uncertain_nodeid(self) -> bool:
        """True when no single node id is sure to exist at collection time.

        pytest aborts the whole run on a node id it cannot find, so such classes are better
        addressed through their file (and a -k). This is the property hwselect keeps: a printed
        ``path::Class`` is one pytest collects whatever the run-time facts hwlint cannot see.
        """
        return self.uncertain_name or self.conditional or bool(self.unsure)

    @property
    def test_count(self) -> int:
        """Test methods in the class, at least 1 (the weight used to balance shards)."""
        return max(self.tests, 1)


@dataclass(frozen=True)
class NotGenerated:
    """An instantiated class that generates nothing for the runner's device, and why."""

    path: str
    generic: str
    call: Instantiation | None  # None once slimmed for the cache
    reason: str
    kind: str  # only_for | except_for | opt_in | unknown_device


@dataclass
class FileSelection:
    path: str
    candidates: list[Candidate] = field(default_factory=list)
    not_generated: list[NotGenerated] = field(default_factory=list)
    error: str | None = None
    # module-level test functions pytest collects; never selected (the runtime drops classless tests)
    functions: list[str] = field(default_factory=list)
    # classes or tests the module creates in ways hwlint cannot see, in words (one per site)
    unseen: list[str] = field(default_factory=list)

    @property
    def selected(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == SELECTED]


@dataclass
class RunnerSelection:
    """The selection for one runner over a set of files."""

    runner: Runner
    backends: tuple[str, ...]
    include_unclassified: bool
    files: list[FileSelection]
    warnings: list[str] = field(default_factory=list)

    @property
    def candidates(self) -> list[Candidate]:
        return [c for f in self.files for c in f.candidates]

    @property
    def selected(self) -> list[Candidate]:
        return [c for f in self.files for c in f.selected]

    def counts(self) -> dict[str, int]:
        """Classes by status, plus ``total`` (every class collected on this runner), as torch counts."""
        counter = Counter(c.status for c in self.candidates)
        out = {"total": len(self.candidates)}
        out.update({s: counter.get(s, 0) for s in STATUSES})
        out["tests"] = sum(c.test_count for c in self.selected)
        out["not_generated"] = sum(len(f.not_generated) for f in self.files)
        return out

    def summary(self) -> str:
        """One line in the runtime's terms (``total=, passed=, unclassified=, mismatched=``)."""
        c = self.counts()
        mode = ", ".join(self.runner.runs) + (", unclassified" if self.include_unclassified else "")
        line = (
            f"hwselect {self.runner.name} (device {self.runner.device}, runs [{mode}]): "
            f"total={c['total']}, selected={c['selected']}, unclassified={c['unclassified']}, "
            f"mismatched={c['mismatched']}"
        )
        if c["unplaced"]:
            line += f", unplaced={c['unplaced']}"
        return line + f" classes; {c['tests']} test methods in {len(self.selected_files())} files"

    def functions(self) -> dict[str, list[str]]:
        """Module-level test functions by file: pytest collects them, so -k must not match them."""
        return {f.path: f.functions for f in self.files if f.functions}

    def selected_files(self) -> list[str]:
        return [f.path for f in self.files if f.selected]

    def why_empty(self) -> list[str]:
        """Reasons a selection came out empty, in the runtime's terms (empty when it is not empty)."""
        if self.selected:
            return []
        reasons = []
        c = self.counts()
        if not self.files:
            return ["no test files were found under the given paths"]
        if c["total"] == 0 and not c["not_generated"]:
            reasons.append("no test classes were found in the given files")
        kinds = Counter(n.kind for f in self.files for n in f.not_generated)
        for kind, n in sorted(kinds.items()):
            example = next(x for f in self.files for x in f.not_generated if x.kind == kind)
            reasons.append(
                f"{n} instantiated classes generate nothing for {self.runner.device}: {example.reason}"
            )
        if c["mismatched"]:
            seen = Counter(x.classification for x in self.candidates if x.status == MISMATCHED)
            listed = ", ".join(f"{k} ({v})" for k, v in sorted(seen.items()))
            reasons.append(
                f"{c['mismatched']} classes are classified for other runners: {listed}; "
                f"{self.runner.name} runs {', '.join(self.runner.runs)}"
            )
        if c["unclassified"] and not self.include_unclassified:
            reasons.append(
                f"{c['unclassified']} classes are unclassified (--include-unclassified selects them)"
            )
        if c["unplaced"]:
            reasons.append(f"{c['unplaced']} classes have a classification hwlint cannot read")
        return reasons


# ---------------------------------------------------------------------------------------------


def runner_backends(taxonomy: Taxonomy, runner: Runner, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """PrivateUse1 backend names the runner's generated classes may carry.

    The runner's own (taxonomy ``backend:``) and *extra* (``--backend``); without either, every
    backend another runner of the taxonomy names, since any of them may be the one installed.
    """
    if runner.device != "privateuse1":
        return ()
    named = [*runner.backends, *extra] or list(taxonomy.backends())  # else any backend the taxonomy names
    return tuple(b for b in dict.fromkeys(named) if b)


def with_backends(taxonomy: Taxonomy, backends: Sequence[str]) -> Taxonomy:
    """*taxonomy*, also knowing *backends* as spellings of privateuse1 in only_for / except_for.

    The runtime maps the registered backend's name back to "privateuse1" before filtering; a
    backend given on the command line must count as well as one a runner declares.
    """
    missing = tuple(b for b in backends if b not in taxonomy.backends())
    if not missing:
        return taxonomy
    extra = Runner("--backend", "privateuse1", (), missing)
    return replace(taxonomy, runners={**taxonomy.runners, extra.name: extra})


def get_runner(taxonomy: Taxonomy, name: str) -> Runner:
    """The taxonomy's runner called *name*; SelectionError listing the known ones otherwise."""
    runner = taxonomy.runners.get(name)
    if runner is None:
        known = ", ".join(taxonomy.runners) or "none"
        raise SelectionError(f"unknown runner {name!r} (the taxonomy defines: {known})")
    return runner


def select_paths(
    taxonomy: Taxonomy,
    runner: Runner | str,
    paths: Sequence[str],
    backends: Iterable[str] = (),
    include_unclassified: bool = False,
    config=None,
    jobs: int | None = None,
    cache: Cache | None = None,
) -> RunnerSelection:
    """Select, for *runner*, the test classes of every test file under *paths* (hwlint's discovery).

    What discovery cannot take (a directory it cannot list, a FIFO) is a warning of the result."""
    from ..pipeline.config import Config, discover

    config = config or Config()
    skipped: list = []
    files = list(discover(paths, config, skipped=skipped))
    if isinstance(runner, str):
        runner = get_runner(taxonomy, runner)
    max_bytes = config.max_file_size * 1024 * 1024
    selections = select_all(
        taxonomy, files, backends, include_unclassified, jobs, cache, [runner], config.roots, max_bytes
    )
    selections[runner.name].warnings[:0] = [str(s) for s in skipped]
    return selections[runner.name]


def select_files(
    taxonomy: Taxonomy,
    runner: Runner | str,
    files: Iterable[str],
    backends: Iterable[str] = (),
    include_unclassified: bool = False,
    jobs: int | None = None,
    cache: Cache | None = None,
) -> RunnerSelection:
    """Select, for *runner*, the test classes of each file in *files*."""
    if isinstance(runner, str):
        runner = get_runner(taxonomy, runner)
    return select_all(taxonomy, files, backends, include_unclassified, jobs, cache, [runner])[runner.name]


def select_all(
    taxonomy: Taxonomy,
    files: Iterable[str],
    backends: Iterable[str] = (),
    include_unclassified: bool = False,
    jobs: int | None = None,
    cache: Cache | None = None,
    runners: Sequence[Runner] | None = None,
    roots: Sequence[str] = (),
    max_bytes: int = MAX_FILE_BYTES,
) -> dict[str, RunnerSelection]:
    """Select, for each of *runners* (default: every runner of the taxonomy), the test classes of
    each file in *files*. Each file is read and parsed once for all of them, on *jobs* processes;
    the cache keeps each request (runners, backends, options) apart, so a CI job that asks for one
    runner loads only that runner's selections. Files over *max_bytes* are not read (a warning)."""
    files = list(files)
    backends = tuple(backends)
    runners = list(runners if runners is not None else taxonomy.runners.values())
    names = tuple(r.name for r in runners)
    inc = include_unclassified
    analysis = functools.partial(_select_analysis, names=names, backends=backends, include_unclassified=inc)
    kind = f"select2:{','.join(names)}:{','.join(backends)}:{int(inc)}"
    value_type = tuple[dict[str, FileSelection], Links | None] | str
    per_file = analyze_files(files, taxonomy, analysis, kind, jobs, cache, max_bytes, value_type=value_type)
    per_file, project_notes = link_files(
        files, per_file, taxonomy, names, backends, inc, roots, jobs, cache, max_bytes
    )
    out = {}
    for runner in runners:
        chosen = runner_backends(taxonomy, runner, backends)
        result = RunnerSelection(runner, chosen, include_unclassified, [])
        if runner.device == "privateuse1" and not chosen:
            result.warnings.append(
                f"runner {runner.name} has no PrivateUse1 backend name (taxonomy `backend:` or --backend): "
                "generated classes are matched only as ...PRIVATEUSE1, but all but the first are named "
                "after the backend"
            )
        for path, by_runner in zip(files, per_file, strict=True):
            if isinstance(by_runner, str):
                result.files.append(FileSelection(path, error=by_runner))
                result.warnings.append(f"{path}: cannot read: {by_runner}")
                continue
            fs = selection_at(by_runner[0][runner.name], path)
            result.files.append(fs)
            if fs.error:
                result.warnings.append(f"{path}: cannot parse ({fs.error}); none of its classes is selected")
            result.warnings += [f"{c.nodeid}: {note}" for c in fs.candidates for note in c.notes]
            result.warnings += [f"{path}: {note}" for note in fs.unseen]
            result.warnings += [f"{path}: {note}" for note in project_notes.get(path, [])]
        out[runner.name] = result
    return out


def _select_analysis(
    path: str,
    data: bytes | str,
    taxonomy: Taxonomy,
    names: tuple[str, ...],
    backends: tuple[str, ...],
    include_unclassified: bool,
) -> tuple[dict[str, FileSelection], Links | None] | str:
    """The named runners' selections of one file (slim: no model objects) and what the cross-file
    phase needs of it (:class:`~hwlint.project.Links`), or why it cannot be read."""
    if isinstance(data, str):
        return data
    model = build_model(data, path, taxonomy, devices=False)
    links = links_of(model) if model.error is None else None
    return select_runners(model, taxonomy, names, backends, include_unclassified), links


def select_runners(
    model: FileModel,
    taxonomy: Taxonomy,
    names: Sequence[str],
    backends: tuple[str, ...] = (),
    inc: bool = False,
    slim: bool = True,
) -> dict[str, FileSelection]:
    """One file's selection for each runner in *names*; *slim*: without references into the model
    (small to cache and to ship between processes)."""
    out = {}
    for runner in (taxonomy.runners[name] for name in names):
        chosen = runner_backends(taxonomy, runner, backends)
        fs = select_model(model, with_backends(taxonomy, chosen), runner, chosen, inc)
        out[runner.name] = slim_selection(fs) if slim else fs
    return out


def link_files(
    files: Sequence[str],
    per_file: list,
    taxonomy: Taxonomy,
    names: Sequence[str],
    backends: tuple[str, ...],
    inc: bool,
    roots: Sequence[str] = (),
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> tuple[list, dict[str, list[str]]]:
    """The cross-file phase, over the per-file :class:`~hwlint.project.Links` the first phase cached.

    Classes a module imports from another scanned test module are added to it, as pytest collects
    them there too. A file whose bases or instantiated classes come from another scanned module is
    selected again with the project's resolver, on the models of just those files
    (:func:`hwlint.project.link`: cached apart, so a warm run parses nothing). Returns the updated
    per-file values and warnings by file: imports of test classes from modules that are not scanned.
    """
    from ..project import linked_values

    links = file_links(files, per_file)
    if not links:
        return per_file, {}

    def select_linked(models: dict[str, FileModel]) -> dict[str, dict[str, FileSelection]]:
        return {path: select_runners(m, taxonomy, names, backends, inc) for path, m in models.items()}

    kind = f"select-linked:{','.join(names)}:{','.join(backends)}:{int(inc)}"
    value_type = dict[str, FileSelection]
    project, selected = linked_values(
        files, links, taxonomy, kind, select_linked, value_type, roots, jobs, cache, max_bytes
    )
    return apply_links(files, list(per_file), project, selected)


def file_links(files: Sequence[str], per_file: list) -> dict[str, Links]:
    """The :class:`~hwlint.project.Links` of each readable file (per-file values as
    :func:`select_all`'s first phase makes them), under the path as given."""
    return {
        path: replace(entry[1], path=path)
        for path, entry in zip(files, per_file, strict=True)
        if not isinstance(entry, str) and entry[1] is not None
    }


def apply_links(
    files: Sequence[str],
    per_file,
    project,
    selected: dict[str, dict[str, FileSelection]],
    links: dict[str, Links] | None = None,
):
    """:func:`link_files` once the cross-file phase has run: *selected* holds the selections of the
    linked files (by path, made with the project's resolver); imported test classes are added
    and unresolved imports noted, from the links alone (*project* needs no model for that).

    *per_file* (indexable: entries are read and replaced, never iterated when *links* are given)
    is updated in place; returns it, and the notes by file."""
    notes: dict[str, list[str]] = {}
    links = file_links(files, per_file) if links is None else links
    index = {os.path.abspath(p): i for i, p in enumerate(files)}
    out = per_file
    for path, by_runner in selected.items():
        out[index[os.path.abspath(path)]] = (
            {n: selection_at(fs, path) for n, fs in by_runner.items()},
            links[path],
        )

    def classes_of(apath: str) -> list[str]:
        lk = links.get(files[index[apath]]) if apath in index else None
        return [n for n, _ in lk.classes] if lk is not None else []

    for path, lk in links.items():
        i = index[os.path.abspath(path)]
        imported = project.imported_classes(lk, classes_of)
        if imported:
            out[i] = (_with_imported(out, i, path, imported, index), lk)
        for imp, name in project.unresolved_imports(lk):
            if imp.module and not name.endswith(_HELPER_SUFFIXES):
                notes.setdefault(path, []).append(
                    f"line {imp.site.line}: imports {name} from {imp.module}, which is not among the "
                    "scanned files: if it is a test class pytest collects it here too, and hwselect does "
                    "not select it"
                )
    return out, notes


_HELPER_SUFFIXES = ("TestCase", "Base", "Mixin", "Template")


def _with_imported(
    out: list, i: int, path: str, imported: list, index: dict[str, int]
) -> dict[str, FileSelection]:
    """File *i*'s selections with the classes it imports from other test modules added."""
    by_runner = dict(out[i][0])
    for runner, fs in by_runner.items():
        have = {n for c in fs.candidates for n in c.names}
        added = []
        for x in imported:
            j = index.get(x.path)
            if j is None or isinstance(out[j], str) or x.binding in have:
                continue
            for c in out[j][0][runner].candidates:
                if x.name not in c.names:
                    continue
                have.add(x.binding)
                added.append(
                    replace(
                        c,
                        path=path,
                        names=(x.binding,) if len(c.names) == 1 else c.names,
                        conditional=c.conditional or x.statement.nested,
                        notes=(),
                    )
                )
        if added:
            by_runner[runner] = replace(fs, candidates=[*fs.candidates, *added])
    return by_runner


def _hidden_tests(model: FileModel) -> list[str]:
    """Test*-named classes with no test hwlint can see but a base it cannot resolve: pytest may
    collect them (their tests come from the base), hwselect never selects them."""
    out = []
    resolver = model.resolver or LocalResolver()
    for cls in model.classes:
        if (
            not cls.name.startswith("Test")
            or model.under_main_guard(cls.site.line)
            or _test_methods(model, cls)
        ):
            continue
        bases = [(c, b) for c in mro(model, cls) for b in c.bases if b and b != "object"]
        unknown = [
            b for c, b in bases if not b.endswith("TestCase") and resolver.resolve_base(model, c, b) is None
        ]
        # a TestCase (or a base named like a test holder) whose other bases are unknown
        if unknown and any(b.endswith("TestCase") or "Test" in b for _, b in bases):
            out.append(
                f"{cls.name} (line {cls.site.line}) has no test hwlint can see, but its base "
                f"{', '.join(unknown)} is outside the scanned files: if it holds tests, pytest collects "
                "them and hwselect does not select them"
            )
    return out


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
    deleted = {name for name, _ in model.deletions}
    fs.functions = [
        name
        for name, line in model.test_functions
        if not model.under_main_guard(line) and name not in deleted
    ]
    seen: set[int] = set()
    for entry in bound.values():
        if id(entry) in seen:
            continue
        seen.add(id(entry))
        cand = _candidate(model, taxonomy, runner, entry, include_unclassified)
        if cand is not None:
            unsure = (*file_unsure, *_unsure(model, entry, maybe))
            if cand.conditional:
                line = cand.call.site.line if cand.call else entry.site.line  # type: ignore[union-attr]
                what = "instantiated" if cand.call else "defined"
                unsure = (f"{what} in a block importing the module may skip (line {line})", *unsure)
            fs.candidates.append(replace(cand, unsure=unsure) if unsure else cand)
    fs.candidates.sort(key=_line)
    fs.unseen += _hidden_tests(model)
    return fs


def _line(c: Candidate) -> tuple[int, str]:
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
    events += [(line, 2, name) for name, line in model.deletions if not model.under_main_guard(line)]
    events.sort(key=lambda e: (e[0], e[1]))
    bound: dict[str, ClassInfo | _Generated] = {}
    maybe: dict[str, str] = {}
    file_unsure: list[str] = []

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
            why = (
                f"line {line}: {item.function}({generic_name}, ...) instantiates a class hwlint cannot "
                "see (a loop variable or a computed class): the classes it generates are not selected"
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
    for site, kind in model.dynamic:
        if model.under_main_guard(site.line):
            continue
        if kind == "exit":
            file_unsure.append(f"line {site.line}: `{site.text}` may end the module's import early")
            continue
        what = _DYNAMIC.get(kind)
        if what is None or (kind == "setattr" and model.class_named(site.text) is None):
            continue  # setattr on something other than a class of the module adds no test
        fs.unseen.append(f"line {site.line}: {what} (`{site.text}`)")
        if kind in ("globals", "exec"):
            file_unsure.append(f"line {site.line}: {what}")
    return bound, maybe, tuple(dict.fromkeys(file_unsure))


_DYNAMIC = {
    "globals": "writes module globals at run time: the classes it creates are not selected, and any "
    "name may be rebound",
    "exec": "runs exec(): the classes it creates are not selected, and any name may be rebound",
    "type": "creates a class with type(): it is not selected",
    "setattr": "adds attributes to a class with setattr(): tests added this way are not counted",
}


def _unsure(model: FileModel, entry: ClassInfo | _Generated, maybe: dict[str, str]) -> tuple[str, ...]:
    """Why the collected class *entry* may not exist under its name at run time (empty: it will)."""
    out = []
    cls = entry if isinstance(entry, ClassInfo) else entry.source
    name = entry.name if isinstance(entry, ClassInfo) else entry.generic
    if isinstance(entry, ClassInfo) and name in maybe:
        out.append(maybe[name])
    if isinstance(entry, _Generated):
        out += [f"may not be generated: {n}" for n in entry.notes if "cannot be resolved" in n]
    if cls is None:
        return tuple(out)
    line = model.runtime_bound(name, after=cls.site.line)
    if line:
        out.append(f"the name {name} is rebound at run time (line {line})")
    for c in mro(model, cls):
        for base in c.bases:
            line = model.runtime_bound(base.partition(".")[0], before=c.site.line)
            if line:
                out.append(f"base {base} of {c.name} is bound at run time (line {line})")
    for d in cls.decorators:
        head = _head(d.site.text)
        line = model.runtime_bound(head, before=cls.site.line)
        if line:
            out.append(
                f"decorator @{d.site.text} is bound at run time (line {line}) and may replace the class"
            )
    if isinstance(entry, ClassInfo) and not name.startswith("Test") and not _surely_testcase(model, cls):
        out.append(f"{name} is not named Test* and no base is surely a unittest.TestCase")
    tests = [(c, t) for c in mro(model, cls) for t in (*c.test_methods, *c.assigned_tests)]
    if tests and all((t if isinstance(t, str) else t.name) in c.conditional_tests for c, t in tests):
        out.append("every test of the class is defined under a condition")
    for site, kind in model.dynamic:
        if kind == "setattr" and site.text == name:
            out.append(f"tests are added with setattr (line {site.line})")
    return tuple(dict.fromkeys(out))


def _gets_tests(model: FileModel, cls: ClassInfo) -> bool:
    """True when module code adds attributes to *cls* with setattr (tests hwlint cannot count)."""
    return any(kind == "setattr" and site.text == cls.name for site, kind in model.dynamic)


def _head(text: str) -> str:
    """The first name of a decorator's source text (``unittest`` for ``unittest.skipIf(...)``)."""
    end = 0
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[:end]


def _surely_testcase(model: FileModel, cls: ClassInfo) -> bool:
    """True when a base in *cls*'s known MRO is a ``...TestCase`` by name: pytest collects a
    unittest.TestCase whatever its name."""
    return any(
        base.rpartition(".")[2].endswith("TestCase")
        and not model.runtime_bound(base.partition(".")[0], before=c.site.line)
        for c in mro(model, cls)
        for base in c.bases
    )


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


def _generation_notes(entry: _Generated, status: str, member: str | None, runner: Runner) -> list[str]:
    """The uncertain-generation notes, worded for what happens to the class on this runner."""
    if status == SELECTED:
        return [f"{text}; {if_selected}" for text, if_selected in entry.notes]
    if status == UNCLASSIFIED:
        outcome = "not selected either way: the class is unclassified, so the runtime's filter drops it"
    elif status == MISMATCHED:
        outcome = f"not selected either way: runner {runner.name} does not run {member}"
    else:
        outcome = "not selected: its classification cannot be read"
    return [f"{text}; {outcome}" for text, _ in entry.notes]


# -- classifying what is bound ----------------------------------------------------------------


def _candidate(
    model: FileModel,
    taxonomy: Taxonomy,
    runner: Runner,
    entry: ClassInfo | _Generated,
    include_unclassified: bool,
) -> Candidate | None:
    if isinstance(entry, ClassInfo):
        methods = _test_methods(model, entry)
        if (not methods and not _gets_tests(model, entry)) or not _collectable(model, entry):
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
    notes: list[str] = []
    if entry.replaced:
        notes.append(
            f"replaces the hand-written class {', '.join(entry.replaced)}: instantiating "
            f"{entry.generic} binds that name in the module"
        )
    source = entry.source
    if source is not None and not _test_methods(model, source) and not _gets_tests(model, source):
        return None  # a generated class without tests: pytest collects no item from it
    if entry.source is None:
        status, member, holder = UNPLACED, None, None
        notes.append(f"{entry.generic} is not defined in this file, so its classification is unknown here")
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
) -> tuple[str, str | None, str | None, tuple[str, ...]]:
    """(status, member, holder, notes) for the classification ``getattr`` finds on *cls*."""
    options = _declaration_options(model, cls)
    if len(options) > 1:
        placed = {_place_one(taxonomy, runner, d, h, include_unclassified)[0] for d, h in options}
        if len(placed) > 1:
            lines = [str(d.site.line) for d, _ in options if d is not None]
            where = f"line{'s' * (len(lines) > 1)} {', '.join(lines)}"
            note = f"{taxonomy.attribute} depends on a run-time condition ({where})"
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
) -> tuple[str, str | None, str | None, tuple[str, ...]]:
    """(status, member, holder, notes) for one declaration *decl* held by *holder* (None: none)."""
    if decl is None or holder is None:
        return (SELECTED if include_unclassified else UNCLASSIFIED), None, None, ()
    if decl.member is None:
        note = f"{taxonomy.attribute} = {decl.site.text} (line {decl.site.line}) is not a static enum member"
        return UNPLACED, None, holder.name, (note,)
    if decl.member not in taxonomy.classifications:
        note = f"{decl.member} (line {decl.site.line}) is not a classification in the taxonomy"
        return UNPLACED, decl.member, holder.name, (note,)
    status = SELECTED if decl.member in runner.runs else MISMATCHED
    return status, decl.member, holder.name, ()


def _test_methods(model: FileModel, cls: ClassInfo) -> tuple[str, ...]:
    """Test methods a hand-written class has, its own and those inherited from bases in the file
    (``def test_x`` and ``test_x = helper`` alike)."""
    names: dict[str, None] = {}
    for c in mro(model, cls):
        if c is not cls and any(not model.is_conditional(i.site.line) for i in model.instantiations_of(c)):
            continue  # instantiation deletes the generic class's tests: its subclasses lose them too
        for m in c.test_methods:
            names.setdefault(m.name)
        for t in c.assigned_tests:
            names.setdefault(t)
    return tuple(names)


def _collectable(model: FileModel, cls: ClassInfo) -> bool:
    """Whether pytest collects *cls* at all.

    A class whose every base is known and none comes from outside the file cannot be a
    ``unittest.TestCase``: pytest then collects it only under its ``Test*`` naming rule (a mixin
    such as ``class _OpsMixin:`` holding test methods is never collected on its own).
    """
    resolver = model.resolver or LocalResolver()
    for c in mro(model, cls):
        for base in c.bases:
            if base == "object":
                continue
            if resolver.resolve_base(model, c, base) is None:
                return True  # a base from outside the file, perhaps TestCase
    return cls.name.startswith("Test")


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
    out += [name for name in _test_methods(model, entry.source) if name not in own]
    return tuple(dict.fromkeys(out))


def _generated_count(model: FileModel, entry: _Generated) -> int:
    """Test methods of a generated class, each counted once whatever its suffix."""
    return len(_test_methods(model, entry.source)) if entry.source else 0


def _keywords(cls: ClassInfo) -> tuple[str, ...]:
    names = {d.name for d in cls.decorators}
    for m in cls.methods:
        names.update(d.name for d in m.decorators)
    return tuple(sorted(n for n in names if n))


# -- explain ----------------------------------------------------------------------------------


def explain(
    taxonomy: Taxonomy,
    runner: Runner | str,
    path: str,
    class_name: str,
    backends=(),
    roots: Sequence[str] = (),
) -> list[str]:
    """Why *class_name* in *path* does or does not run on *runner*: lines of text, verdict first."""
    if isinstance(runner, str):
        runner = get_runner(taxonomy, runner)
    chosen = runner_backends(taxonomy, runner, backends)
    taxonomy = with_backends(taxonomy, chosen)
    data = read_source(path)
    if isinstance(data, str):
        return [f"{path}: cannot read: {data}"]
    model = build_model(data, path, taxonomy, devices=False)
    project = on_demand(model, taxonomy, roots)
    model = replace(model, resolver=project.resolver())
    fs = select_model(model, taxonomy, runner, chosen, include_unclassified=False)
    if fs.error:
        return [f"{path}: cannot parse ({fs.error})"]
    lines: list[str] = []

    def classes_of(p: str) -> list[str]:
        found = project.model_of(p)
        return [c.name for c in found.classes] if found is not None else []

    for x in project.imported_classes(links_of(model), classes_of):
        if x.binding == class_name:
            lines += [
                f"{class_name} is imported from {relpath(x.path)} (line {x.statement.site.line}): pytest "
                f"collects it as {path}::{class_name} too, with the same verdict:",
                *explain(taxonomy, runner, relpath(x.path), x.name, backends, roots),
            ]
            if x.statement.nested:
                lines.append("  note: the import is in a block that may not run: addressed through the file.")
            return lines
    for cand in fs.candidates:
        if class_name in cand.names or class_name == cand.generic:
            lines += _explain_candidate(taxonomy, runner, model, cand)
    suffixes = {
        "",
        *(d.upper() for d in taxonomy.devices),
        *(b.upper() for b in (*taxonomy.backends(), *chosen)),
    }
    for ng in fs.not_generated:
        if class_name.startswith(ng.generic) and class_name[len(ng.generic) :] in suffixes:
            lines += [
                f"NOT RUN: {path}::{ng.generic} generates no class for {runner.device} "
                f"on runner {runner.name}: {ng.reason}.",
            ]
    if not lines:
        lines = _explain_absent(model, runner, class_name)
    return lines


def _explain_candidate(taxonomy: Taxonomy, runner: Runner, model: FileModel, cand: Candidate) -> list[str]:
    verdict = "RUNS" if cand.status == SELECTED else "NOT RUN"
    names = " or ".join(cand.names)
    lines = [
        f"{verdict}: {cand.path}::{names} on runner {runner.name} (device {runner.device}): {cand.status}."
    ]
    if cand.generic:
        call = cand.call
        assert call is not None
        lines.append(
            f"  generated by {call.function}({cand.generic}, ...) at line {call.site.line} "
            f"for {runner.device}; the generic class {cand.generic} itself is not collected."
        )
        if len(cand.names) > 1:
            lines.append(
                "  PrivateUse1: the first class instantiated in a process is named ...PRIVATEUSE1, "
                "later ones after the backend; both names are accepted."
            )
    if cand.classification:
        where = "its own body" if cand.holder in (cand.name, cand.generic) else f"base class {cand.holder}"
        lines.append(f"  classification {cand.classification}, declared in {where}.")
    else:
        lines.append(f"  no {taxonomy.attribute} in the class or its bases in this file.")
    lines.append(f"  runner {runner.name} runs {', '.join(runner.runs)}.")
    lines += [f"  note: {n}" for n in cand.notes]
    if cand.uncertain_nodeid and cand.unsure:
        lines.append("  hwselect addresses it through its file (and a -k), as its node id may not exist:")
        lines += [f"    - {u}" for u in cand.unsure]
    if cand.status == UNPLACED:
        lines.append("  the pytest plugin (pytest --hw-runner) reads the live classification instead.")
    return lines


def _explain_absent(model: FileModel, runner: Runner, class_name: str) -> list[str]:
    cls = model.class_named(class_name)
    if cls is None:
        lines = [
            f"NOT RUN: {model.path} defines no class {class_name} and generates none on runner {runner.name}."
        ]
        for site, kind in model.dynamic:
            if kind in _DYNAMIC:
                lines.append(f"  but line {site.line} {_DYNAMIC[kind]}: hwselect cannot see such classes.")
        return lines
    if not _test_methods(model, cls):
        return [f"NOT RUN: {model.path}::{class_name} has no test methods hwlint can see."]
    return [
        f"NOT RUN: {model.path}::{class_name} is not bound at the end of the module on runner {runner.name} "
        "(it is instantiated, or replaced by a later definition)."
    ]


def relpath(path: str) -> str:
    """*path* relative to the current directory when it lies below it (node ids are cwd-relative)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


# -- sharding ---------------------------------------------------------------------------------


def shard(candidates: Sequence[Candidate], shards: int) -> list[list[Candidate]]:
    """Split *candidates* into *shards* lists balanced by test-method count (largest first, greedy).

    Deterministic for a given input, so every CI job recomputes the same split on its own.
    """
    if shards < 1:
        raise SelectionError("--shards must be at least 1")
    out: list[list[Candidate]] = [[] for _ in range(shards)]
    load = [0] * shards
    for c in sorted(candidates, key=lambda c: (-c.test_count, c.path, c.name)):
        k = min(range(shards), key=lambda i: (load[i], i))
        out[k].append(c)
        load[k] += c.test_count
    for part in out:
        part.sort(key=lambda c: (c.path, *_line(c)))
    return out
