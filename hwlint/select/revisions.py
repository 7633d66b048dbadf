"""A revision's test files, read out of git without checking it out and without running anything.

``hwselect diff --base REV`` reads the files of REV as blobs: ``git ls-tree`` lists them and
``git cat-file --batch`` reads them into a temporary directory. Neither applies filters,
attributes or hooks; every git call goes through :func:`hwlint.effects.git`, which reads only the
work tree's own repository and pins off what its configuration could make git run (hooks,
fsmonitor, a pager), ignoring the caller's ``GIT_*`` environment. Only regular ``.py`` files are
written; a symlink, a submodule or a path that would leave the directory is skipped.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .. import effects

#: git answers a whole-tree ls-tree or cat-file of a large repository in seconds
GIT_TIMEOUT = 300


class RevisionError(Exception):
    """A revision that cannot be read (not a git work tree, an unknown revision)."""


def git(args: Sequence[str], cwd: str, stdin: bytes | None = None) -> bytes:
    """``git ARGS`` in *cwd* through :func:`hwlint.effects.git` (the checkout's repository only,
    with what its configuration could make git run pinned off); its stdout, or RevisionError."""
    out = effects.git(args, cwd, GIT_TIMEOUT, data=stdin)
    if out is None:
        raise RevisionError(f"git {args[0]} failed in {cwd}")
    return out


def toplevel(path: str) -> str:
    """The top of the git work tree holding *path* (a file or a directory)."""
    found = effects.work_tree(path)
    if found is None:
        raise RevisionError(f"{path}: not in a git work tree (give --base-tree and --head-tree instead)")
    return found[0]


def export_tree(top: str, rev: str, paths: Sequence[str], dest: str) -> list[str]:
    """Write the ``.py`` files of *rev* under *paths* (relative to *top*; ``.``: all) into *dest*;
    the paths written, relative to *dest*."""
    try:
        commit = os.fsdecode(
            git(["rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}"], top).strip()
        )
    except RevisionError as e:
        raise RevisionError(f"{rev}: not a commit of the git work tree at {top} ({e})") from None
    listing = git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", *paths], top)
    blobs = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        path = os.fsdecode(name)
        if kind != b"blob" or mode not in (b"100644", b"100755") or not path.endswith(".py"):
            continue
        parts = path.split("/")
        if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            continue
        blobs.append((sha, path))
    if not blobs:
        return []
    data = git(["cat-file", "--batch"], top, stdin=b"".join(sha + b"\n" for sha, _ in blobs))
    at = 0
    written = []
    for sha, path in blobs:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        if len(header) != 3 or header[0] != sha:
            raise RevisionError(f"git cat-file: unexpected answer for {path}")
        size = int(header[2])
        body = data[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
        target = os.path.join(dest, *path.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        effects.write_atomic(target, body)
        written.append(path)
    return written
