"""Build a pytest ``-k`` expression that selects exactly a set of test classes.

pytest's ``-k`` (``_pytest/mark/expression.py``) matches a term as a case-insensitive SUBSTRING of
any name an item carries: its directory names, its module file name, its class name, its function
name, marker names and attributes set on the function. So ``TestFoo`` also selects ``TestFooBar``,
and a class called ``Foo`` selects everything in ``test_foo.py``. The builder works per file:

* the file's module name (``test_foo.py``) is the *anchor* when no other collected file or
  directory contains it (identifiers cannot contain a dot, so no class or test name can). When
  several files share the name (``jit/test_data_parallel.py``, ``distributed/test_data_parallel.py``),
  the anchor is qualified by directory names: ``test_data_parallel.py and jit`` (a directory of this
  file that no item of the others can contain) or ``test_data_parallel.py and not distributed`` (a
  directory of the others that no item of this file can contain). A directory name is surely one of
  an item's keywords only below pytest's rootdir, so only directories below *root* (the common
  directory of the paths hwselect was given: pytest's rootdir is that directory or one above it)
  qualify;
* a file whose collected classes are all chosen is just its anchor;
* otherwise ``anchor and (T1 or T2 ...)`` (inclusion) or ``anchor and not (U1 or ...)`` (exclusion),
  whichever is shorter and exact, where a class term that also hits an unchosen class gets that
  class excluded: ``(TestFoo and not TestFooBar)``;
* without an anchor, class terms are checked against every collected class of every file.

An expression never starts with ``-`` (a module named ``-x_test.py``): pytest's argument parser
would take it for an option, so such an expression is parenthesised.

A file whose choice cannot be written exactly (a class name inside its module or a directory name,
for instance) is reported in :attr:`Plan.inexact`; callers then fall back to node ids.

Terms are grouped in balanced parentheses of at most :data:`FANOUT` terms: pytest compiles
``a or b or c`` into a left-deep tree, and a flat chain of about 970 terms exceeds the recursion limit.

Two kinds of items exist that hwselect's node ids never name, and a term must not catch them:

* **classes torch generates for other devices** (*phantoms*, :func:`phantom_classes`): without
  ``PYTORCH_TESTING_DEVICE_ONLY_FOR`` a CUDA machine also generates ``TestFooCPU``, and an
  ``include_lazy=True`` call ``TestFooLAZY`` on every machine. A file that instantiates classes is
  therefore never addressed by its module name alone nor by exclusion (a backend may name a class
  nobody can list): its generated classes are named in full (``test_view_ops.py and
  (TestViewOpsCPU or ...)``), which is exact with and without the variable;
* **parametrized test ids**: ``@parametrize`` appends ids made from values
  (``test_a_x_TestFooBar``), which ``-k`` matches like any name. The ids of literal values
  (:attr:`~hwlint.select.records.Candidate.neutral_tests`) count among the names a term must
  respect, so ``not TestFooBar`` is never used where it would drop ``test_a_x_TestFooBar``. Ids
  hwlint cannot read (a computed list, ``@ops``) are assumed not to spell a class name.

A build stops once its expression would exceed *budget* bytes (:data:`MAX_ARG_BYTES` by default):
class names that contain each other make the exact expression grow with the square of the classes,
and nobody can pass a longer one to pytest.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from .replay import Candidate

#: Longest single argument Linux passes to a program (MAX_ARG_STRLEN, 32 pages, minus the NUL).
MAX_ARG_BYTES = 131_071
#: Terms per parenthesised group.
FANOUT = 16

_IDENT = re.compile(r"^(?:\w|:|\+|-|\.|\[|\]|\\|/)+$")
_KEYWORDS = {"or", "and", "not"}

#: torch's device types (``common_device_type``'s test bases): the suffixes of generated classes.
TORCH_DEVICE_TYPES = ("cpu", "cuda", "lazy", "mps", "xpu", "hpu", "privateuse1")
#: The status of a class torch may generate for another device (:func:`phantom_classes`).
PHANTOM = "phantom"


@dataclass
class Plan:
    """The expression, and the classes it cannot select exactly (with the reason)."""

    expression: str
    inexact: list[tuple[Candidate, str]] = field(default_factory=list)
    too_long: bool = False  # the build stopped at its budget: no expression

    @property
    def exact(self) -> bool:
        return not self.inexact and not self.too_long

    @property
    def size(self) -> int:
        return len(self.expression.encode())


def is_term(text: str) -> bool:
    """True when *text* is one identifier of pytest's expression grammar."""
    return bool(_IDENT.match(text)) and text not in _KEYWORDS


