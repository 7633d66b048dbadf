"""A runner's tests by an identity that survives a change of device and of revision.

A selected class stands for its tests; each test is keyed ``path::Class::test`` with the class and
the test named without the device (:func:`hwlint.collection.test_key`), so one key names the same
test on a CPU, a CUDA and a PrivateUse1 runner, and in two revisions. A class renamed or moved to
another file with its tests intact is matched as git matches a renamed file: by similarity, here
of the tests' names (at least half of them shared), so a rename is reported as one and the keys
follow it. A test renamed in its class (the class kept or itself renamed) is matched the same way,
by the similarity of its decorators and body.
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..collection import test_key
from .records import Candidate, RunnerSelection

#: Two classes are one renamed class when at least this share of the larger one's tests is shared
#: (git's default rename similarity is 50% too).
RENAME_SIMILARITY = 0.5

#: A test gone from a class and a test new in it (or in the class it was renamed to) are one renamed
#: test when their decorators and bodies are at least this similar (by lines).
TEST_RENAME_SIMILARITY = 0.5

#: (path, class without its device suffix): a class across runners and revisions.
ClassRef = tuple[str, str]


@dataclass(frozen=True)
class TestRef:
    """One selected test: its key, the node id the runner collects (up to torch's dtype suffix;
    ``*`` where the variants are not known statically) and the class it comes from."""

    key: str
    nodeid: str
    cls: ClassRef
    candidate: Candidate


def split_key(key: str) -> tuple[str, str, str]:
    """(path, class, test) of a key ``path::Class::test``."""
    path, _, rest = key.partition("::")
    cls, _, test = rest.partition("::")
    return path, cls, test


def test_suffix(c: Candidate) -> str | None:
    """The device spelling instantiation appends to the tests of generated class *c* (None: not
    generated). A ``...PRIVATEUSE1`` class's tests carry the backend's name when it has one."""
    if not c.generic:
        return None
    for name in reversed(c.names):  # the backend's spelling comes after PRIVATEUSE1
        if name.startswith(c.generic) and len(name) > len(c.generic):
            return name[len(c.generic) :].lower()
    return None


def selected_tests(sel: RunnerSelection, rel: Callable[[str], str]) -> dict[str, TestRef]:
    """The tests *sel* selects, by key; *rel* turns a selection's path into the path keys use."""
    out: dict[str, TestRef] = {}
    for c in sel.selected:
        path = rel(c.path)
        suffix = test_suffix(c)
        for test in c.neutral_tests or (c.methods if not c.generic else ()):
            key = test_key(path, c.neutral_name, test)
            shown = f"{test}_{suffix}" if suffix else test
            out.setdefault(key, TestRef(key, f"{path}::{c.name}::{shown}", (path, c.neutral_name), c))
    return out


def class_tests(selections: Iterable[RunnerSelection], rel: Callable[[str], str]) -> dict[ClassRef, set[str]]:
    """Every class collected on any of *selections*, whatever its status, with its neutral tests."""
    out: dict[ClassRef, set[str]] = {}
    for sel in selections:
        for c in sel.candidates:
            out.setdefault((rel(c.path), c.neutral_name), set()).update(c.neutral_tests)
    return out


def match_renames(
    before: dict[ClassRef, set[str]], after: dict[ClassRef, set[str]]
) -> dict[ClassRef, tuple[ClassRef, float]]:
    """Classes of *before* gone from *after*, matched to classes new in *after* that share at least
    :data:`RENAME_SIMILARITY` of their tests: old -> (new, similarity). Best matches first; a class
    in the same file wins a tie, as does the lower name (the result does not depend on order)."""
    gone = {ref: tests for ref, tests in before.items() if ref not in after and tests}
    new = {ref: tests for ref, tests in after.items() if ref not in before and tests}
    pairs = []
    for old, a in gone.items():
        for ref, b in new.items():
            shared = len(a & b)
            if not shared:
                continue
            score = shared / max(len(a), len(b))
            if score >= RENAME_SIMILARITY:
                pairs.append((-score, old[0] != ref[0], old, ref))
    out: dict[ClassRef, tuple[ClassRef, float]] = {}
    taken: set[ClassRef] = set()
    for score, _, old, ref in sorted(pairs):
        if old in out or ref in taken:
            continue
        out[old] = (ref, -score)
        taken.add(ref)
    return out


