"""What a change does to each runner: the tests that enter and leave its selection, and why.

Two trees (two revisions, or two directories) are selected for every runner as ``hwselect`` selects
them; their tests are compared by the identity of :mod:`hwlint.select.identity`, classes renamed
or moved with their tests are matched first, and each test that enters or leaves a runner gets
the cause found by comparing its class in the two trees (:data:`CAUSES`). The JSON document is a
contract: docs/hwselect-diff.md.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from .identity import (
    ClassRef,
    TestRef,
    class_tests,
    match_renames,
    match_test_renames,
    method_of,
    moved_key,
    rename_kind,
    selected_tests,
    split_key,
    test_suffix,
)
from .records import SELECTED, UNCLASSIFIED, Candidate, NotGenerated, RunnerSelection

FORMAT = "hwselect-diff/1"

#: Every cause, in the order reports list them, with what it says.
CAUSES = {
    "classified": "a class was classified",
    "reclassified": "a class was reclassified",
    "declassified": "a class lost its classification",
    "instantiation": "the instantiation arguments changed (only_for, except_for, opt-in, the call itself)",
    "base-changed": "the file is unchanged: a base class or an instantiation in another file changed",
    "file-added": "a file was added",
    "file-removed": "a file was removed",
    "file-unparsable": "the file cannot be parsed on the other side (none of its classes is selected there)",
    "class-added": "a class was added",
    "class-removed": "a class was removed",
    "test-added": "a test was added",
    "test-removed": "a test was removed",
    "parameters": "a test's @parametrize values changed",
    "class-renamed": "a class was renamed",
    "test-renamed": "a test was renamed in its class (its decorators and body alike)",
    "class-moved": "a class moved to another file",
    "file-renamed": "a file was renamed",
}


@dataclass
class Tree:
    """One side of a diff: every runner's selection of the tree, how its paths become the paths
    keys use, each file's content digest (by key path) and where the file lies under *root* (by key
    path: what a test's definition is read from, while the tree exists)."""

    selections: dict[str, RunnerSelection]
    rel: Callable[[str], str]
    digests: dict[str, str]
    label: str = ""
    root: str = ""
    files: dict[str, str] = field(default_factory=dict)

    def read(self, key_path: str) -> bytes | None:
        """The content of the file keys spell *key_path* (None: not in the tree, or unreadable)."""
        inner = self.files.get(key_path)
        if inner is None:
            return None
        try:
            with open(os.path.join(self.root, inner), "rb") as f:
                return f.read()
        except OSError:
            return None


@dataclass(frozen=True)
class Change:
    """A test that entered, left or was renamed on a runner."""

    key: str
    nodeid: str
    cause: str
    detail: str = ""
    old_key: str | None = None
    old_nodeid: str | None = None

    def as_json(self) -> dict:
        out = {"nodeid": self.nodeid, "key": self.key, "cause": self.cause, "detail": self.detail}
        if self.old_key is not None:
            out = {"old_nodeid": self.old_nodeid, "old_key": self.old_key, **out}
        return out


@dataclass
class RunnerDiff:
    runner: str
    device: str
    added: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    renamed: list[Change] = field(default_factory=list)
    before: int = 0  # tests selected in the base tree
    after: int = 0

    def by_cause(self) -> dict[str, dict[str, int]]:
        """{cause: {added, removed, renamed}} with the counts that are not zero."""
        out: dict[str, Counter] = {}
        for what in ("added", "removed", "renamed"):
            for c in getattr(self, what):
                out.setdefault(c.cause, Counter())[what] += 1
        return {k: dict(out[k]) for k in CAUSES if k in out}

    def as_json(self) -> dict:
        return {
            "runner": self.runner,
            "device": self.device,
            "counts": {
                "before": self.before,
                "after": self.after,
                "added": len(self.added),
                "removed": len(self.removed),
                "renamed": len(self.renamed),
                "by_cause": self.by_cause(),
            },
            "added": [c.as_json() for c in self.added],
            "removed": [c.as_json() for c in self.removed],
            "renamed": [c.as_json() for c in self.renamed],
        }


@dataclass
class Diff:
    base: str
    head: str
    runners: list[RunnerDiff]
    renames: list[tuple[ClassRef, ClassRef, str, float]]  # old, new, kind, similarity
    head_tests: dict[str, dict[str, TestRef]]  # per runner, what head selects (for expectations)
    test_renames: dict[str, str] = field(default_factory=dict)  # tests renamed in their class: old -> new

    @property
    def renamed_map(self) -> dict[ClassRef, tuple[ClassRef, float]]:
        """Each renamed class's new place and similarity, by its old place."""
        return {o: (n, s) for o, n, _, s in self.renames}

    def as_json(self) -> dict:
        return {
            "format": FORMAT,
            "base": self.base,
            "head": self.head,
            "renames": [
                {"old": f"{o[0]}::{o[1]}", "new": f"{n[0]}::{n[1]}", "cause": kind, "similarity": round(s, 3)}
                for o, n, kind, s in self.renames
            ],
            "runners": [r.as_json() for r in self.runners],
        }


