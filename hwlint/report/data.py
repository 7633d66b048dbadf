"""The migration report: where a suite stands, per directory and per runner.

The report computes nothing on its own account. It reads what the rest of hwlint already knows:

* the file model (:mod:`hwlint.model`): the test classes of each file and the classification
  ``getattr`` finds on each, its own or inherited;
* the checker's findings (:func:`hwlint.pipeline.check.check_paths`, parallel and cached);
* the selector's result for every runner of the taxonomy (:func:`hwlint.select.replay.select_model`),
  which says which classes each runner collects and runs.

From these it derives, per directory and in total, how many test classes and test methods are
classified, and which test classes *no runner ever runs*: unclassified ones (every
classification-filtered run drops them silently), ones whose classification is unknown or
unreadable, and classified ones that no runner collects (an instantiation filtered out for the
device, a name replaced by a generated class, no runner running the classification).

Counts of "test methods" are the ``test*`` methods written in a class body. A runner's counts are
the classes and methods it collects (a subclass collects its bases' tests too; a generated class
counts once per device), before ``@dtypes`` and ``@parametrize`` multiply them.

Each file is reduced once to a :class:`FileSummary`, on as many processes as the checker uses and
kept in the checker's cache under its own kind, so a second report over an unchanged tree reads
no file. :meth:`Report.to_json` is the ``hwlint-report/1`` contract: renderers and ``--compare``
read only it.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .. import __version__
from ..collection import tests_run_elsewhere
from ..edits import Applicability
from ..model import ClassInfo, FileModel, ParseError, effective_declaration, mro
from ..model.source import MAX_FILE_BYTES, read_source
from ..pipeline.cache import Cache, decoder, encode
from ..pipeline.check import CHECK_KIND
from ..pipeline.config import Config, Configs, discover
from ..pipeline.engine import keep_model
from ..pipeline.session import RunOptions, Session
from ..project import Links, links_of
from ..roots import Trees
from ..rules.check import Finding, Selection, check_path, run_rules, unreadable
from ..rules.registry import RULES
from ..select.records import FileSelection, RunnerSelection
from ..select.replay import selection_at, slim_selection
from ..select.runners import apply_links, select_runners
from ..taxonomy import Runner, Taxonomy

SCHEMA = "hwlint-report/1"
CLASSIFIED, UNCLASSIFIED, UNKNOWN, UNRESOLVABLE = "classified", "unclassified", "unknown", "unresolvable"
STATUSES = (CLASSIFIED, UNCLASSIFIED, UNKNOWN, UNRESOLVABLE)


class ReportError(Exception):
    """A report that cannot be made (a --compare file that is not a report, for instance)."""


@dataclass
class ClassRow:
    """One test class written in a file (a class whose own body defines ``test*`` methods)."""

    path: str
    name: str
    line: int
    tests: int  # test methods written in its body
    status: str  # classified | unclassified | unknown | unresolvable
    classification: str | None  # the member in effect (also for an unknown one)
    runners: list[str] = field(default_factory=list)  # runners that run its tests
    never_run: str | None = None  # why no runner runs it, when none does
    hardcoded_device: bool = False  # an every-device (ACCELERATOR) class that hard-codes a device (HWC301)
    generalizable: bool = False  # a one-accelerator class that could run on every device (HWC302's fix)

    def to_json(self) -> dict:
        return {
            "path": _posix(self.path),
            "line": self.line,
            "name": self.name,
            "tests": self.tests,
            "status": self.status,
            "classification": self.classification,
            "runners": list(self.runners),
            "never_run": self.never_run,
            "hardcoded_device": self.hardcoded_device,
            "generalizable": self.generalizable,
        }


@dataclass
class Stats:
    """Counts over a set of files: one directory (with everything below it) or the whole report."""

    classifications: tuple[str, ...]
    files: int = 0
    unparsable_files: int = 0
    classes: int = 0
    tests: int = 0
    by_classification: Counter = field(default_factory=Counter)
    unclassified: int = 0
    unknown: int = 0
    unresolvable: int = 0
    never_run_classes: int = 0
    never_run_tests: int = 0
    # the vendor's view: how much more of the suite could run on every accelerator
    hardcoded_device_classes: int = 0
    generalizable_classes: int = 0
    findings: Counter = field(default_factory=Counter)

    @property
    def classified(self) -> int:
        return sum(self.by_classification.values())

    @property
    def classified_percent(self) -> float | None:
        """Classified classes in percent, one decimal; None when there are no test classes."""
        return round(100 * self.classified / self.classes, 1) if self.classes else None

    def add_file(self, summary: FileSummary, findings: Sequence[Finding]) -> None:
        self.files += 1
        self.unparsable_files += summary.unparsable
        for row in summary.rows:
            self.classes += 1
            self.tests += row.tests
            if row.status == CLASSIFIED:
                self.by_classification[row.classification] += 1
            elif row.status == UNCLASSIFIED:
                self.unclassified += 1
            elif row.status == UNKNOWN:
                self.unknown += 1
            else:
                self.unresolvable += 1
            if row.never_run is not None:
                self.never_run_classes += 1
                self.never_run_tests += row.tests
            self.hardcoded_device_classes += row.hardcoded_device
            self.generalizable_classes += row.generalizable
        self.findings.update(f.code for f in findings)

    def to_json(self) -> dict:
        return {
            "files": self.files,
            "unparsable_files": self.unparsable_files,
            "classes": self.classes,
            "tests": self.tests,
            "classified": self.classified,
            "classified_percent": self.classified_percent,
            "by_classification": {c: self.by_classification.get(c, 0) for c in self.classifications},
            "unclassified": self.unclassified,
            "unknown": self.unknown,
            "unresolvable": self.unresolvable,
            "never_run_classes": self.never_run_classes,
            "never_run_tests": self.never_run_tests,
            "hardcoded_device_classes": self.hardcoded_device_classes,
            "generalizable_classes": self.generalizable_classes,
            "findings": dict(sorted(self.findings.items())),
            "findings_total": sum(self.findings.values()),
        }


@dataclass
class RunnerTally:
    """What one runner collects and runs, in one file or summed over many."""

    counts: Counter = field(default_factory=Counter)  # RunnerSelection.counts(): classes by status
    classes: Counter = field(default_factory=Counter)  # selected classes by classification
    tests: Counter = field(default_factory=Counter)  # their test methods by classification
    files: int = 0  # files with at least one selected class

    def add(self, other: RunnerTally) -> None:
        self.counts.update(other.counts)
        self.classes.update(other.classes)
        self.tests.update(other.tests)
        self.files += other.files


@dataclass
class FileSummary:
    """All the report needs from one file: computed once per content, cached and shipped between
    processes as the checker's findings are."""

    path: str
    unparsable: bool
    rows: list[ClassRow]
    runners: dict[str, RunnerTally]  # by runner name