def id_names(c: Candidate) -> tuple[str, ...]:
    """The test names ``@parametrize`` gives *c* from literal values (``test_a_x_TestFooBar``)."""
    return tuple(n for n in c.neutral_tests if not n.endswith("*"))


def phantom_classes(files: Iterable, device: str, backends: Sequence[str] = ()) -> list[Candidate]:
    """Classes torch may generate in *files* (:class:`~hwlint.select.records.FileSelection`) for
    device types other than *device*: never chosen, but ``-k`` must not select them.

    Every instantiated class may be generated for every torch device type (and the named
    PrivateUse1 *backends*) when ``PYTORCH_TESTING_DEVICE_ONLY_FOR`` is not set; names that are
    already a candidate of the file are not phantoms."""
    suffixes = [d.upper() for d in (*TORCH_DEVICE_TYPES, *backends) if d != device]
    if device == "privateuse1":
        suffixes = [s for s in suffixes if s.lower() not in backends]
    out: list[Candidate] = []
    for f in files:
        known = {n for c in f.candidates for n in c.names}
        generics: dict[str, Candidate | None] = {}
        for c in f.candidates:
            if c.generic:
                generics[c.generic] = c
        for ng in f.not_generated:
            generics.setdefault(ng.generic, None)
        for generic, sibling in generics.items():
            for suffix in suffixes:
                name = generic + suffix
                if name in known:
                    continue
                if sibling is None:
                    out.append(Candidate(f.path, (name,), PHANTOM, None, None, None, generic))
                    continue
                own = f"_{device.lower()}"
                methods = tuple(m.replace(own, f"_{suffix.lower()}") for m in sibling.methods)
                out.append(replace(sibling, names=(name,), status=PHANTOM, methods=methods, source=None))
    return out


def item_names(c: Candidate) -> set[str]:
    """Lower-cased names pytest's -k may see on the items of *c* (directories conservatively all)."""
    path = os.path.abspath(c.path)
    dirs = [d for d in os.path.dirname(path).split(os.sep) if d]
    names = {*dirs, os.path.basename(path), *c.names, *c.methods, *c.keywords, *id_names(c)}
    return {n.lower() for n in names}


class _Index:
    """Substring search over the item names of many candidates at once."""

    def __init__(self, candidates: Sequence[Candidate], names: Sequence[set[str]]):
        owners: dict[str, list[int]] = {}
        for i, ns in enumerate(names):
            for n in ns:
                owners.setdefault(n, []).append(i)
        self.keys = list(owners)
        self.owners = [owners[k] for k in self.keys]
        self.starts = []
        pos = 0
        for k in self.keys:
            self.starts.append(pos)
            pos += len(k) + 1
        self.text = "\n".join(self.keys)
        self.candidates = candidates

    def hits(self, term: str) -> set[int]:
        """Indexes of candidates with a name containing *term* (lower-case)."""
        out: set[int] = set()
        start = self.text.find(term)
        while start != -1:
            k = bisect.bisect_right(self.starts, start) - 1
            out.update(self.owners[k])
            # continue after this name: every other hit in it belongs to the same owners
            start = self.text.find(term, self.starts[k] + len(self.keys[k]) + 1)
        return out


class _OverBudget(Exception):
    """The expression grew past its budget: the build stops (see the module doc)."""


@dataclass
class _Budget:
    left: int | None  # bytes still allowed (None: no limit)

    def spend(self, text: str) -> None:
        if self.left is None:
            return
        self.left -= len(text) + 4  # with its " or " or parentheses
        if self.left < 0:
            raise _OverBudget