def diff_trees(base: Tree, head: Tree) -> Diff:
    """The diff of every runner both trees were selected for (in head's order)."""
    before_classes = class_tests(base.selections.values(), base.rel)
    after_classes = class_tests(head.selections.values(), head.rel)
    renamed = match_renames(before_classes, after_classes)
    files_before, files_after = set(base.digests), set(head.digests)
    renames = [
        (old, new, rename_kind(old, new, files_before, files_after), score)
        for old, (new, score) in sorted(renamed.items())
    ]
    kinds = {old: kind for old, _, kind, _ in renames}
    tests_renamed = match_test_renames(before_classes, after_classes, renamed, base.read, head.read)
    out = Diff(base.label, head.label, [], renames, {}, tests_renamed)
    for name, after_sel in head.selections.items():
        before_sel = base.selections.get(name)
        if before_sel is None:
            continue
        side = _Sides(base, head, before_sel, after_sel, renamed, before_classes, after_classes)
        rd = RunnerDiff(name, after_sel.runner.device, before=len(side.before), after=len(side.after))
        moved_to = {}
        for key in side.before:
            new_key = tests_renamed.get(key) or moved_key(key, renamed)
            if new_key is not None:
                moved_to[key] = new_key
        arrived = set(moved_to.values())
        for key, t in side.before.items():
            new_key = moved_to.get(key)
            if new_key is not None and new_key in side.after:
                n = side.after[new_key]
                cause = "test-renamed" if key in tests_renamed else kinds[t.cls]
                rd.renamed.append(Change(new_key, n.nodeid, cause, "", key, t.nodeid))
            elif key not in side.after:
                rd.removed.append(Change(key, t.nodeid, *side.cause_left(t)))
        for key, t in side.after.items():
            if key in side.before or key in arrived:  # unchanged, or a renamed test's new key
                continue
            rd.added.append(Change(key, t.nodeid, *side.cause_entered(t)))
        out.runners.append(rd)
        out.head_tests[name] = side.after
    return out


class _Sides:
    """One runner's two selections, indexed for finding causes."""

    def __init__(self, base: Tree, head: Tree, before_sel, after_sel, renamed, before_classes, after_classes):
        self.base, self.head = base, head
        self.before = selected_tests(before_sel, base.rel)
        self.after = selected_tests(after_sel, head.rel)
        self.old_cls = _classes(before_sel, base.rel)
        self.new_cls = _classes(after_sel, head.rel)
        self.old_gen = _not_generated(before_sel, base.rel)
        self.new_gen = _not_generated(after_sel, head.rel)
        self.renamed = renamed
        self.old_errors = {base.rel(f.path): f.error for f in before_sel.files if f.error}
        self.new_errors = {head.rel(f.path): f.error for f in after_sel.files if f.error}
        self.back = {new: old for old, (new, _) in renamed.items()}
        self.before_classes, self.after_classes = before_classes, after_classes

    def cause_entered(self, t: TestRef) -> tuple[str, str]:
        old = self.back.get(t.cls, t.cls)
        if old[0] in self.old_errors:
            return "file-unparsable", self.old_errors[old[0]] or ""
        return self._cause(t, old, self.old_cls, self.old_gen, self.before_classes, self.base, entered=True)

    def cause_left(self, t: TestRef) -> tuple[str, str]:
        new = self.renamed[t.cls][0] if t.cls in self.renamed else t.cls
        if new[0] in self.new_errors:
            return "file-unparsable", self.new_errors[new[0]] or ""
        return self._cause(t, new, self.new_cls, self.new_gen, self.after_classes, self.head, entered=False)

    def _cause(self, t, other, classes, not_gen, all_classes, tree: Tree, entered: bool) -> tuple[str, str]:
        """Why *t* (selected on one side) is not selected on the other, where its class is *other*."""
        path = other[0]
        if path not in tree.digests:
            return ("file-added" if entered else "file-removed"), ""
        cand: Candidate | None = classes.get(other)
        if cand is not None:
            if cand.status == SELECTED:
                test = split_key(t.key)[2]
                method = method_of(test, _methods(t.candidate))
                if method is not None and test != method and method in _methods(cand):
                    return "parameters", f"@parametrize of {method}"
                return ("test-added" if entered else "test-removed"), ""
            return self._placement(t.candidate, cand, entered, path)
        gen: NotGenerated | None = not_gen.get(other)
        if gen is not None or other in all_classes:
            return "instantiation", gen.reason if gen is not None else "not collected on this runner"
        return ("class-added" if entered else "class-removed"), ""

    def _placement(self, mine: Candidate, theirs: Candidate, entered: bool, path: str) -> tuple[str, str]:
        was, now = (theirs, mine) if entered else (mine, theirs)
        detail = f"{_label(was)} -> {_label(now)}"
        if self.base.digests.get(path) == self.head.digests.get(path):
            holder = now.holder or was.holder
            return "base-changed", f"{detail} (from {holder})" if holder else detail
        if was.status == UNCLASSIFIED:
            return "classified", detail
        if now.status == UNCLASSIFIED:
            return "declassified", detail
        return "reclassified", detail


def _methods(c: Candidate) -> set[str]:
    """*c*'s test methods without the device suffix."""
    suffix = test_suffix(c)
    if suffix is None:
        return set(c.methods)
    return {m[: -len(suffix) - 1] if m.endswith(f"_{suffix}") else m for m in c.methods}


def _label(c: Candidate) -> str:
    return c.classification or c.status


def _classes(sel: RunnerSelection, rel) -> dict[ClassRef, Candidate]:
    out: dict[ClassRef, Candidate] = {}
    for c in sel.candidates:
        out.setdefault((rel(c.path), c.neutral_name), c)
    return out


def _not_generated(sel: RunnerSelection, rel) -> dict[ClassRef, NotGenerated]:
    return {(rel(n.path), n.generic): n for f in sel.files for n in f.not_generated}