@dataclass
class RunnerRow:
    """What one runner of the taxonomy collects and runs over the whole report."""

    runner: Runner
    tally: RunnerTally = field(default_factory=RunnerTally)

    def to_json(self) -> dict:
        order = list(self.runner.runs)
        t = self.tally
        return {
            "name": self.runner.name,
            "device": self.runner.device,
            "runs": order,
            "classes": sum(t.classes.values()),
            "tests": sum(t.tests.values()),
            "files": t.files,
            "classes_by_classification": {c: t.classes.get(c, 0) for c in order},
            "tests_by_classification": {c: t.tests.get(c, 0) for c in order},
            "collected": t.counts["total"],
            "mismatched": t.counts["mismatched"],
            "unclassified": t.counts["unclassified"],
            "unplaced": t.counts["unplaced"],
            "not_generated": t.counts["not_generated"],
        }


@dataclass
class Report:
    root: str
    depth: int | None
    taxonomy: Taxonomy
    total: Stats
    directories: list[tuple[str, int, Stats]]  # (path, depth below the root, stats), tree order
    runners: list[RunnerRow]
    classes: list[ClassRow]
    findings: list[Finding]
    compare: dict | None = None  # see compare(): what changed since an earlier report
    warnings: list[str] = field(default_factory=list)  # printed on stderr, not part of the report

    @property
    def never_run(self) -> list[ClassRow]:
        return [c for c in self.classes if c.never_run is not None]

    def needs_person(self) -> list[dict]:
        """Each finding but advice, with what is left to do: ``{"path", "line", "col", "code",
        "message", "reason"}``. The reason of a finding without a fix is its fix's own (why there is
        none), else what its rule says a person does; a fixable one names the command that fixes it
        (on a tree ``--fix --unsafe-fixes`` ran on, such a fix is one the fixer refused)."""
        out = []
        for f in self.findings:
            rule = RULES.get(f.code)
            if rule is None or rule.severity == "advice":
                continue
            if f.fix is not None and f.fix.applicable:
                flags = "--fix" if f.fix.applicability == Applicability.SAFE else "--fix --unsafe-fixes"
                reason = f"`hwlint check {flags}` fixes it ({f.fix.message}), unless it refuses: then by hand"
            elif f.fix is not None and f.fix.reason:
                reason = f.fix.reason
            else:
                reason = rule.manual or rule.summary
            out.append(
                {
                    "path": _posix(f.path),
                    "line": f.line,
                    "col": f.col + 1,
                    "code": f.code,
                    "message": f.message,
                    "reason": reason,
                }
            )
        return out

    def to_json(self) -> dict:
        """The ``hwlint-report/1`` document: stable keys, paths with forward slashes."""
        return {
            "schema": SCHEMA,
            "hwlint_version": __version__,
            "taxonomy": {
                "digest": self.taxonomy.digest,
                "classifications": list(self.taxonomy.classifications),
            },
            "root": _posix(self.root),
            "depth": self.depth,
            "total": self.total.to_json(),
            "directories": [
                {"path": _posix(path), "depth": depth, **stats.to_json()}
                for path, depth, stats in self.directories
            ],
            "runners": [r.to_json() for r in self.runners],
            "classes": [c.to_json() for c in self.classes],
            "never_run": [c.to_json() for c in self.never_run],
            "findings": [
                {
                    "path": _posix(f.path),
                    "line": f.line,
                    "col": f.col + 1,
                    "code": f.code,
                    "message": f.message,
                }
                for f in self.findings
            ],
            "compare": self.compare,
        }