def build(
    all_candidates: Sequence[Candidate],
    chosen: Iterable[Candidate],
    functions: Mapping[str, Sequence[str]] | None = None,
    root: str | None = None,
    phantoms: Sequence[Candidate] = (),
    budget: int | None = MAX_ARG_BYTES,
) -> Plan:
    """An expression selecting exactly *chosen* among *all_candidates* (every class collected).

    *functions* (path -> names) are the module-level test functions pytest also collects there;
    they are never chosen. *root*: a directory at or below pytest's rootdir (see
    :func:`scan_root`); the directory names below it qualify module names several files share.
    Without it no directory name is used. *phantoms*: classes that may also be collected
    (:func:`phantom_classes`), never chosen. Past *budget* bytes the build stops: the plan is
    :attr:`Plan.too_long`, without an expression.
    """
    plan = Plan("")
    try:
        _build(plan, all_candidates, chosen, functions, root, phantoms, _Budget(budget))
    except _OverBudget:
        plan.expression = ""
        plan.too_long = True
    return plan


def _build(
    plan: Plan,
    all_candidates: Sequence[Candidate],
    chosen: Iterable[Candidate],
    functions: Mapping[str, Sequence[str]] | None,
    root: str | None,
    phantoms: Sequence[Candidate],
    budget: _Budget,
) -> None:
    chosen_ids = {id(c) for c in chosen}
    open_files = {p.path for p in phantoms}
    all_candidates = [*all_candidates, *phantoms, *_function_items(functions or {})]
    names = [item_names(c) for c in all_candidates]
    by_file: dict[str, list[int]] = {}
    for i, c in enumerate(all_candidates):
        by_file.setdefault(c.path, []).append(i)
    basenames = {p: os.path.basename(p) for p in by_file}
    # one string each, so that "does any other file or directory contain it" is one C-level scan
    all_basenames = "\n".join(b.lower() for b in basenames.values())
    all_dirnames = "\n".join({d for p in by_file for d in _dirs(p)})
    global_index: _Index | None = None
    clauses: list[str] = []
    for path, idxs in by_file.items():
        sel = [i for i in idxs if id(all_candidates[i]) in chosen_ids]
        if not sel:
            continue
        module = basenames[path]
        low = module.lower()
        anchor: str | None = module if is_term(module) else None
        # a file where torch may generate classes hwselect does not list names its classes
        include_only = path in open_files
        if anchor is not None and (all_basenames.count(low) != 1 or low in all_dirnames):
            if global_index is None:
                global_index = _Index(all_candidates, names)
            mine = set(idxs)
            rivals = sorted(global_index.hits(low) - mine)
            anchor = _qualified_anchor(module, path, rivals, idxs, all_candidates, names, root)
            if anchor is None:
                # Only the rivals the class terms may also match count when the clause names the
                # chosen classes (the inclusion form), and only the chosen items must keep matching.
                terms = [n.lower() for i in sel for n in all_candidates[i].names]
                rivals = [r for r in rivals if any(t in n for t in terms for n in names[r])]
                anchor = _qualified_anchor(module, path, rivals, sel, all_candidates, names, root)
                include_only = True
        if anchor is not None:
            clause = _file_clause(all_candidates, names, idxs, sel, anchor, plan, include_only, budget)
        else:
            if global_index is None:
                global_index = _Index(all_candidates, names)
            clause = _class_clause(all_candidates, names, sel, chosen_ids, global_index, plan, budget)
        if clause:
            clauses.append(clause)
    plan.expression = balanced_or(clauses)
    if plan.expression.startswith("-"):
        plan.expression = f"({plan.expression})"  # else pytest's parser takes it for an option


def scan_root(paths: Iterable[str]) -> str:
    """The common directory of *paths* (a file stands for its directory), absolute.

    pytest's rootdir is this directory or one above it when pytest is given the same paths (it
    looks for its configuration from their common ancestor upwards), so every directory strictly
    below it is one of the keywords of the items beneath (``--rootdir`` or a configuration file
    inside one of the paths can say otherwise)."""
    dirs = []
    for p in paths:
        a = os.path.abspath(p)
        dirs.append(a if os.path.isdir(a) else os.path.dirname(a))
    if not dirs:
        return os.path.abspath(".")
    try:
        return os.path.commonpath(dirs)
    except ValueError:  # paths on different drives
        return os.path.abspath(".")


