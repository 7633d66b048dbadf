"""The trees one run checks (:class:`Trees`): a symbolic link is read only into them
(:meth:`Trees.link_refusal`, which :func:`hwlint.model.source.read_source` asks), and nothing in
them is trusted as hwlint's own (:mod:`hwlint.keystore` keeps its key elsewhere). A run's session
owns its :class:`Trees` and hands them to every reader, a pool worker included. It sits at the
bottom of the package because both the file model and the key store ask it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_PSEUDO = ("/proc/", "/sys/", "/dev/")  # files there are the kernel's, whatever their mode says


def under(path: str, tree: str, itself: bool = False) -> bool:
    """Whether *path* lies below the directory *tree*, compared as spelled (resolve both first);
    with *itself*, *tree* itself counts too."""
    return (itself and path == tree) or path.startswith(tree.rstrip(os.sep) + os.sep)


def linked_away(path: str) -> str | None:
    """Why *path*, as named, is not read: a symlink to a directory on its way below the current
    directory (the named directory itself, ``test -> /home/ci``, or one above it) leads out of
    the current directory's tree, where a pull request's link may point anywhere. None when it
    does not (a named file that is itself a symlink is judged when it is read, by
    the :meth:`Trees.link_refusal` of its run)."""
    try:
        cwd = os.getcwd()  # the kernel's: already real
        absolute = os.path.abspath(path)
        if not under(absolute, cwd):
            return None  # named from elsewhere: the caller's own path, links and all
        directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        real = os.path.realpath(directory)
    except (OSError, ValueError):
        return None
    if under(real, cwd, itself=True):
        return None
    where = "a symlink" if directory == absolute else "under a symlink"
    return f"{where} to a directory outside the checked tree; not read"


@dataclass(frozen=True)
class Trees:
    """The trees a run checks, fixed when its session is built: the *roots* given (a directory,
    or the directory a named file is in) and the *projects* they belong to (the directories of
    the configurations that govern the run)."""

    #: The real paths of the trees given (None: none given, so the current directory's). A
    #: symlink is read only when its target lies in one of them.
    roots: frozenset[str] | None = None
    projects: frozenset[str] = frozenset()

    @classmethod
    def of(cls, paths: Sequence[str], projects: Iterable[str] = ()) -> Trees:
        """The trees under *paths*, as given on the command line, with the configurations'
        directories *projects*."""
        return cls().adding(paths, projects)

    def adding(self, paths: Sequence[str] = (), projects: Iterable[str] = ()) -> Trees:
        """These trees and those under *paths* and *projects*: a run that checks several trees
        reads links into each, never into others. A path a symlink leads out of the checkout
        makes no tree of its target."""
        found = set(self.roots or ())
        for p in paths:
            try:
                base = p if os.path.isdir(p) else os.path.dirname(p) or "."
                if linked_away(base) is None:
                    found.add(os.path.realpath(base))
            except (OSError, ValueError):
                continue
        real = set(self.projects)
        for root in projects:
            with contextlib.suppress(OSError, ValueError):
                real.add(os.path.realpath(root))
        return Trees(frozenset(found), frozenset(real))

    def checked(self) -> frozenset[str]:
        """Every tree the run checks: the roots given and the projects they belong to. Nothing
        in them is trusted as hwlint's own (the cache key, say): a pull request can commit any
        file there."""
        return (self.roots or frozenset()) | self.projects

    def link_refusal(self, real: str) -> str | None:
        """Why a symlink resolving to *real* is not read, or None."""
        if real.startswith(_PSEUDO):
            return "a symlink to a special file; not read"
        roots = self.roots if self.roots is not None else {os.path.realpath(os.getcwd())}
        if not any(under(real, r, itself=True) for r in roots):
            return "a symlink to a file outside the checked tree; not read"
        return None


#: The trees of a run given no paths (a library call): a symlink is read only into the current
#: directory's tree, and no tree is checked beyond it.
NONE_GIVEN = Trees()