# ---------------------------------------------------------------------------------------------
# Building the report


def report_paths(
    paths: Sequence[str],
    taxonomy: Taxonomy,
    config: Config | Configs,
    depth: int | None = None,
    options: RunOptions | None = None,
    skipped: list | None = None,
) -> Report:
    """The report over every test file under *paths*, with each file's configuration (*config*: one
    for every file, or the :class:`~hwlint.pipeline.config.Configs` of the run) for discovery and
    code selection, and *taxonomy* for every file: a report has one set of classifications and
    runners. Files whose configuration names another taxonomy are counted with *taxonomy*, and
    the report's ``warnings`` say so.

    Paths discovery cannot take are appended to *skipped* (see :func:`hwlint.pipeline.config.discover`)."""
    configs = config if isinstance(config, Configs) else None
    files = list(discover(paths, config, skipped=skipped))

    def config_of(path: str) -> Config:
        return configs.for_path(path) if configs is not None else config  # type: ignore[return-value]

    primary = configs.primary if configs is not None else config
    session = Session.from_config(
        primary, options or RunOptions(no_cache=True), taxonomy, configs, paths=paths
    )
    per_file, summaries = analyze_report(files, session)
    findings = []
    others: dict[str, int] = {}
    for path, found in zip(files, per_file, strict=True):
        cfg = config_of(path)
        if cfg.taxonomy != primary.taxonomy:
            others[cfg.taxonomy or "the bundled taxonomy"] = (
                others.get(cfg.taxonomy or "the bundled taxonomy", 0) + 1
            )
        sel = Selection(cfg.select, cfg.ignore).with_ignored(cfg.ignored_for(path))
        findings.append([f for f in found if sel.enabled(f.code)])
    report = build_report(summaries, findings, taxonomy, report_root(paths), depth)
    report.warnings = session.notices + [
        f"{n} file{'s' if n != 1 else ''} follow a configuration naming {name}; the report counts "
        f"{'them' if n != 1 else 'it'} with {taxonomy.path or 'the bundled taxonomy'}"
        for name, n in others.items()
    ]
    return report