def _sure_dirs(path: str, root: str | None) -> list[str]:
    """Directory names between *root* (excluded) and *path*'s file, nearest first, lower-cased:
    pytest gives them to every item of the file as keywords."""
    if root is None:
        return []
    rel = os.path.relpath(os.path.dirname(os.path.abspath(path)), root)
    if rel == "." or rel.startswith(".."):
        return []
    return [d.lower() for d in reversed(rel.split(os.sep)) if d]


def _qualified_anchor(
    module: str,
    path: str,
    rivals: Sequence[int],
    keep: Sequence[int],
    cands: Sequence[Candidate],
    names: Sequence[set[str]],
    root: str | None,
) -> str | None:
    """``module and dir and not other_dir ...``: true for every item of the candidates *keep*
    (of *path*) and false for every item of the candidates *rivals* (of other files), or None when
    directory names cannot tell them apart.

    A qualifier either is a directory of *path* that no name of a rival contains, or a directory
    of a rival that no name of *keep* contains; each is chosen to rule out as many of the rivals
    left as it can.
    """
    if not rivals:
        return module
    kept = set().union(*(names[i] for i in keep))
    options: list[tuple[str, set[int]]] = []
    for d in _sure_dirs(path, root):
        if is_term(d):
            options.append((d, {r for r in rivals if not any(d in n for n in names[r])}))
    theirs: dict[str, set[int]] = {}
    for r in rivals:
        for d in _sure_dirs(cands[r].path, root):
            if is_term(d) and not any(d in n for n in kept):
                theirs.setdefault(d, set()).add(r)
    options += [(f"not {d}", rs) for d, rs in sorted(theirs.items())]
    terms = [module]
    left = set(rivals)
    while left:
        term, ruled_out = max(options, key=lambda o: len(o[1] & left), default=("", set()))
        if not ruled_out & left:
            return None
        terms.append(term)
        left -= ruled_out
    return " and ".join(terms)


def _function_items(functions: Mapping[str, Sequence[str]]) -> list[Candidate]:
    """Stand-ins for test functions: one name each, never chosen."""
    return [
        Candidate(path, (name,), "function", None, None, None)
        for path, names in functions.items()
        for name in names
    ]


def _dirs(path: str) -> list[str]:
    return [d.lower() for d in os.path.dirname(os.path.abspath(path)).split(os.sep) if d]


def _file_clause(
    cands: Sequence[Candidate],
    names: Sequence[set[str]],
    idxs: list[int],
    sel: list[int],
    anchor: str,
    plan: Plan,
    include_only: bool,
    budget: _Budget,
) -> str:
    """The clause for one file: its anchor alone, with its chosen classes, or without the others.

    *include_only*: the anchor tells the file apart only from the items the chosen classes' names
    may match, or the file may hold classes nobody can list, so the clause must name the chosen."""
    chosen = set(sel)
    rest = [i for i in idxs if i not in chosen]
    if not rest and not include_only:
        budget.spend(anchor)
        return _group(anchor)
    local = _Index([cands[i] for i in idxs], [names[i] for i in idxs])
    trial = Plan("")
    # the inclusion form is a trial: only the form the clause takes is charged to the budget (a file
    # of 200 classes and 20 look-alikes is 20 exclusions, not 200 names and 20 exclusions)
    include: str | None = None
    try:
        include = _class_clause(
            cands, names, sel, {id(cands[i]) for i in sel}, local, trial, _Budget(budget.left)
        )
    except _OverBudget:
        if include_only:
            raise
    exclude = None
    if not include_only:
        exclude = _exclusion_clause(cands, rest, local, {k for k, i in enumerate(idxs) if i in chosen})
    options = []
    if include is not None and trial.exact:
        options.append(f"{anchor} and {_group(include)}")
    if exclude is not None:
        options.append(f"{anchor} and not {_group(exclude)}")
    if not options:
        if include is None:
            raise _OverBudget
        plan.inexact.extend(trial.inexact)
        clause = f"{anchor} and {_group(include)}" if include else ""
    else:
        clause = "(" + min(options, key=len) + ")"
    budget.spend(clause)
    return clause


def _class_term(c: Candidate) -> str:
    return c.names[0] if len(c.names) == 1 else "(" + " or ".join(c.names) + ")"


