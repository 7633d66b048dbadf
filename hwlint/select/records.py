"""What a selection says: the classes pytest collects from a module on a runner, each with what the
runtime's filter does with it (selected, mismatched, unclassified, unplaced), per file and per runner."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..model import ClassInfo, Instantiation
from ..taxonomy import Runner
from ..words import argument
from .notices import Kind, Notice, plural

SELECTED, MISMATCHED, UNCLASSIFIED, UNPLACED = "selected", "mismatched", "unclassified", "unplaced"


STATUSES = (SELECTED, MISMATCHED, UNCLASSIFIED, UNPLACED)


class SelectionError(Exception):
    """A request the selector cannot serve (unknown runner, for instance)."""


@dataclass(frozen=True)
class Note:
    """A fact the replay could not settle about a class or a file, in words, with the kind of the
    warning it makes (a :class:`~hwlint.select.notices.Kind`'s value, kept as such in the cache;
    None: a reason a node id is uncertain that makes no warning of its own)."""

    kind: str | None
    text: str

    def __str__(self) -> str:
        return self.text

    def notice(self, where: str, kind: Kind | None = None) -> Notice:
        """The warning this note makes about *where* (of *kind* when it has none of its own)."""
        return Notice(Kind(self.kind) if self.kind else kind or Kind.LISTED_WHOLE, where, self.text)


@dataclass(frozen=True)
class TestExpansion:
    """One test of a class as written (no device suffix) and the pytest items it expands into."""

    name: str
    items: int
    exact: bool  # every decorator that expands it was counted (one that is not counts 1)
    plain: bool  # no decorator expands it: its items are the class's collected names of it


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
    notes: tuple[Note, ...] = ()  # why the placement is uncertain, for stderr and explain
    # Its existence or name depends on a run-time fact: defined or generated in a block importing may
    # skip (if, except...), an unresolved filter, a base or decorator rebound at run time, a non-Test*
    # class not surely a TestCase, dynamic code in the module. ``unsure`` says which.
    conditional: bool = False
    tests: int = 0  # test methods pytest collects from the class (before parametrization)
    unsure: tuple[Note, ...] = ()
    # test items its tests expand into (@dtypes, @parametrize, @ops where countable); 0: not counted
    items: int = 0
    # its tests as the identity names them, without a device (:func:`hwlint.collection.test_key`):
    # one per literal ``@parametrize`` value, ``test_x*`` for variants not known statically
    neutral_tests: tuple[str, ...] = ()
    # its tests, in definition order: what the shard planner splits a class into
    # (:func:`hwlint.select.expansion.test_items`)
    test_items: tuple[TestExpansion, ...] = ()

    @property
    def name(self) -> str:
        return self.names[0]

    @property
    def neutral_name(self) -> str:
        """The class without a generated device suffix: the generic class, for a generated one."""
        return self.generic or self.name

    @property
    def nodeid(self) -> str:
        """``path::Class``; a path that starts with ``-`` or ``@`` gets ``./`` (a pytest argument)."""
        return f"{argument(self.path)}::{self.name}"

    @property
    def open_names(self) -> bool:
        """True when some of its tests expand into variants hwlint cannot count or name."""
        return any(n.endswith("*") for n in self.neutral_tests)

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
        """Test methods in the class, at least 1."""
        return max(self.tests, 1)

    @property
    def item_count(self) -> int:
        """Test items the class expands into, at least 1 (what a shard's estimate counts)."""
        return max(self.items, 1) if self.items else self.test_count

    @property
    def items_exact(self) -> bool:
        """True when :attr:`item_count` is what pytest collects: every test's expansion counted."""
        return bool(self.test_items) and all(t.exact for t in self.test_items)


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
    unseen: list[Note] = field(default_factory=list)

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
    warnings: list[Notice] = field(default_factory=list)

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
        files = plural(len(self.selected_files()), "file")
        items = sum(x.item_count for x in self.selected)
        if all(x.items_exact for x in self.selected):
            return line + f" classes; {plural(items, 'test item')} in {files}"
        # some expansions cannot be counted statically (each counts 1): an estimate
        methods = plural(c["tests"], "test method")
        return line + f" classes; about {plural(items, 'test item')} ({methods}) in {files}"

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
            verb = "generates" if n == 1 else "generate"
            # the reason's line number means nothing without its file
            where = f"{example.path}::{example.generic}"
            reasons.append(
                f"{plural(n, 'instantiated class', 'instantiated classes')} {verb} nothing for "
                f"{self.runner.device}: {where if n == 1 else 'e.g. ' + where}: {example.reason}"
            )
        if c["mismatched"]:
            seen = Counter(x.classification for x in self.candidates if x.status == MISMATCHED)
            listed = ", ".join(f"{k} ({v})" for k, v in sorted(seen.items()))
            verb = "is" if c["mismatched"] == 1 else "are"
            reasons.append(
                f"{plural(c['mismatched'], 'class', 'classes')} {verb} classified for other runners: "
                f"{listed}; {self.runner.name} runs {', '.join(self.runner.runs)}"
            )
        if c["unclassified"] and not self.include_unclassified:
            verb = "is" if c["unclassified"] == 1 else "are"
            reasons.append(
                f"{plural(c['unclassified'], 'class', 'classes')} {verb} unclassified "
                "(--include-unclassified selects them)"
            )
        if c["unplaced"]:
            verb = "has" if c["unplaced"] == 1 else "have"
            reasons.append(
                f"{plural(c['unplaced'], 'class', 'classes')} {verb} a classification hwlint cannot read"
            )
        return reasons