#: One file's share of the report: its findings, its summary, its links, and its selections for
#: every runner, still encoded (``{"selections": ...}``, or ``{"error": reason}`` for a file that
#: cannot be read). The selections are large and only the files that import test classes from
#: each other need them: a warm report decodes just those (:class:`_Selections`).
_Value = tuple[list[Finding], FileSummary, Links | None, dict]
#: A linked file's share, made again with the project's resolver (its links are unchanged).
_Linked = tuple[list[Finding], FileSummary, dict[str, FileSelection]]


def analyze_report(files: Sequence[str], session: Session) -> tuple[list[list[Finding]], list[FileSummary]]:
    """Every finding (all codes) and the summary of each of *files*, in the same order, from one
    engine task per file: each file is parsed once and its one model yields the findings, the
    selections of every runner and the class rows; a warm cache answers all three.

    Then the cross-file phase (:meth:`hwlint.pipeline.session.Session.link`, shared with ``hwlint
    check`` and hwselect) checks and summarizes again the files that borrow from another scanned module, and
    each file's runner tallies are those of hwselect's selection, imported test classes included."""
    try:
        values = session.analyze(
            files, _report_analysis, "report", _Value, progress=False, also=_check_value, keep=True
        )
        return _linked_report(files, values, session)
    finally:
        session.held.close()  # whatever the cross-file phase did not take


def _linked_report(
    files: Sequence[str], values: list[_Value], session: Session
) -> tuple[list[list[Finding]], list[FileSummary]]:
    """The second phase of :func:`analyze_report`, over the first one's values per file."""
    taxonomy = session.taxonomy
    findings = [
        [f if f.path == path else replace(f, path=path) for f in found]
        for path, (found, _, _, _) in zip(files, values, strict=True)
    ]
    summaries = [_at(summary, path) for path, (_, summary, _, _) in zip(files, values, strict=True)]
    links = {path: replace(lk, path=path) for path, (_, _, lk, _) in zip(files, values, strict=True) if lk}
    selected = _Selections(files, values, taxonomy, session.trees)
    if links:
        names = tuple(taxonomy.runners)

        def report_linked(models: dict[str, FileModel]) -> dict[str, _Linked]:
            out = {}
            for path, model in models.items():
                selections = select_runners(model, taxonomy, names, slim=False)
                summary = summarize_model(model, taxonomy, selections)
                slim = {name: slim_selection(fs) for name, fs in selections.items()}
                out[path] = (run_rules(model, taxonomy), summary, slim)
            return out

        project, linked = session.linked(files, links, "report-linked", report_linked, _Linked)
        index = {path: i for i, path in enumerate(files)}
        for path, (found, summary, _) in linked.items():
            findings[index[path]] = [f if f.path == path else replace(f, path=path) for f in found]
            summaries[index[path]] = _at(summary, path)
        reselected = {path: value[2] for path, value in linked.items()}
        apply_links(files, selected, project, reselected, links)
    for i in selected.changed:  # the others' tallies are their summaries' own
        value = selected[i]
        if not isinstance(value, str):
            runners = taxonomy.runners.values()
            summaries[i].runners = {r.name: _tally(r, value[0][r.name]) for r in runners}
    return findings, summaries


