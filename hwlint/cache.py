"""A ruff-style result cache: per file, keyed by content hash, taxonomy hash and hwlint version.

Entries live in one pickle per (hwlint version, taxonomy digest) under ``.hwlint_cache/``. A lookup is
a ``stat``: an entry whose (mtime, size) still match is used as is. When they differ, the file is
read and hashed; an unchanged hash (a touched file) reuses the entry. Saving writes a temporary file
in the same directory and renames it over the old one, so two runs at once never leave a torn file
(the last one wins); a corrupt, truncated or foreign cache file is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__

_MAGIC = "hwlint-cache-1"
CACHE_DIR_NAME = ".hwlint_cache"


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass
class Entry:
    mtime_ns: int
    size: int
    sha: str
    values: dict[str, Any]  # kind ("check", "select", ...) -> cached value


class Cache:
    """Cached per-file values for one taxonomy. Not thread-safe; one per process."""

    def __init__(self, directory: Path, taxonomy_digest: str):
        self.directory = directory
        self.path = directory / f"{__version__}-{taxonomy_digest[:20]}.pickle"
        self.entries: dict[str, Entry] = {}
        self.dirty = False
        self._load()

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as f:
                magic, entries = pickle.load(f)
        except FileNotFoundError:
            return
        except Exception:  # any unreadable cache is simply rebuilt
            self.dirty = True
            return
        if magic != _MAGIC or not isinstance(entries, dict):
            self.dirty = True
            return
        self.entries = entries

    @staticmethod
    def key(path: str) -> str:
        return os.path.abspath(path)

    def lookup(self, path: str, kind: str) -> Any | None:
        """The cached value if the file's (mtime, size) are unchanged, else None."""
        entry = self.entries.get(self.key(path))
        if entry is None or kind not in entry.values:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        if (st.st_mtime_ns, st.st_size) != (entry.mtime_ns, entry.size):
            return None
        return entry.values[kind]

    def known_hash(self, path: str, kind: str) -> str | None:
        """The content hash of the cached entry for *path*, if it has a value of *kind*."""
        entry = self.entries.get(self.key(path))
        return entry.sha if entry is not None and kind in entry.values else None

    def value_for_hash(self, path: str, kind: str, sha: str) -> Any | None:
        entry = self.entries.get(self.key(path))
        if entry is not None and entry.sha == sha:
            return entry.values.get(kind)
        return None

    def store(self, path: str, mtime_ns: int, size: int, sha: str, kind: str, value: Any) -> None:
        key = self.key(path)
        entry = self.entries.get(key)
        if entry is None or entry.sha != sha:
            entry = Entry(mtime_ns, size, sha, {})
            self.entries[key] = entry
        entry.mtime_ns, entry.size = mtime_ns, size
        entry.values[kind] = value
        self.dirty = True

    def save(self) -> None:
        """Write atomically; a cache that cannot be written is skipped, never an error."""
        if not self.dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gitignore = self.directory / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("# Automatically created by hwlint.\n*\n")
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as f:
                    pickle.dump((_MAGIC, self.entries), f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            return
        self.dirty = False


def open_cache(taxonomy_digest: str, root: Path, directory: str | None = None, disabled: bool = False):
    """The cache for a run: *directory*, else $HWLINT_CACHE_DIR, else .hwlint_cache under *root*
    (the directory of the configuration). None when *disabled* (--no-cache)."""
    if disabled:
        return None
    chosen = directory or os.environ.get("HWLINT_CACHE_DIR") or root / CACHE_DIR_NAME
    return Cache(Path(chosen), taxonomy_digest)