def _unsayable(c: Candidate) -> str | None:
    """The first of *c*'s names that is not one term of pytest's grammar, if any.

    A Python identifier may hold characters pytest's lexer (``\\w`` and a few symbols) does not
    accept, such as ``·`` or a combining mark: one of them makes pytest reject the whole expression.
    """
    return next((n for n in c.names if not is_term(n)), None)


def _unsayable_reason(name: str) -> str:
    bad = next((ch for ch in name if not is_term(ch)), name[:1])
    return f"its name {name!r} holds {bad!r} (U+{ord(bad):04X}), which pytest's -k cannot parse"


def _class_clause(
    cands: Sequence[Candidate],
    names: Sequence[set[str]],
    sel: list[int],
    chosen_ids: set[int],
    index: _Index,
    plan: Plan,
    budget: _Budget,
) -> str:
    """``T1 or (T2 and not U) ...`` for the chosen classes, each exact against the index's classes."""
    parts = []
    for i in sel:
        c = cands[i]
        bad = _unsayable(c)
        if bad is not None:
            plan.inexact.append((c, _unsayable_reason(bad)))
            continue
        hit: set[int] = set()
        for n in c.names:
            hit |= index.hits(n.lower())
        # translate index positions to candidates and keep the unchosen ones
        others = [index.candidates[k] for k in hit]
        others = [o for o in others if id(o) not in chosen_ids]
        term = _class_term(c)
        if not others:
            budget.spend(term)
            parts.append(term)
            continue
        own = names[i]
        clash = [o for o in others if any(_contained(n.lower(), own) for n in o.names)]
        if clash:
            plan.inexact.append((c, _inexact_reason(c, clash[0])))
            parts.append(term)
            continue
        unsayable = [o for o in others if _unsayable(o) is not None]
        if unsayable:
            o = unsayable[0]
            reason = _unsayable_reason(_unsayable(o) or o.name)
            plan.inexact.append((c, f"-k {c.name} also selects {o.nodeid}, and {reason}"))
            continue
        budget.spend(term)
        terms = []
        for o in sorted(others, key=lambda o: o.name):
            terms.append(_class_term(o))
            budget.spend(terms[-1])
        excluded = balanced_or(terms)
        parts.append(f"({term} and not {_group(excluded)})")
    return balanced_or(parts)


def _exclusion_clause(
    cands: Sequence[Candidate], rest: list[int], local: _Index, chosen_positions: set[int]
) -> str | None:
    """``U1 or U2`` naming every unchosen class, or None when a term would also drop a chosen one.

    *local* indexes the file's classes; *chosen_positions* are the chosen ones' places in it.
    """
    for i in rest:
        if _unsayable(cands[i]) is not None:
            return None
        for n in cands[i].names:
            if local.hits(n.lower()) & chosen_positions:
                return None
    return balanced_or([_class_term(cands[i]) for i in rest])


def _contained(term: str, names: set[str]) -> bool:
    return any(term in n for n in names)


def _inexact_reason(c: Candidate, clash: Candidate) -> str:
    for n in c.names:
        low = n.lower()
        for path in dict.fromkeys((c.path, clash.path)):
            if low in os.path.basename(path).lower():
                return f"its name is part of the module name {os.path.basename(path)}"
            for d in _dirs(path):
                if low in d:
                    return f"its name is part of the directory name {d!r} of {path}"
    return (
        f"-k {c.name} also selects {clash.path}::{clash.name}, and excluding that class would drop "
        f"{c.name} too"
    )


def balanced_or(parts: Sequence[str]) -> str:
    """``a or b or ...`` nested in parentheses, at most FANOUT terms per level."""
    parts = [p for p in parts if p]
    if len(parts) <= FANOUT:
        return " or ".join(parts)
    size = FANOUT  # the smallest power of FANOUT that leaves at most FANOUT groups
    while -(-len(parts) // size) > FANOUT:
        size *= FANOUT
    groups = [parts[i : i + size] for i in range(0, len(parts), size)]
    return " or ".join(_group(balanced_or(g)) for g in groups)


def _group(text: str) -> str:
    """*text* as one operand: parenthesised unless it is a single term or already one group."""
    if " " not in text:
        return text
    if text.startswith("("):
        depth = 0
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                if i == len(text) - 1:
                    return text
                break
    return f"({text})"