class _Selections:
    """Each file's (selections by runner, links), or why it cannot be read, as
    :func:`hwlint.select.runners.apply_links` reads and replaces them: decoded on first use."""

    def __init__(self, files: Sequence[str], values: Sequence[_Value], taxonomy: Taxonomy, trees: Trees):
        self.files, self.values, self.taxonomy, self.trees = files, values, taxonomy, trees
        self.decoded: dict[int, tuple[dict[str, FileSelection], Links | None] | str] = {}
        self.changed: set[int] = set()

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, i: int):
        if i not in self.decoded:
            self.decoded[i] = self._decode(i)
        return self.decoded[i]

    def __setitem__(self, i: int, value) -> None:
        self.decoded[i] = value
        self.changed.add(i)

    def _decode(self, i: int):
        path, (_, _, lk, raw) = self.files[i], self.values[i]
        if "error" in raw:
            return str(raw["error"])
        try:
            by_runner = decoder(dict[str, FileSelection])(raw.get("selections"))
        except Exception:  # an entry of another shape (the cache trusts nothing): select again
            data = read_source(path, trees=self.trees)
            if isinstance(data, str):
                return data
            context = check_path(path, data, self.taxonomy)[1]
            if context is None:
                return "internal error"
            by_runner = select_runners(context.model, self.taxonomy, tuple(self.taxonomy.runners))
        by_runner = {name: selection_at(fs, path) for name, fs in by_runner.items()}
        return by_runner, replace(lk, path=path) if lk else None


def _check_value(value: _Value) -> list[tuple[str, tuple[list[Finding], Links | None]]]:
    """The check's value of a file (its findings and links, as ``hwlint check`` caches them) that a
    report's value holds: a check after a report finds every file the report read warm."""
    findings, _, links, _ = value
    return [(CHECK_KIND, (findings, links))]


def _report_analysis(path: str, data: bytes | str, taxonomy: Taxonomy) -> _Value:
    if isinstance(data, str):  # an unreadable file is an unparsable one, never an error
        return unreadable(path, data), _summary_analysis(path, data, taxonomy), None, {"error": data}
    findings, context = check_path(path, data, taxonomy)
    model = context.model if context is not None else None
    keep_model(model)  # the cross-file phase's, as a check's
    if model is None:  # building the model failed (HWC900): nothing else can be said
        summary = _summary_analysis(path, "internal error", taxonomy)
        return findings, summary, None, {"error": "internal error"}
    selections = select_runners(model, taxonomy, tuple(taxonomy.runners), slim=False)
    summary = summarize_model(model, taxonomy, selections)
    slim = encode({name: slim_selection(fs) for name, fs in selections.items()})
    return findings, summary, links_of(model) if model.error is None else None, {"selections": slim}


def report_root(paths: Sequence[str]) -> str:
    """The directory the report's tree starts at: the deepest one holding every given path."""
    dirs = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths or ["."]]
    root = os.path.commonpath(dirs)
    rel = os.path.relpath(root)
    return root if rel.startswith("..") else rel


def build_report(
    summaries: Sequence[FileSummary],
    findings: Sequence[Sequence[Finding]],
    taxonomy: Taxonomy,
    root: str = ".",
    depth: int | None = None,
) -> Report:
    """The report from each file's summary and findings (two lists in the same order)."""
    names = tuple(taxonomy.classifications)
    total = Stats(names)
    dirs: dict[str, Stats] = {}
    runners = [RunnerRow(r) for r in taxonomy.runners.values()]
    for summary, found in zip(summaries, findings, strict=True):
        _device_flags(summary, found)
        total.add_file(summary, found)
        for d in _ancestors(summary.path, root):
            dirs.setdefault(d, Stats(names)).add_file(summary, found)
        for row in runners:
            row.tally.add(summary.runners[row.runner.name])
    directories = [
        (d, _depth(d, root), stats)
        for d, stats in sorted(dirs.items(), key=lambda kv: _tree_key(kv[0], root))
        if depth is None or _depth(d, root) <= depth
    ]
    every_finding = sorted((f for found in findings for f in found), key=Finding.sort_key)
    classes = [row for summary in summaries for row in summary.rows]
    return Report(root, depth, taxonomy, total, directories, runners, classes, every_finding)


