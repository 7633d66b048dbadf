"""The two sides of ``hwselect diff``: a directory, a revision read out of git, or the work tree,
each selected for every runner as ``hwselect`` selects it, its paths spelled as the caller's."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .. import effects
from ..pipeline.cache import open_cache
from ..pipeline.session import Session
from .diff import Diff, Tree, diff_trees
from .revisions import export_tree, toplevel
from .runners import select_all


@dataclass(frozen=True)
class Request:
    """What both sides are selected with."""

    session: Session
    config: object
    runners: Sequence  # Runner records
    backends: tuple[str, ...] = ()
    include_unclassified: bool = False


def select_tree(
    request: Request, root: str, paths: Sequence[str], shown: str, label: str, cached: bool = True
) -> Tree:
    """*paths* (relative to *root*) of the tree at *root*, selected for every runner; keys spell a
    file as *shown* joined with its path under *root* (normalised, ``/``-separated). Without
    *cached*, the cache is left alone (a temporary tree's paths are never asked for again)."""
    from ..pipeline.config import discover

    scan = [os.path.join(root, p) for p in paths if os.path.lexists(os.path.join(root, p))]
    files = list(discover(scan, request.config)) if scan else []
    session = request.session.reading(scan) if scan else request.session  # links into this tree
    session = session if cached else replace(session, cache=None)
    selections = select_all(session, files, request.backends, request.include_unclassified, request.runners)
    base = os.path.abspath(root)

    def rel(path: str) -> str:
        inner = os.path.relpath(os.path.abspath(path), base)
        return os.path.normpath(os.path.join(shown, inner)).replace(os.sep, "/")

    digests, where = {}, {}
    for path in files:
        try:
            with open(path, "rb") as f:
                digests[rel(path)] = hashlib.sha1(f.read()).hexdigest()
        except OSError:
            continue
        where[rel(path)] = os.path.relpath(os.path.abspath(path), base)
    return Tree(selections, rel, digests, label, base, where)


def diff_directories(request: Request, base: str, head: str, paths: Sequence[str]) -> Diff:
    """Two directory trees (CI without history): *paths* relative to each."""
    rels = list(paths) or ["."]
    return diff_trees(
        select_tree(request, base, rels, ".", base), select_tree(request, head, rels, ".", head)
    )


def diff_revisions(request: Request, base: str, head: str | None, paths: Sequence[str]) -> Diff:
    """Revision *base* against revision *head* (None: the files in the work tree) of the git work
    tree holding *paths* (as given on the command line; keys spell them relative to the current
    directory). Neither revision is checked out: their files are read into a temporary directory.

    Both sides are laid at the same temporary path one after the other, with a cache of the run's
    own: the head's pass reads again only the files the change touched (a file's values are kept
    by its path and content), so the diff costs little more than one selection."""
    given = list(paths) or ["."]
    top = _top(given)
    rels = [_inside(top, p) for p in given]
    shown = os.path.relpath(top)
    with tempfile.TemporaryDirectory(prefix="hwselect-diff-") as tmp:
        tree = os.path.join(tmp, "tree")
        digest = request.session.taxonomy.digest
        cache = open_cache(digest, Path(tmp), os.path.join(tmp, "cache"), trees=request.session.trees)
        own = replace(request, session=replace(request.session, cache=cache))
        export_tree(top, base, rels, tree)
        old = select_tree(own, tree, rels, shown, base)
        kept = os.path.join(tmp, "base")  # its files are read again for the tests renamed in a class
        effects.rename_own(tree, kept)
        old = replace(old, root=kept)
        if head is None:
            copy_py_files(top, rels, tree)
        else:
            export_tree(top, head, rels, tree)
        new = select_tree(own, tree, rels, shown, head or "work tree")
        return diff_trees(old, new)


def copy_py_files(top: str, rels: Sequence[str], dest: str) -> None:
    """The regular ``.py`` files under *rels* (relative to *top*) of the work tree, copied into
    *dest* (a symlink is not followed: it is left out, as a revision's are)."""
    for rel in rels:
        start = os.path.join(top, rel)
        if os.path.isfile(start) and not os.path.islink(start):
            walk = [(os.path.dirname(start), [], [os.path.basename(start)])]
        else:
            walk = os.walk(start)
        for folder, dirs, names in walk:
            dirs[:] = [d for d in dirs if d not in (".git", "__pycache__") and not d.startswith(".hwlint")]
            for name in names:
                path = os.path.join(folder, name)
                if not name.endswith(".py") or os.path.islink(path) or not os.path.isfile(path):
                    continue
                target = os.path.join(dest, os.path.relpath(path, top))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(path, "rb") as f:
                    effects.write_atomic(target, f.read())


@contextlib.contextmanager
def revision_tree(rev: str, paths: Sequence[str]) -> Iterator[tuple[str, list[str], str]]:
    """The ``.py`` files of *rev* under *paths* (as given), read into a temporary directory for
    the time of the ``with``: (that directory, the paths relative to the work tree's top, the top
    as the current directory spells it)."""
    given = list(paths) or ["."]
    top = _top(given)
    rels = [_inside(top, p) for p in given]
    with tempfile.TemporaryDirectory(prefix="hwselect-diff-") as tmp:
        export_tree(top, rev, rels, tmp)
        yield tmp, rels, os.path.relpath(top)


def _top(paths: Sequence[str]) -> str:
    return toplevel((list(paths) or ["."])[0])


def _inside(top: str, path: str) -> str:
    from .revisions import RevisionError

    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(top))
    if rel == ".." or rel.startswith(".." + os.sep):
        raise RevisionError(f"{path}: not inside the git work tree at {top}")
    return rel.replace(os.sep, "/")
