"""What the builder and the device scan share about CPython's tree and the text behind it: line
splitting as the tokenizer counts lines, dotted names, the statements a module or a class body runs,
and :class:`WordIndex`, which proves that a node's text names none of some words."""

from __future__ import annotations

import ast
import bisect
import functools
import itertools
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence

COMPOUND = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)


if hasattr(ast, "TryStar"):
    COMPOUND += (ast.TryStar,)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@functools.lru_cache(maxsize=64)
def parse_expression(text: str) -> ast.expr:
    """The tree of the expression *text* (a declaration's value: a handful per run; not mutated)."""
    return ast.parse(text, mode="eval").body


def one_line(text: str, limit: int) -> str:
    """*text* on one line, each run of blanks a space, shortened to *limit* characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The trees the builder parsed for the last file (its fixed texts' too, in a --fix run), kept by a
#: pool's worker process (:func:`defer_frees`) until it starts on the next file: freeing a tree
#: costs a tenth of its parse (19 ms for PyTorch's test_nn.py), and done after the file's result
#: is sent it is off the run's critical path.
_deferred: list[ast.Module] | None = None


def defer_frees() -> None:
    """From now on, keep each tree until :func:`free_deferred` (a worker process: the trees of one
    file at most are kept, as the next file is read only after the previous one's are freed)."""
    global _deferred
    _deferred = []


def defer_free(tree: ast.Module) -> None:
    """Keep *tree* until :func:`free_deferred`, when :func:`defer_frees` was called."""
    if _deferred is not None:
        _deferred.append(tree)


def free_deferred() -> None:
    """Free the tree kept since the last file, if any."""
    if _deferred:
        _deferred.clear()


def split_lines(source: str) -> list[str]:
    """Lines as the tokenizer counts them (only \\n, \\r\\n and \\r end a line), ends kept."""
    if not any(c in source for c in _OTHER_BREAKS):
        return source.splitlines(keepends=True)  # the same lines, several times faster
    return _LINE.findall(source)


def dotted_name(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain, else ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


#: Decorators whose first argument names the parameters they give a test (torch's and pytest's).
PARAMETRIZE = frozenset({"parametrize", "parametrize_test"})


def parametrize_names(call: ast.Call, last: str) -> list[str]:
    """The parameters ``@parametrize("device, dtype", ...)`` (*last*: the called name's last part)
    gives a test; [] for any other call."""
    if last not in PARAMETRIZE or not call.args:
        return []
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return [n.strip() for n in first.value.split(",") if n.strip()]
    if isinstance(first, (ast.Tuple, ast.List)):
        return [e.value for e in first.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def parametrized_values(call: ast.Call, last: str, params: Iterable[str]) -> list[ast.expr]:
    """The values ``@parametrize`` gives any of *params*: each element of its list for one parameter
    (``("device", (GPU_TYPE, "cpu"))``), the matching item of each tuple for several."""
    names = parametrize_names(call, last)
    wanted = [i for i, n in enumerate(names) if n in params]
    if not wanted or len(call.args) < 2:
        return []
    values = call.args[1]
    if isinstance(values, ast.Name) and len(names) == 1:
        return [values]  # ("device", devices): a list the module builds
    if (
        isinstance(values, ast.Call)
        and dotted_name(values.func).rpartition(".")[2] == "product"
        and len(values.args) == len(names)
        and not values.keywords
    ):
        return [values.args[i] for i in wanted]  # itertools.product(ops, devices): one list per name
    if not isinstance(values, (ast.Tuple, ast.List)):
        return []
    elements = values.elts
    if len(names) == 1:
        return list(elements)
    return [
        e.elts[i] for e in elements if isinstance(e, (ast.Tuple, ast.List)) for i in wanted if i < len(e.elts)
    ]


def module_statements(body: Iterable[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Module-level statements, descending into compound statements but not into defs."""
    for stmt in body:
        yield stmt, nested
        if isinstance(stmt, COMPOUND):
            for name in ("body", "orelse", "finalbody"):
                yield from module_statements(getattr(stmt, name, ()), True)
            for handler in getattr(stmt, "handlers", ()):
                yield from module_statements(handler.body, True)
        elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
            for case in stmt.cases:
                yield from module_statements(case.body, True)


def skippable_blocks(stmt: ast.stmt) -> list[tuple[int, int]]:
    """Line ranges of *stmt*'s bodies that may be skipped (a with body, a try body always run)."""
    bodies: list[list[ast.stmt]] = []
    if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While)):
        bodies = [stmt.body, stmt.orelse]
    elif isinstance(stmt, TRY):
        bodies = [h.body for h in stmt.handlers] + [stmt.orelse]
    elif hasattr(ast, "Match") and isinstance(stmt, ast.Match):
        bodies = [case.body for case in stmt.cases]
    return [(b[0].lineno, b[-1].end_lineno or b[-1].lineno) for b in bodies if b]


TRY = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


_DECORATED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def class_body_statements(body: list[ast.stmt], nested: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """A class body's statements, descending into if/try/with/for/while (not into defs)."""
    for stmt in body:
        yield stmt, nested
        if isinstance(stmt, COMPOUND):
            for name in ("body", "orelse", "finalbody"):
                # a with body (and a try body) runs whenever the class body does
                inner = nested or not (isinstance(stmt, (ast.With, ast.AsyncWith, *TRY)) and name == "body")
                yield from class_body_statements(getattr(stmt, name, ()), inner)
            for handler in getattr(stmt, "handlers", ()):
                yield from class_body_statements(handler.body, True)


def is_call_to(node: ast.AST, names: frozenset[str]) -> bool:
    """``f()`` for a name f in *names*."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def target_names(target: ast.expr) -> list[str]:
    """Names an assignment target binds."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in target_names(elt)]
    return []


def is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides) and any(
        isinstance(x, ast.Constant) and x.value == "__main__" for x in sides
    )


def line_offsets(lines: list[str]) -> tuple[list[int], list[int]]:
    """The offsets where each of *lines* starts and ends in their concatenation."""
    ends = list(itertools.accumulate(map(len, lines)))
    return [0, *ends[:-1]], ends


# Fields that never hold a node with text: names, flags, and the contexts and operators (`Load`,
# `Add`, `Eq`...), leaves never worth a visit.
_SCALAR_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "module", "level", "kind", "conversion", "simple", "is_async"}
)


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # node type -> the fields that may hold child nodes


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The child nodes of *node* that have text, in field order (``ast.iter_child_nodes``, less the
    leaves that have none, built as a list: the walk's inner loop)."""
    kind = type(node)
    names = _CHILD_FIELDS.get(kind)
    if names is None:
        names = () if kind is ast.Constant else tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)
        _CHILD_FIELDS[kind] = names
    out = []
    for name in names:
        value = getattr(node, name, None)
        if type(value) is list:
            out += [v for v in value if isinstance(v, ast.AST)]
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


class WordIndex:
    """Where some words occur in a file's text, to prove that a node's text names none of them.

    The device walk asks this of every node it would visit: a node whose text names no device word
    (nor the name of a helper with device uses) holds no use, so neither it nor anything under it is
    visited; the search for classes created at run time skips the statements that name none of
    ``globals``, ``type``, ``setattr``... The occurrences are found once per file, with a
    ``str.find`` per word. Positions are exact in an ASCII file (ast's byte columns are offsets in
    the text); in any other file a node is pruned by its whole lines. A string literal
    assembled from pieces (``"cu" "da"``) names no word, and is no use."""

    def __init__(
        self,
        text: str,
        offsets: tuple[list[int], list[int]],
        ascii: bool,
        words: Iterable[str],
        whole: bool = False,
        spans: Sequence[tuple[int, int]] | None = None,
        share: bool = True,
    ):
        """*offsets*: where each line of *text* (as the tokenizer splits them) starts and ends.
        *whole*: only occurrences that start a word count (``type`` in ``type(``, not in ``dtype``).
        *spans*: the (start, end) offsets of the only parts of *text* to search (default: all).
        *share*: words that share a substring are found by one search for it (:func:`_anchors`);
        else each word by its own (words whose shared parts are common: ``se`` in ``setattr`` and
        ``__set_name__``)."""
        self.text = text
        self.starts, self.ends = offsets
        self.exact = ascii
        self.whole = whole
        self.spans = [(0, len(text))] if spans is None else spans
        hits: list[int] = []
        for anchor, members in _anchors(word_roots(frozenset(words)), share):
            hits += self.anchored(anchor, members)
        hits.sort()
        # sorted start offsets of the occurrences (one offset may be there twice: a query asks
        # only whether a span holds one)
        self.hits = hits

    def occurrences(self, word: str) -> list[int]:
        text, find, found = self.text, self.text.find, []
        for start, end in self.spans:
            pos = find(word, start, end)
            while pos >= 0:
                if not (self.whole and after_word(text, pos)):
                    found.append(pos)
                pos = find(word, pos + 1, end)
        return found

    def anchored(self, anchor: str, members: tuple[tuple[str, int], ...]) -> list[int]:
        """The occurrences of each of *members*, (word, where *anchor* first occurs in it), found
        by one search for *anchor*: every occurrence of a word holds the anchor there."""
        if len(members) == 1 and members[0][0] == anchor:
            return self.occurrences(anchor)
        text, find, found = self.text, self.text.find, []
        for start, end in self.spans:
            pos = find(anchor, start, end)
            while pos >= 0:
                for word, at in members:
                    begin = pos - at
                    if (
                        begin >= start
                        and begin + len(word) <= end
                        and text.startswith(word, begin)
                        and not (self.whole and after_word(text, begin))
                    ):
                        found.append(begin)
                pos = find(anchor, pos + 1, end)
        return found

    def add(self, word: str) -> None:
        found = self.occurrences(word)
        if found:
            # two sorted runs: the sort merges them in one linear pass
            self.hits = sorted(self.hits + found)

    def walk(self, node: ast.AST) -> Iterator[ast.AST]:
        """The nodes of ``ast.walk(node)``, in its order, less the subtrees whose text names no word
        and the leaves that have no text."""
        todo = deque([node])
        while todo:
            node = todo.popleft()
            if self.names_word(node):
                todo.extend(child_nodes(node))
                yield node

    def lines(self, first: int, last: int) -> bool:
        """Whether lines *first* to *last* (1-based) name a word."""
        hits = self.hits
        i = bisect.bisect_left(hits, self.starts[first - 1])
        return i < len(hits) and hits[i] < self.ends[last - 1]

    def names_word(self, node: ast.AST) -> bool:
        """Whether *node*'s text may name a word (True for a node without a position)."""
        line = getattr(node, "lineno", None)
        if line is None:
            return True
        if self.exact and type(node) not in _DECORATED:  # the common case first: an expression
            start = self.starts[line - 1] + node.col_offset  # type: ignore[attr-defined]
            end = self.starts[(node.end_lineno or line) - 1] + (node.end_col_offset or 0)  # type: ignore[attr-defined]
        else:
            decorators = getattr(node, "decorator_list", None)
            if decorators:  # a def's text starts with its decorators, above its `def` line
                start = self.starts[decorators[0].lineno - 1]
            elif self.exact:
                start = self.starts[line - 1] + node.col_offset  # type: ignore[attr-defined]
            else:  # byte columns: the node's whole lines, which hold its text
                start = self.starts[line - 1]
            end_line = node.end_lineno or line  # type: ignore[attr-defined]
            if self.exact:
                end = self.starts[end_line - 1] + (node.end_col_offset or 0)  # type: ignore[attr-defined]
            else:
                end = self.ends[end_line - 1]
        hits = self.hits
        i = bisect.bisect_left(hits, start)
        return i < len(hits) and hits[i] < end


@functools.lru_cache(maxsize=64)
def word_roots(words: frozenset[str]) -> tuple[str, ...]:
    """*words* less those holding another (`torch.cuda`, `gpus`), which occur only where the other
    one does; remembered: a file's four indexes ask it of the same few word sets (16% of building
    them, each time). Apart from :func:`_anchors`, whose search for the best anchors costs 1.5 ms
    and is remembered by the roots: word sets that differ by a word holding another (a helper
    ``_make_cuda_tensor`` of one file) share them."""
    return tuple(sorted(w for w in words if not any(other in w for other in words if other != w)))


@functools.lru_cache(maxsize=64)
def _anchors(
    words: tuple[str, ...], share: bool = True
) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    """Searches that find *words*: (anchor, ((word, where the anchor first occurs in it), ...)).
    Words that share a substring are found by one search for it (`cud` for cuda and cudnn, `pu`
    for gpu, xpu, .hpu, .ipu): each search is a pass over the whole text, each hit of an anchor a
    check per word (the default taxonomy's 13 device words over PyTorch's test/: 0.26 s in 13
    searches, 0.22 s in 7). Greedy: the substring most words share first, the longest of those.
    Without *share*, one search per word."""
    left = set(words)
    out: list[tuple[str, tuple[tuple[str, int], ...]]] = []
    while share:
        best: tuple[tuple[int, int, str], list[str]] | None = None
        for word in sorted(left):
            for i in range(len(word)):
                for j in range(i + 2, len(word) + 1):
                    part = word[i:j]
                    members = sorted(w for w in left if part in w)
                    # two characters occur everywhere (`it` in exit and quit): worth a check per
                    # hit only for three words or more
                    if len(members) < 2 or (len(part) < 3 and len(members) < 3):
                        continue
                    key = (len(members), len(part), part)
                    if best is None or key > best[0]:
                        best = (key, members)
        if best is None:
            break
        (_, _, part), members = best
        out.append((part, tuple((w, w.find(part)) for w in members)))
        left.difference_update(members)
    out += [(w, ((w, 0),)) for w in sorted(left)]
    return tuple(out)


def after_word(text: str, start: int) -> bool:
    """Whether *text* has a word character just before *start*."""
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")


def rooted_at(node: ast.expr, name: str) -> bool:
    """Whether *node*'s source text starts with *name*: a chain of attributes, calls and subscripts
    down to that name (``torch.nn.Linear(2, 2)``, ``torch.ones(3)[0]``)."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id == name