def _device_flags(summary: FileSummary, findings: Sequence[Finding]) -> None:
    """Each class row's ``hardcoded_device`` and ``generalizable``, from the file's findings: a
    class with an HWC301 finding hard-codes a device; one whose HWC302 finding has a fix can be
    made device-generic. The findings are those the report lists (the project's, as ``hwlint
    check`` reports them, selection and noqa applied): one source for the class counts and the
    finding counts beside them."""
    from ..pipeline.baseline import finding_class

    hard = {finding_class(f) for f in findings if f.code == "HWC301"}
    convertible = {finding_class(f) for f in findings if f.code == "HWC302" and f.fixable}
    for row in summary.rows:
        row.hardcoded_device = row.name in hard
        row.generalizable = row.name in convertible


# -- one file ---------------------------------------------------------------------------------


def summarize_model(
    model: FileModel, taxonomy: Taxonomy, selections: dict[str, FileSelection] | None = None
) -> FileSummary:
    """Each test class of *model* with its status and runners, and what each runner does with the
    file; *selections*: the file's (unslimmed) selection by runner, when already made."""
    if selections is None:
        selections = select_runners(model, taxonomy, tuple(taxonomy.runners), slim=False)
    per_runner = [(runner, selections[runner.name]) for runner in taxonomy.runners.values()]
    named = [(runner.name, fs) for runner, fs in per_runner]
    runs = _runs(model, named)
    rows = [_class_row(model, cls, taxonomy, runs, named) for cls in model.test_classes]
    tallies = {runner.name: _tally(runner, fs) for runner, fs in per_runner}
    return FileSummary(model.path, model.error is not None, rows, tallies)


def _runs(model: FileModel, per_runner: Sequence[tuple[str, FileSelection]]) -> dict[int, list[str]]:
    """Names of the runners that run each class's tests (keyed by id): a selected class and its
    bases in the file, since a collected class runs the test methods it inherits."""
    out: dict[int, list[str]] = {}
    for name, fs in per_runner:
        for cand in fs.selected:
            if cand.source is None:
                continue
            for cls in mro(model, cand.source):
                names = out.setdefault(id(cls), [])
                if name not in names:
                    names.append(name)
    return out


def _class_row(
    model: FileModel,
    cls: ClassInfo,
    taxonomy: Taxonomy,
    runs: dict[int, list[str]],
    per_runner: Sequence[tuple[str, FileSelection]],
) -> ClassRow:
    status, member, value = _status(model, cls, taxonomy)
    row = ClassRow(model.path, cls.name, cls.site.line, len(cls.test_methods), status, member)
    row.runners = runs.get(id(cls), [])
    if not row.runners and not tests_run_elsewhere(model, cls):
        row.never_run = _never_run(model, cls, taxonomy, status, member, value, per_runner)
    return row


def _status(model: FileModel, cls: ClassInfo, taxonomy: Taxonomy) -> tuple[str, str | None, str]:
    """(status, member, source text of the value) of the classification ``getattr`` finds."""
    found = effective_declaration(model, cls)
    if found is None:
        return UNCLASSIFIED, None, ""
    decl = found[0]
    if decl.member is None:
        return UNRESOLVABLE, None, decl.site.text
    if decl.member not in taxonomy.classifications:
        return UNKNOWN, decl.member, decl.site.text
    return CLASSIFIED, decl.member, decl.site.text


