"""hwselect's warnings, by kind: one line per kind by default, every line with ``--verbose``.

Each warning is one sentence naming a class or a file (``PATH[::Class]: what``). A CI log needs
to know that there are 31 imports of test classes from files outside the scan, and one of them;
the 31 lines are for ``--verbose`` and ``--format json``. The kinds are told apart by what the
sentence says, in one table, so that a new warning without a kind shows up as "other" (a test
pins that every warning the test suites and PyTorch's tree produce has a kind).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    key: str
    pattern: re.Pattern[str]
    one: str  # "class imported from a file outside the scan"
    many: str  # "classes imported from files outside the scan"


def _kind(key: str, pattern: str, one: str, many: str) -> Kind:
    return Kind(key, re.compile(pattern), one, many)


#: In order: the first kind whose pattern the text matches (``re.search``) is the warning's.
KINDS: tuple[Kind, ...] = (
    _kind("unreadable", r": cannot read: ", "file hwselect cannot read", "files hwselect cannot read"),
    _kind("unparsable", r": cannot parse \(", "file that does not parse", "files that do not parse"),
    _kind(
        "skipped",
        r": not a regular file \(|: cannot list directory: ",
        "path discovery skipped",
        "paths discovery skipped",
    ),
    _kind(
        "not-followed",
        r": a directory symlink hwlint does not follow |: excluded by default \(",
        "directory pytest collects test files from that hwlint does not check",
        "directories pytest collects test files from that hwlint does not check",
    ),
    _kind(
        "privateuse1-backend",
        r"has no PrivateUse1 backend name",
        "PrivateUse1 runner without a backend name",
        "PrivateUse1 runners without a backend name",
    ),
    _kind(
        "outside-import",
        r"imports \S+ from \S+, which is not among the scanned files",
        "class imported from a file outside the scan",
        "classes imported from files outside the scan",
    ),
    _kind(
        "unresolved-selected",
        r"cannot be resolved statically; selected in case",
        "class selected in case an argument hwlint cannot resolve generates it",
        "classes selected in case an argument hwlint cannot resolve generates them",
    ),
    _kind(
        "unresolved-unselected",
        r"cannot be resolved statically; not selected",
        "class with an only_for/except_for hwlint cannot resolve, not selected either way",
        "classes with an only_for/except_for hwlint cannot resolve, not selected either way",
    ),
    _kind(
        "unplaced",
        r"is not a static enum member|is not a classification in the taxonomy|"
        r"depends on a run-time condition|so its classification is unknown here",
        "class whose classification hwlint cannot read (not selected)",
        "classes whose classification hwlint cannot read (not selected)",
    ),
    _kind(
        "replaced",
        r"replaces the hand-written class",
        "hand-written class replaced by a generated class of the same name",
        "hand-written classes replaced by a generated class of the same name",
    ),
    _kind(
        "class-decorator",
        r"class decorator @",
        "class whose tests may come from a class decorator hwlint does not know (addressed through its file)",
        "classes whose tests may come from a class decorator hwlint does not know (addressed through "
        "their files)",
    ),
    _kind(
        "hidden-tests",
        r"has no test hwlint can see, but its base",
        "Test* class whose tests may come from a base outside the scan (not selected)",
        "Test* classes whose tests may come from a base outside the scan (not selected)",
    ),
    _kind(
        "setattr",
        r"adds attributes to a class with setattr\(\)",
        "setattr() on a test class (tests added this way are not counted)",
        "setattr() calls on test classes (tests added this way are not counted)",
    ),
    _kind(
        "uncertain-classification",
        r"the classification the runtime reads may differ: ",
        "class whose classification the runtime may read otherwise (addressed through its file)",
        "classes whose classification the runtime may read otherwise (addressed through their files)",
    ),
    _kind(
        "dynamic",
        r"writes module globals at run time|runs exec\(\)|creates a class with type\(\)|"
        r"instantiates a class hwlint cannot see",
        "place where a module creates test classes at run time (not selected)",
        "places where a module creates test classes at run time (not selected)",
    ),
    _kind(
        "k-inexact",
        r"-k cannot single it out",
        "class -k cannot single out in a file listed whole (its file's other classes run too)",
        "classes -k cannot single out in files listed whole (their files' other classes run too)",
    ),
    _kind(
        "argsfile-k",
        r"a -k of your own after them replaces it",
        "selection that ends with its own -k (a later -k replaces it; `pytest --hw-runner` composes)",
        "selections that end with their own -k (a later -k replaces it; `pytest --hw-runner` composes)",
    ),
    _kind(
        "listed-whole",
        r": no certain node id: ",
        "class addressed through its file (no certain node id; `hwselect explain` says why)",
        "classes addressed through their files (no certain node id; `hwselect explain` says why)",
    ),
)
OTHER = Kind("other", re.compile(""), "other warning", "other warnings")


def kind_of(text: str) -> Kind:
    """The kind of the warning *text* (:data:`OTHER` when no pattern matches)."""
    return next((k for k in KINDS if k.pattern.search(text)), OTHER)


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 class``, ``2 classes``: *n* and the noun that agrees with it."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


@dataclass(frozen=True)
class Group:
    kind: Kind
    warnings: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.warnings)

    def line(self, limit: int = 160) -> str:
        """The group in one line: the warning itself when it is alone, else the count and one."""
        if self.count == 1:
            return f"hwselect: warning: {self.warnings[0]}"
        example = self.warnings[0]
        if len(example) > limit:
            example = example[: limit - 3] + "..."
        return f"hwselect: {plural(self.count, self.kind.one, self.kind.many)}, e.g. {example}; see --verbose"

    def as_json(self) -> dict:
        return {
            "kind": self.kind.key,
            "count": self.count,
            "description": self.kind.one if self.count == 1 else self.kind.many,
            "example": self.warnings[0],
        }


def group(warnings: Iterable[str]) -> list[Group]:
    """*warnings* by kind, kinds in first-seen order, each kind's warnings in their order."""
    found: dict[str, tuple[Kind, list[str]]] = {}
    for w in dict.fromkeys(warnings):  # the same sentence twice is one warning
        k = kind_of(w)
        found.setdefault(k.key, (k, []))[1].append(w)
    return [Group(k, tuple(ws)) for k, ws in found.values()]


def report_lines(warnings: Sequence[str], verbose: bool, quiet: bool) -> list[str]:
    """The stderr lines for *warnings*: none when *quiet*, each when *verbose*, else one per kind."""
    if quiet:
        return []
    if verbose:
        return [f"hwselect: warning: {w}" for w in dict.fromkeys(warnings)]
    return [g.line() for g in group(warnings)]