def match_test_renames(
    before: dict[ClassRef, set[str]],
    after: dict[ClassRef, set[str]],
    class_renames: dict[ClassRef, tuple[ClassRef, float]],
    old_source: Callable[[str], bytes | None],
    new_source: Callable[[str], bytes | None],
) -> dict[str, str]:
    """Keys of tests renamed inside their class: old key -> new key. For each class on both sides
    (by its name, or matched by :func:`match_renames`) that lost some tests and gained others, the
    lost and gained methods are compared by their definitions in the files (*old_source* and
    *new_source* give a file's content by its key path); best matches first, each method matched
    once; a test's variants (``test_x_1``, ``test_x*``) follow their method."""
    pairs = [(ref, ref) for ref in before if ref in after]
    pairs += [(old, new) for old, (new, _) in class_renames.items()]
    defs_old = _Definitions(old_source)
    defs_new = _Definitions(new_source)
    out: dict[str, str] = {}
    for old_ref, new_ref in sorted(pairs):
        gone, fresh = before[old_ref] - after[new_ref], after[new_ref] - before[old_ref]
        if not gone or not fresh:
            continue
        a, b = defs_old.of(old_ref), defs_new.of(new_ref)
        lost = _methods_of(gone, a.keys() - b.keys())
        gained = _methods_of(fresh, b.keys() - a.keys())
        scored = []
        for m in lost:
            for n in gained:
                score = difflib.SequenceMatcher(None, a[m], b[n], autojunk=False).ratio()
                if score >= TEST_RENAME_SIMILARITY:
                    scored.append((-score, m, n))
        taken_old: set[str] = set()
        taken_new: set[str] = set()
        for _, m, n in sorted(scored):
            if m in taken_old or n in taken_new:
                continue
            taken_old.add(m)
            taken_new.add(n)
            for test in lost[m]:
                renamed = n + test[len(m) :]
                if renamed in fresh:
                    out[test_key(*old_ref, test)] = test_key(*new_ref, renamed)
    return out


def _methods_of(tests: set[str], methods: Iterable[str]) -> dict[str, list[str]]:
    """*tests* grouped by the one of *methods* each is a variant of (tests of no method left out)."""
    names = set(methods)
    out: dict[str, list[str]] = {}
    for test in sorted(tests):
        method = method_of(test, names)
        if method is not None:
            out.setdefault(method, []).append(test)
    return out


def method_of(test: str, methods: set[str]) -> str | None:
    """The method a neutral test name is a variant of (``test_p_x_1`` -> ``test_p``): the longest of
    *methods* it is, or starts with followed by ``_`` or ``*``."""
    found = [m for m in methods if test == m or test.startswith((f"{m}_", f"{m}*"))]
    return max(found, key=len) if found else None


class _Definitions:
    """The methods of a class as written in a file, each as the lines of its decorators and body (the
    name and signature left out: two short tests share a signature more often than not); a file is
    parsed once, and one that cannot be read or parsed has none."""

    def __init__(self, source: Callable[[str], bytes | None]):
        self.source = source
        self.trees: dict[str, ast.Module | None] = {}

    def of(self, ref: ClassRef) -> dict[str, list[str]]:
        path, cls = ref
        if path not in self.trees:
            data = self.source(path)
            try:
                self.trees[path] = ast.parse(data) if data is not None else None
            except (SyntaxError, ValueError):
                self.trees[path] = None
        tree = self.trees[path]
        if tree is None:
            return {}
        node = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if node is None:
            return {}
        out = {}
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = [ast.unparse(d) for d in item.decorator_list]
                out[item.name] = decorators + [
                    line for stmt in item.body for line in ast.unparse(stmt).splitlines()
                ]
        return out


def rename_kind(old: ClassRef, new: ClassRef, files_before: set[str], files_after: set[str]) -> str:
    """How a class moved: ``file-renamed`` (its file is gone and the new one is new),
    ``class-moved`` (to another file) or ``class-renamed`` (in its file)."""
    if old[0] == new[0]:
        return "class-renamed"
    if old[0] not in files_after and new[0] not in files_before:
        return "file-renamed" if old[1] == new[1] else "class-renamed"
    return "class-moved"


def moved_key(key: str, renames: dict[ClassRef, tuple[ClassRef, float]]) -> str | None:
    """*key* after the renames (None: its class was not renamed). A glob in the class part is
    left alone: it names no one class."""
    path, cls, test = split_key(key)
    hit = renames.get((path, cls))
    if hit is None:
        return None
    (new_path, new_cls), _ = hit
    return test_key(new_path, new_cls, test)


def key_matches(pattern: str, key: str) -> bool:
    """Whether the expectation *pattern* (a key, globs allowed) names *key*. A key ``test_x*``
    (variants not known statically) is named by a pattern for any one of its variants."""
    if fnmatch.fnmatchcase(key, pattern):
        return True
    if key.endswith("*"):
        return pattern.startswith(key[:-1]) or fnmatch.fnmatchcase(key[:-1], pattern)
    return False
