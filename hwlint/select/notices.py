"""hwselect's warnings, by kind: one line per kind by default, every line with ``--verbose``.

Each warning is a :class:`Notice`: its :class:`Kind`, made where the fact is found, and one sentence
naming a class or a file (``PATH[::Class]: what``). A CI log needs to know that there are 31 imports
of test classes from files outside the scan, and one of them; the 31 lines are for ``--verbose``
and ``--format json``. The JSON contract, the folding by kind and the exit codes read the kind,
never the words (pytest's ``warning_types``: every warning has a class).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


class Kind(enum.Enum):
    """What a notice is about; its value is the JSON contract's ``kind``."""

    UNREADABLE = "unreadable"
    UNPARSABLE = "unparsable"
    SKIPPED = "skipped"
    NOT_FOLLOWED = "not-followed"
    PRIVATEUSE1_BACKEND = "privateuse1-backend"
    OUTSIDE_IMPORT = "outside-import"
    UNRESOLVED_SELECTED = "unresolved-selected"
    UNRESOLVED_UNSELECTED = "unresolved-unselected"
    UNPLACED = "unplaced"
    REPLACED = "replaced"
    CLASS_DECORATOR = "class-decorator"
    HIDDEN_TESTS = "hidden-tests"
    SETATTR = "setattr"
    UNCERTAIN_CLASSIFICATION = "uncertain-classification"
    DYNAMIC = "dynamic"
    UNSEEN_CLASS = "unseen-class"
    LISTED_WHOLE = "listed-whole"
    ARGSFILE_PLUGIN = "argsfile-plugin"  # that the node ids end with the pytest plugin's options

    @property
    def key(self) -> str:
        return self.value

    @property
    def one(self) -> str:
        """The description of one notice of this kind."""
        return WORDS[self][0]

    @property
    def many(self) -> str:
        """The description of several."""
        return WORDS[self][1]


#: kind -> (one, many): how ``hwselect`` counts the notices of a kind on one line.
WORDS: dict[Kind, tuple[str, str]] = {
    Kind.UNREADABLE: ("file hwselect cannot read", "files hwselect cannot read"),
    Kind.UNPARSABLE: ("file that does not parse", "files that do not parse"),
    Kind.SKIPPED: ("path discovery skipped", "paths discovery skipped"),
    Kind.NOT_FOLLOWED: (
        "directory pytest collects test files from that hwlint does not check",
        "directories pytest collects test files from that hwlint does not check",
    ),
    Kind.PRIVATEUSE1_BACKEND: (
        "PrivateUse1 runner without a backend name",
        "PrivateUse1 runners without a backend name",
    ),
    Kind.OUTSIDE_IMPORT: (
        "class imported from a file outside the scan",
        "classes imported from files outside the scan",
    ),
    Kind.UNRESOLVED_SELECTED: (
        "class selected in case an argument hwlint cannot resolve generates it",
        "classes selected in case an argument hwlint cannot resolve generates them",
    ),
    Kind.UNRESOLVED_UNSELECTED: (
        "class with an only_for/except_for hwlint cannot resolve, not selected either way",
        "classes with an only_for/except_for hwlint cannot resolve, not selected either way",
    ),
    Kind.UNPLACED: (
        "class whose classification hwlint cannot read (not selected)",
        "classes whose classification hwlint cannot read (not selected)",
    ),
    Kind.REPLACED: (
        "hand-written class replaced by a generated class of the same name",
        "hand-written classes replaced by a generated class of the same name",
    ),
    Kind.CLASS_DECORATOR: (
        "class whose tests may come from a class decorator hwlint does not know (addressed through its file)",
        "classes whose tests may come from a class decorator hwlint does not know (addressed through "
        "their files)",
    ),
    Kind.HIDDEN_TESTS: (
        "Test* class whose tests may come from a base outside the scan (not selected)",
        "Test* classes whose tests may come from a base outside the scan (not selected)",
    ),
    Kind.SETATTR: (
        "setattr() on a test class (tests added this way are not counted)",
        "setattr() calls on test classes (tests added this way are not counted)",
    ),
    Kind.UNCERTAIN_CLASSIFICATION: (
        "class whose classification the runtime may read otherwise (addressed through its file)",
        "classes whose classification the runtime may read otherwise (addressed through their files)",
    ),
    Kind.DYNAMIC: (
        "place where a module creates test classes at run time (not selected)",
        "places where a module creates test classes at run time (not selected)",
    ),
    Kind.UNSEEN_CLASS: (
        "class pytest collects under a name code binds at run time or imports from a helper "
        "(selected in case: its file is listed, the runtime's filter decides)",
        "classes pytest collects under names code binds at run time or imports from helpers "
        "(selected in case: their files are listed, the runtime's filter decides)",
    ),
    Kind.LISTED_WHOLE: (
        "class addressed through its file (no certain node id; `hwselect explain` says why)",
        "classes addressed through their files (no certain node id; `hwselect explain` says why)",
    ),
    Kind.ARGSFILE_PLUGIN: (
        "selection that ends with `--hw-runner` (hwlint's pytest plugin: your -k, -m, --deselect compose)",
        "selections that end with `--hw-runner` (hwlint's pytest plugin: your -k, -m, --deselect compose)",
    ),
}


@dataclass(frozen=True)
class Notice:
    """One warning of a selection: its kind, what it is about (a file, or a class's node id;
    empty for the run as a whole), the sentence, and the line when the finder knows it."""

    kind: Kind
    where: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message

    @property
    def path(self) -> str:
        """The file the notice is about ('' for the run as a whole)."""
        return self.where.partition("::")[0]


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 class``, ``2 classes``: *n* and the noun that agrees with it."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


@dataclass(frozen=True)
class Group:
    kind: Kind
    warnings: tuple[Notice, ...]

    @property
    def count(self) -> int:
        return len(self.warnings)

    def line(self, limit: int = 160) -> str:
        """The group in one line: the warning itself when it is alone, else the count and one."""
        if self.count == 1:
            return f"hwselect: warning: {self.warnings[0]}"
        example = str(self.warnings[0])
        if len(example) > limit:
            example = example[: limit - 3] + "..."
        return f"hwselect: {plural(self.count, self.kind.one, self.kind.many)}, e.g. {example}; see --verbose"

    def as_json(self) -> dict:
        return {
            "kind": self.kind.key,
            "count": self.count,
            "description": self.kind.one if self.count == 1 else self.kind.many,
            "example": str(self.warnings[0]),
        }


def group(warnings: Iterable[Notice]) -> list[Group]:
    """*warnings* by kind, kinds in first-seen order, each kind's warnings in their order."""
    found: dict[Kind, list[Notice]] = {}
    for w in _once(warnings):
        found.setdefault(w.kind, []).append(w)
    return [Group(k, tuple(ws)) for k, ws in found.items()]


def _once(warnings: Iterable[Notice]) -> list[Notice]:
    """*warnings* less repeats: the same sentence twice is one warning."""
    seen: dict[str, Notice] = {}
    for w in warnings:
        seen.setdefault(str(w), w)
    return list(seen.values())


def report_lines(warnings: Sequence[Notice], verbose: bool, quiet: bool) -> list[str]:
    """The stderr lines for *warnings*: none when *quiet*, each when *verbose*, else one per kind."""
    if quiet:
        return []
    if verbose:
        return [f"hwselect: warning: {w}" for w in _once(warnings)]
    return [g.line() for g in group(warnings)]
