"""A ruff-style result cache: per file, keyed by content hash, taxonomy hash and hwlint version.

Each kind of value (the checker's findings, hwselect's selections, the report's summaries) lives in
its own pickle under ``.hwlint_cache/``, named after the hwlint version, the taxonomy digest and the
kind, so a command loads only what it reads. A lookup is a ``stat``: an entry whose (mtime, size)
still match is used as is. When they differ, the file is read and hashed; an unchanged hash (a
touched file) reuses the entry. Saving writes a temporary file in the same directory and renames it
over the old one, so two runs at once never leave a torn file (the last one wins); a corrupt,
truncated or foreign cache file is ignored and rewritten.
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

_MAGIC = "hwlint-cache-3"
CACHE_DIR_NAME = ".hwlint_cache"


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass
class Entry:
    mtime_ns: int
    size: int
    sha: str
    value: Any


class _Store:
    """The entries of one kind, loaded on first use."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, Entry] = {}
        self.dirty = False
        try:
            with open(path, "rb") as f:
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


class Cache:
    """Cached per-file values for one taxonomy. Not thread-safe; one per process."""

    def __init__(self, directory: Path, taxonomy_digest: str):
        self.directory = directory
        self.prefix = f"{__version__}-{taxonomy_digest[:20]}"
        self._stores: dict[str, _Store] = {}

    def path_for(self, kind: str) -> Path:
        """The file that holds the values of *kind*."""
        tag = hashlib.blake2b(kind.encode(), digest_size=5).hexdigest()
        return self.directory / f"{self.prefix}-{tag}.pickle"

    def entries(self, kind: str) -> dict[str, Entry]:
        return self._store(kind).entries

    def _store(self, kind: str) -> _Store:
        store = self._stores.get(kind)
        if store is None:
            store = self._stores[kind] = _Store(self.path_for(kind))
        return store

    @property
    def dirty(self) -> bool:
        return any(s.dirty for s in self._stores.values())

    @staticmethod
    def key(path: str) -> str:
        return os.path.abspath(path)

    def lookup(self, path: str, kind: str) -> Any | None:
        """The cached value if the file's (mtime, size) are unchanged, else None."""
        entry = self.entries(kind).get(self.key(path))
        if entry is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        if (st.st_mtime_ns, st.st_size) != (entry.mtime_ns, entry.size):
            return None
        return entry.value

    def known_hash(self, path: str, kind: str) -> str | None:
        """The content hash of the cached entry for *path*, if there is one."""
        entry = self.entries(kind).get(self.key(path))
        return entry.sha if entry is not None else None

    def value_for_hash(self, path: str, kind: str, sha: str) -> Any | None:
        entry = self.entries(kind).get(self.key(path))
        if entry is not None and entry.sha == sha:
            return entry.value
        return None

    def store(self, path: str, mtime_ns: int, size: int, sha: str, kind: str, value: Any) -> None:
        store = self._store(kind)
        store.entries[self.key(path)] = Entry(mtime_ns, size, sha, value)
        store.dirty = True

    def save(self) -> None:
        """Write every changed kind atomically; a cache that cannot be written is skipped, never an error."""
        for store in self._stores.values():
            if store.dirty and self._write(store):
                store.dirty = False

    def _write(self, store: _Store) -> bool:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gitignore = self.directory / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("# Automatically created by hwlint.\n*\n")
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as f:
                    pickle.dump((_MAGIC, store.entries), f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, store.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            return False
        return True


def open_cache(taxonomy_digest: str, root: Path, directory: str | None = None, disabled: bool = False):
    """The cache for a run: *directory*, else $HWLINT_CACHE_DIR, else .hwlint_cache under *root*
    (the directory of the configuration). None when *disabled* (--no-cache)."""
    if disabled:
        return None
    chosen = directory or os.environ.get("HWLINT_CACHE_DIR") or root / CACHE_DIR_NAME
    return Cache(Path(chosen), taxonomy_digest)
