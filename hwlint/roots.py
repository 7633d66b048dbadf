"""The trees this process checks (:func:`allow_roots`, :func:`note_project`, :func:`checked_trees`).

A symbolic link is read only into them (:func:`link_refusal`, which
:func:`hwlint.model.source.read_source` asks), and nothing in them is trusted as hwlint's own
(:mod:`hwlint.keystore` keeps its key elsewhere). The state is per process; a spawned worker is
handed it (:func:`allowed_roots`, :func:`restore_roots`). It sits at the bottom of the package
because both the file model and the key store ask it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

#: The real paths of the trees being checked (None: the current directory's). A symlink is read
#: only when its target lies in one of them.
_roots: set[str] | None = None


_PSEUDO = ("/proc/", "/sys/", "/dev/")  # files there are the kernel's, whatever their mode says


def under(path: str, tree: str, itself: bool = False) -> bool:
    """Whether *path* lies below the directory *tree*, compared as spelled (resolve both first);
    with *itself*, *tree* itself counts too."""
    return (itself and path == tree) or path.startswith(tree.rstrip(os.sep) + os.sep)


def allow_roots(paths: Sequence[str]) -> None:
    """Add the trees under *paths* (a directory, or the directory a named file is in), as given on
    the command line, to those a symlink may point into (discovery calls this). Roots add up:
    a process that checks several trees reads links into each, never into others."""
    global _roots
    found = set() if _roots is None else set(_roots)
    for p in paths:
        try:
            base = p if os.path.isdir(p) else os.path.dirname(p) or "."
            if linked_away(base) is None:  # a link out of the checkout makes no tree of its target
                found.add(os.path.realpath(base))
        except (OSError, ValueError):
            continue
    _roots = found


def linked_away(path: str) -> str | None:
    """Why *path*, as named, is not read: a symlink to a directory on its way below the current
    directory (the named directory itself, ``test -> /home/ci``, or one above it) leads out of
    the current directory's tree, where a pull request's link may point anywhere. None when it
    does not (a named file that is itself a symlink is judged when it is read, by
    :func:`link_refusal`)."""
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


_projects: set[str] = set()  # the directories of the configurations that govern the run


def allowed_roots() -> set[str] | None:
    """The roots :func:`allow_roots` gave (None: none yet, so the current directory), for a worker."""
    return _roots


def restore_roots(roots: set[str] | None) -> None:
    """In a spawned worker, the roots of the process that started it (it does not inherit them)."""
    global _roots
    _roots = roots


def note_project(root: str) -> None:
    """Add a configuration's directory (the project being checked) to :func:`checked_trees`."""
    with contextlib.suppress(OSError, ValueError):
        _projects.add(os.path.realpath(root))


def checked_trees() -> set[str]:
    """Every tree this process checks: the roots given (:func:`allow_roots`) and the projects
    they belong to (:func:`note_project`). Nothing in them is trusted as hwlint's own (the cache
    key, say): a pull request can commit any file there."""
    return (_roots or set()) | _projects


def link_refusal(real: str) -> str | None:
    """Why a symlink resolving to *real* is not read, or None."""
    if real.startswith(_PSEUDO):
        return "a symlink to a special file; not read"
    roots = _roots if _roots is not None else {os.path.realpath(os.getcwd())}
    if not any(under(real, r, itself=True) for r in roots):
        return "a symlink to a file outside the checked tree; not read"
    return None
