"""What discovery leaves out that pytest collects: test files under a default exclusion pytest does
not share, and behind a directory symlink (which discovery does not follow: a link may lead out of
the checkout). Neither is checked; each such directory is named, once, on stderr (issue 47, 10)."""

from __future__ import annotations

import operator
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Config

#: The default exclusions pytest does not share: its ``norecursedirs`` (``.*``, ``build``, ``dist``,
#: ``node_modules``, ``venv``, ``*.egg``...) and its virtualenv check skip every other name above, but
#: it collects a test file under these. A pull request's tracked test files there are named on stderr.
COLLECTED_BY_PYTEST = ("__pypackages__", "__pycache__", "site-packages")
#: How many entries behind a directory symlink (or under such an exclusion) discovery looks at for
#: a test file before it names the link anyway (the target may be a whole file system).
SCAN_ENTRIES = 2_000

_name = operator.attrgetter("name")


def first_test_file(path: str, cfg: Config) -> str | None:
    """The first file under *path* the include patterns name (relative to *path*), within
    :data:`SCAN_ENTRIES` entries (links inside it not followed); ``""`` when the scan stopped
    first, None when there is none."""
    stack, seen = [path], 0
    while stack and seen < SCAN_ENTRIES:
        try:
            with os.scandir(stack.pop()) as it:
                entries = sorted(it, key=_name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif cfg.is_included(entry.name):
                    return os.path.relpath(entry.path, path)
            except OSError:
                continue
    return "" if stack else None


def behind_link(path: str, cfg: Config) -> str | None:
    """Why the directory symlink *path* is named (None: no test file behind it)."""
    found = first_test_file(path, cfg)
    if found is None:
        return None
    if found:
        return (
            f"a directory symlink hwlint does not follow (it may lead out of the checkout); "
            f"pytest collects the test files behind it ({found}...)"
        )
    return (
        f"a directory symlink hwlint does not follow (it may lead out of the checkout); pytest collects "
        f"any test files behind it (more than {SCAN_ENTRIES:,} entries, not searched)"
    )


def tracked_tests(entry: os.DirEntry, cfg: Config) -> str | None:
    """Why the excluded directory *entry* is named (None: it is not): a default exclusion pytest
    does not share (:data:`COLLECTED_BY_PYTEST`) under which git tracks a file the include patterns
    name: a test file the pull request commits, which pytest collects. git is asked only when a
    scan finds such a file (a ``__pycache__`` of bytecode costs no git call)."""
    if entry.name not in COLLECTED_BY_PYTEST or entry.name not in cfg.exclude:
        return None
    if first_test_file(entry.path, cfg) is None:
        return None
    from ..effects import git
    from .config import GIT_TIMEOUT

    out = git(["ls-files", "-z"], entry.path, GIT_TIMEOUT)
    if not out:
        return None  # not in a work tree, or nothing tracked: an environment's files, not the checkout's
    tracked = os.fsdecode(out).split("\0")
    found = next((p for p in tracked if p and cfg.is_included(os.path.basename(p))), None)
    if found is None:
        return None
    return (
        f"excluded by default ({entry.name}); pytest collects the test files git tracks there "
        f"({found}...): an `exclude` without it checks them"
    )