def _never_run(
    model: FileModel,
    cls: ClassInfo,
    taxonomy: Taxonomy,
    status: str,
    member: str | None,
    value: str,
    per_runner: Sequence[tuple[str, FileSelection]],
) -> str:
    """Why no runner runs *cls*, in one line."""
    if status == UNCLASSIFIED:
        if model.exempts("HWC001"):
            return (
                "unclassified, in a file exempt from linting (`# hwlint: noqa`), "
                "which hwlint neither checks nor fixes: every classification-filtered run drops it"
            )
        return "unclassified: every classification-filtered run drops it"
    if status == UNKNOWN:
        return f"{member} is not a classification in the taxonomy"
    if status == UNRESOLVABLE:
        return f"{taxonomy.attribute} = {value} cannot be read statically"
    last = model.class_named(cls.name)
    if last is not None and last is not cls:
        return f"redefined at line {last.site.line}, which replaces it"
    runners = [(name, fs) for name, fs in per_runner if member in taxonomy.runners[name].runs]
    if not runners:
        return f"no runner runs {member}"
    why: dict[str, list[str]] = {}
    for name, fs in runners:
        why.setdefault(_not_collected(model, cls, fs), []).append(name)
    return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in why.items())


def _not_collected(model: FileModel, cls: ClassInfo, fs: FileSelection) -> str:
    """Why a runner that runs *cls*'s classification does not collect it, in the selector's words."""
    for ng in fs.not_generated:
        if ng.generic == cls.name and model.class_named(cls.name, ng.call.site.line) is cls:
            return f"not generated, {ng.reason}"
    for cand in fs.candidates:
        if cand.generic and cls.name in cand.names and cand.source is not cls:
            assert cand.call is not None
            return f"replaced by the class {cand.generic} generates (line {cand.call.site.line})"
    # what is left: a class pytest does not collect at all (see hwlint.collection.collectable)
    return "not collected: its name does not start with Test and no base can be a TestCase"


def _tally(runner: Runner, fs: FileSelection) -> RunnerTally:
    tally = RunnerTally(
        Counter(RunnerSelection(runner, (), False, [fs]).counts()), files=int(bool(fs.selected))
    )
    for cand in fs.selected:
        tally.classes[cand.classification] += 1
        # a PrivateUse1 class lists its methods once per possible name: count them once
        tally.tests[cand.classification] += len(cand.methods) // len(cand.names)
    return tally


# -- many files: in parallel, cached ----------------------------------------------------------


def summarize_paths(
    files: Sequence[str],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> list[FileSummary]:
    """The summary of each of *files*, in the same order: on *jobs* processes, and read from *cache*
    for files whose content it has seen (the one pass of :func:`analyze_report`)."""
    options = RunOptions(jobs, no_cache=cache is None, cache=cache, max_bytes=max_bytes)
    return analyze_report(files, Session.from_config(Config(), options, taxonomy))[1]


def _summary_analysis(path: str, data: bytes | str, taxonomy: Taxonomy) -> FileSummary:
    if isinstance(data, str):  # an unreadable file is an unparsable one, never an error
        return summarize_model(FileModel(path, error=ParseError(1, 0, data)), taxonomy)
    return _report_analysis(path, data, taxonomy)[1]


def _at(summary: FileSummary, path: str) -> FileSummary:
    """A cached summary under the path it is asked for now (the cache is keyed by absolute path)."""
    if summary.path == path:
        return summary
    rows = [replace(r, path=path) for r in summary.rows]
    return replace(summary, path=path, rows=rows)


# ---------------------------------------------------------------------------------------------
# Comparing with an earlier report


# -- directories ------------------------------------------------------------------------------


def _ancestors(path: str, root: str) -> list[str]:
    """The directories from *root* down to *path*'s own, as display paths."""
    rel = os.path.relpath(os.path.dirname(os.path.abspath(path)), os.path.abspath(root))
    parts = [] if rel == "." else rel.split(os.sep)
    return [os.path.normpath(os.path.join(root, *parts[:i])) for i in range(len(parts) + 1)]


def _depth(directory: str, root: str) -> int:
    rel = os.path.relpath(directory, root)
    return 0 if rel == "." else rel.count(os.sep) + 1


def _tree_key(directory: str, root: str) -> tuple[str, ...]:
    rel = os.path.relpath(directory, root)
    return () if rel == "." else tuple(rel.split(os.sep))


def _posix(path: str) -> str:
    return path.replace(os.sep, "/")


# -- reading an earlier report -----------------------------------------------------------------
