"""Selection over many files and runners: the per-file replay on the engine's pool (cached per
request), then the cross-file phase (classes imported from other test modules, bases and generic
classes defined elsewhere), as every command runs it."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..collection import test_module, trusted_module
from ..model import FileModel, build_model
from ..pipeline.cache import Cache
from ..pipeline.config import Config
from ..pipeline.session import RunOptions, Session
from ..project import Links, links_of
from ..taxonomy import Runner, Taxonomy
from .notices import Kind, Notice
from .records import SELECTED, FileSelection, RunnerSelection, SelectionError
from .replay import select_model, selection_at, slim_selection


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
    options: RunOptions | None = None,
) -> RunnerSelection:
    """Select, for *runner*, the test classes of every test file under *paths* (hwlint's discovery),
    in a session of *config* run as *options* ask.

    What discovery cannot take (a directory it cannot list, a FIFO) is a warning of the result."""
    from ..pipeline.config import discover

    config = config or Config()
    skipped: list = []
    files = list(discover(paths, config, skipped=skipped))
    if isinstance(runner, str):
        runner = get_runner(taxonomy, runner)
    session = Session.from_config(config, options or RunOptions(no_cache=True), taxonomy, paths=paths)
    selections = select_all(session, files, backends, include_unclassified, [runner])
    selections[runner.name].warnings[:0] = [
        Notice(Kind.NOT_FOLLOWED if s.collected else Kind.SKIPPED, s.path, s.reason) for s in skipped
    ]
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
    session = Session.from_config(Config(), RunOptions(jobs, no_cache=cache is None, cache=cache), taxonomy)
    return select_all(session, files, backends, include_unclassified, [runner])[runner.name]


def select_all(
    session: Session,
    files: Iterable[str],
    backends: Iterable[str] = (),
    include_unclassified: bool = False,
    runners: Sequence[Runner] | None = None,
) -> dict[str, RunnerSelection]:
    """Select, for each of *runners* (default: every runner of the taxonomy), the test classes of
    each file in *files*. Each file is read and parsed once for all of them, on the session's
    processes; the cache keeps each request (runners, backends, options) apart, so a CI job that
    asks for one runner loads only that runner's selections. Files over the session's size cap are
    not read (a warning)."""
    taxonomy = session.taxonomy
    files = list(files)
    backends = tuple(backends)
    runners = list(runners if runners is not None else taxonomy.runners.values())
    names = tuple(r.name for r in runners)
    inc = include_unclassified
    analysis = functools.partial(_select_analysis, names=names, backends=backends, include_unclassified=inc)
    kind = f"select5:{','.join(names)}:{','.join(backends)}:{int(inc)}"
    value_type = tuple[dict[str, FileSelection], Links | None] | str
    per_file = session.analyze(files, analysis, kind, value_type, progress=False)
    per_file, project_notes = link_files(files, per_file, session, names, backends, inc)
    out = {}
    for runner in runners:
        chosen = runner_backends(taxonomy, runner, backends)
        result = RunnerSelection(runner, chosen, include_unclassified, [])
        if runner.device == "privateuse1" and not chosen:
            result.warnings.append(
                Notice(
                    Kind.PRIVATEUSE1_BACKEND,
                    "",
                    f"runner {runner.name} has no PrivateUse1 backend name (taxonomy `backend:` or "
                    "--backend): generated classes are matched only as ...PRIVATEUSE1, but all but the "
                    "first are named after the backend",
                )
            )
        for path, by_runner in zip(files, per_file, strict=True):
            if isinstance(by_runner, str):
                result.files.append(FileSelection(path, error=by_runner))
                result.warnings.append(Notice(Kind.UNREADABLE, path, f"cannot read: {by_runner}"))
                continue
            fs = selection_at(by_runner[0][runner.name], path)
            result.files.append(fs)
            if fs.error:
                why = f"cannot parse ({fs.error}); none of its classes is selected"
                result.warnings.append(Notice(Kind.UNPARSABLE, path, why))
            result.warnings += [note.notice(c.nodeid) for c in fs.candidates for note in c.notes]
            result.warnings += [
                why.notice(c.nodeid)
                for c in fs.candidates
                if c.status == SELECTED
                for why in c.unsure
                if why.kind == Kind.CLASS_DECORATOR.value
            ]
            result.warnings += [note.notice(path) for note in fs.unseen]
            result.warnings += project_notes.get(path, [])
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
        fs.candidates = [_with_items(model, c, runner.device) for c in fs.candidates]
        out[runner.name] = slim_selection(fs) if slim else fs
    return out


#: A class's item count is capped here (a `range(10**9)` parametrization is not a plan).
_MAX_ITEMS = 1_000_000


def _with_items(model: FileModel, c, device: str):
    """*c* with the test items its tests expand into and its tests' neutral names
    (:mod:`hwlint.select.expansion`)."""
    from ..collection import tests
    from .expansion import neutral_tests, test_items

    per_test = tuple(
        replace(t, items=min(t.items, _MAX_ITEMS)) for t in test_items(model, c.source, c.generic, device)
    )
    items = min(sum(t.items for t in per_test), _MAX_ITEMS)
    names = tests(model, c.source) if c.generic and c.source is not None else c.methods
    return replace(
        c,
        items=items or c.items,
        neutral_tests=neutral_tests(model, c.source, names),
        test_items=per_test,
    )


def link_files(
    files: Sequence[str],
    per_file: list,
    session: Session,
    names: Sequence[str],
    backends: tuple[str, ...],
    inc: bool,
) -> tuple[list, dict[str, list[str]]]:
    """The cross-file phase, over the per-file :class:`~hwlint.project.Links` the first phase cached.

    Classes a module imports from another scanned test module are added to it, as pytest collects
    them there too. A file whose bases or instantiated classes come from another scanned module is
    selected again with the project's resolver, on the models of just those files
    (:meth:`hwlint.pipeline.session.Session.link`: cached apart, so a warm run parses nothing).
    Returns the updated per-file values and warnings by file: imports of test classes from modules
    that are not scanned.
    """
    links = file_links(files, per_file)
    taxonomy = session.taxonomy
    if not links:
        return per_file, {}

    def select_linked(models: dict[str, FileModel]) -> dict[str, dict[str, FileSelection]]:
        return {path: select_runners(m, taxonomy, names, backends, inc) for path, m in models.items()}

    kind = f"select-linked4:{','.join(names)}:{','.join(backends)}:{int(inc)}"
    value_type = dict[str, FileSelection]
    project, selected = session.linked(files, links, kind, select_linked, value_type)
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
    notes: dict[str, list[Notice]] = {}
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
                # a class of a helper is selected in case (replay's unseen candidates); one of a
                # test module outside the scan is that module's to place
                helper = not test_module(imp.module) and not trusted_module(imp.module)
                what = (
                    f"line {imp.site.line}: imports {name} from {imp.module}, which is not among the "
                    "scanned files: if it is a test class pytest collects it here too, and hwselect "
                    + ("lists this file in case" if helper else "does not select it")
                )
                notes.setdefault(path, []).append(Notice(Kind.OUTSIDE_IMPORT, path, what, imp.site.line))
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
