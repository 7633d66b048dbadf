"""A ruff-style result cache: per file, bound to its content hash and to everything that shapes a result.

Each kind of value (the checker's findings, hwselect's selections, the report's summaries) lives in
its own file under ``.hwlint_cache/``, named after the hwlint version, a digest of its code
(:func:`code_digest`), the taxonomy digest and the kind with its options (``--max-file-size``,
selector runners...), so a command loads only what it reads. The same key is written inside the
file and checked on load, so a renamed file is foreign.

The cache directory may come with the code being checked (a pull request can commit one), so
nothing in it is trusted:

* the format is JSON, which cannot execute code, and every value is rebuilt from it against its
  declared type (:func:`decoder`): an entry of the wrong shape is a miss, never a crash;
* an entry is used only for the exact content it was computed from (SHA-256 of the whole
  content). A file is read and hashed unless its hash was kept with its stamp (:meth:`Cache.stamp`:
  size, mtime, ctime, inode and device) and the file has that stamp still. A stamp is kept only
  when the file had last changed two seconds before it was read, and did not change while it was
  read: a later change of its content sets its ctime, which no program can set back (``touch``
  sets the mtime only), to a later tick. This is git's rule for its index (a file rewritten
  within one tick of the filesystem's clock at the same size would keep its stamp). An mtime
  and a size alone prove nothing;
* the file carries a MAC keyed by a secret kept outside the tree (``$XDG_CACHE_HOME/hwlint/
  cache-key``, created on first use, mode 0600). A cache written by anyone without that key,
  however plausible its entries ("this content has no findings"), is ignored and rewritten.

Beside the key, :func:`remember` keeps, under the same MAC, what every command derives alike from
one input (the values of a taxonomy's YAML, by the text's hash).

Saving writes a temporary file in the same directory and renames it over the old one, so two runs
at once never leave a torn file (the last one wins). A run that stored a few entries (a file
edited since the last run) writes them to a delta file beside the kind's file, not the whole
kind again (:class:`_Store`). A directory the cache creates gets a
``CACHEDIR.TAG`` (backup tools skip it) and a ``.gitignore`` of ``*`` (it is never committed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import sys
import types
import typing
from collections import Counter
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from stat import S_ISREG
from typing import Any

from .. import __version__
from ..keystore import UNREAD, key_or_refusal, read_regular, read_signed, write_signed
from ..model.source import Stamp, stamp_of
from ..roots import NONE_GIVEN, Trees

CACHE_DIR_NAME = ".hwlint_cache"
#: The kind under which each file's content hash is kept with its stamp
STAMPS = "stamps"
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by hwlint.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


def code_digest(package: str | None = None) -> str:
    """A digest of the code that computes the values: every ``.py`` file of the package at
    *package* (default: hwlint's own, computed once per process), by relative path and content.

    A cached value is only as good as the code that made it: two commits of hwlint both call
    themselves 0.1.0, and an editable install changes under the cache without a new version."""
    if package is None:
        return _own_code_digest()
    h = hashlib.sha256()
    files = []
    for top, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [os.path.join(top, n) for n in names if n.endswith(".py")]
    for path in sorted(files):
        with open(path, "rb") as f:
            data = f.read()
        rel = os.path.relpath(path, package).replace(os.sep, "/")
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:32]


@functools.cache
def _own_code_digest() -> str:
    return code_digest(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def content_hash(data: bytes) -> str:
    """128 bits of the SHA-256 of *data* (twice as fast as blake2b where the CPU has SHA extensions)."""
    return hashlib.sha256(data).hexdigest()[:32]


# ---------------------------------------------------------------------------------------------
# Values <-> JSON, checked against their declared types


class InvalidEntry(Exception):
    """A cached value that does not have the shape of its type."""


def encode(value: Any) -> Any:
    """*value* as plain JSON data: a dataclass is the list of its fields, in order.

    Raises TypeError for anything JSON would not give back as it was (a non-string key, a set...)."""
    if value is None or type(value) in (str, int, bool, float):
        return value
    names = _field_names.get(type(value))
    if names is not None:
        return [encode(getattr(value, name)) for name in names]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if not all(type(k) is str for k in value):
            raise TypeError("cached mappings need string keys")
        return {k: encode(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        _field_names[type(value)] = tuple(f.name for f in _cached_fields(value))
        return encode(value)
    raise TypeError(f"cannot cache a {type(value).__name__}")


_field_names: dict[type, tuple[str, ...]] = {}  # dataclass -> the names of its cached fields


_decoders: dict[Any, Callable[[Any], Any]] = {}


def decoder(tp: Any) -> Callable[[Any], Any]:
    """A function that rebuilds a value of type *tp* from :func:`encode`'s output, raising
    InvalidEntry for data of any other shape. Types: str, int, bool, float, None, unions, list,
    tuple, dict with str keys, Counter (str -> int), a bare dict (any JSON object), enums (by value)
    and dataclasses of these."""
    found = _decoders.get(tp)
    if found is None:
        found = _decoders[tp] = _make_decoder(tp)
    return found


def _bad(what: str) -> InvalidEntry:
    return InvalidEntry(f"expected {what}")


def _scalar(tp: type) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if type(v) is not tp:
            raise _bad(tp.__name__)
        return v

    return check


def _make_decoder(tp: Any) -> Callable[[Any], Any]:
    if tp is None or tp is type(None):
        return _scalar(type(None))
    if tp in (str, int, bool):
        return _scalar(tp)
    if tp is float:
        return lambda v: float(v) if type(v) in (int, float) else _raise(_bad("float"))
    if tp is Counter:
        return _counter
    if tp is dict:  # a free-form JSON object (a ruff-style fix description): only its kind is checked
        return lambda v: v if type(v) is dict else _raise(_bad("an object"))
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _union(args)
    if origin is list:
        item = decoder(args[0])
        return lambda v: list(map(item, v)) if type(v) is list else _raise(_bad("a list"))
    if origin is tuple:
        return _tuple(args)
    if origin is dict and args and args[0] is str:
        value = decoder(args[1])
        return lambda v: {k: value(x) for k, x in v.items()} if type(v) is dict else _raise(_bad("a mapping"))
    if dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum(tp)
    return lambda v: _raise(_bad(f"nothing: {tp!r} is not cached"))


def _raise(e: Exception) -> Any:
    raise e


def _enum(tp: type[Enum]) -> Callable[[Any], Any]:
    members = {m.value: m for m in tp}

    def member(v: Any) -> Any:
        if type(v) is not str or v not in members:
            raise _bad(f"a {tp.__name__}")
        return members[v]

    return member


def _counter(v: Any) -> Counter:
    if type(v) is not dict or not all(type(n) is int for n in v.values()):
        raise _bad("a mapping of counts")
    return Counter(v)


def _union(args: tuple) -> Callable[[Any], Any]:
    options = [a for a in args if a is not type(None)]
    optional = len(options) < len(args)
    if len(options) == 1:
        only = decoder(options[0])
        return lambda v: None if v is None and optional else only(v)
    decoders = [decoder(a) for a in options]

    def first(v: Any) -> Any:
        if v is None and optional:
            return None
        for d in decoders:
            try:
                return d(v)
            except InvalidEntry:
                continue
        raise _bad(" or ".join(map(str, options)))

    return first


def _tuple(args: tuple) -> Callable[[Any], Any]:
    if len(args) == 2 and args[1] is Ellipsis:
        item = decoder(args[0])
        return lambda v: tuple(map(item, v)) if type(v) is list else _raise(_bad("a list"))
    # (str, str | None) name pairs by the thousand: compiled, as a dataclass's decoder is
    items = [(f"[{i}]", a) for i, a in enumerate(args)]
    return _compile(f"a list of {len(args)}", items, lambda xs: f"({', '.join(xs)},)" if xs else "()", {})


def _cached_fields(cls: Any) -> list[dataclasses.Field]:
    """The fields a cache entry holds: a field left out of equality (an index, a resolver) is
    derived, or belongs to one run, and is rebuilt by the dataclass itself."""
    return [f for f in dataclasses.fields(cls) if f.compare]


def _dataclass(cls: type) -> Callable[[Any], Any]:
    built: list[Callable[[Any], Any]] = []

    def build(v: Any) -> Any:
        if not built:  # compiled on first use: dataclasses may refer to each other
            built.append(_compile_dataclass(cls))
        return built[0](v)

    return build


# A field of one of these types is checked inline by a compiled decoder: no call per field.
_INLINE = {str: "type({x}) is str", int: "type({x}) is int", bool: "type({x}) is bool"}


def _compile_dataclass(cls: type) -> Callable[[Any], Any]:
    """A decoder for the dataclass *cls*, compiled from its cached fields' types (as dataclasses
    compiles its own ``__init__``): a cache of PyTorch's tests rebuilds 12,000 objects per warm run,
    most of whose fields are strings and numbers that a call per field would cost more to check."""
    hints = typing.get_type_hints(cls)
    cached = _cached_fields(cls)
    names = [f.name for f in cached]
    positional = [f.name for f in dataclasses.fields(cls) if f.init][: len(cached)] == names

    def make(xs: list[str]) -> str:
        return f"cls({', '.join(xs if positional else (f'{n}={x}' for n, x in zip(names, xs, strict=True)))})"

    items = [(f".{f.name}", hints[f.name]) for f in cached]
    return _compile(f"{cls.__name__} fields", items, make, {"cls": cls})


def _compile(
    what: str, items: list[tuple[str, Any]], make: Callable[[list[str]], str], namespace: dict[str, Any]
) -> Callable[[Any], Any]:
    """A decoder of a JSON list of ``len(items)`` values, each (label, type) of *items* checked as its
    type says (a string, number or flag inline, anything else by its own decoder), that returns the
    expression *make* writes over the checked values' expressions."""
    namespace = {**namespace, "_bad": _bad}
    body = [f"    if type(v) is not list or len(v) != {len(items)}:", f"        raise _bad({what!r})"]
    if items:
        body.append(f"    {''.join(f'x{i}, ' for i in range(len(items)))}= v")
    args = []
    for i, (label, tp) in enumerate(items):
        x = f"x{i}"
        options = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
        scalars = [o for o in options if o is not type(None)]
        if len(scalars) == 1 and scalars[0] in _INLINE:
            test = _INLINE[scalars[0]].format(x=x)
            if len(scalars) < len(options):
                test = f"{x} is None or {test}"
            body += [f"    if not ({test}):", f"        raise _bad({what + label!r})"]
            args.append(x)
        else:
            namespace[f"d{i}"] = decoder(tp)
            args.append(f"d{i}({x})")
    body.append(f"    return {make(args)}")
    # the source comes from type hints, never from cached data
    exec("def build(v):\n" + "\n".join(body), namespace)
    return namespace["build"]


# ---------------------------------------------------------------------------------------------


class _Store:
    """The entries of one kind, loaded on first use: path -> [content hash, encoded value].

    They live in two signed files: the base, and beside it a delta of the entries stored since the
    base was written. A run that stores a few entries (files edited since the last run) rewrites
    the delta only; once the delta holds more than :data:`DELTA_SHARE` of the entries, the base is
    written whole and the delta removed. Either file, unreadable, foreign or torn, counts for
    nothing, and is replaced."""

    def __init__(self, path: Path, header: dict, key: bytes | None):
        self.path = path
        self.delta_path = delta_path(path)
        self.header = header
        self.entries: dict[str, Any] = {}
        self.delta: dict[str, Any] = {}  # the entries of the delta file, then those stored since
        self.stored = False  # whether this run stored an entry
        self.rewrite = False  # whether the base must be written whole (not read as it was written)
        if key is None:
            return
        base = self._read(path, key)
        if base is None:
            self.rewrite = True
            return
        self.entries = base
        delta = self._read(self.delta_path, key)
        if delta is None:
            self.rewrite = True  # a delta of no use (no base under it, or not ours) goes
        else:
            self.delta = delta
            self.entries.update(delta)

    def _read(self, path: Path, key: bytes) -> dict | None:
        """The entries of *path*: {} when there is no such file, None when it is not this kind's
        file signed with *key* (another version, taxonomy or kind; a planted or torn file)."""
        loaded = read_signed(path, key, UNREAD)
        if loaded is UNREAD:
            return {}
        if type(loaded) is not dict or loaded.get("key") != self.header:
            return None
        entries = loaded.get("entries")
        return entries if type(entries) is dict else None

    @property
    def dirty(self) -> bool:
        return self.stored or (self.rewrite and (self.path.exists() or self.delta_path.exists()))

    def put(self, name: str, entry: list) -> None:
        self.entries[name] = self.delta[name] = entry
        self.stored = True

    def write(self, key: bytes) -> None:
        """Write what changed: the delta alone, or the base whole (raises OSError)."""
        if self.rewrite or len(self.delta) > DELTA_SHARE * len(self.entries):
            write_signed(self.path, key, {"key": self.header, "entries": self.entries})
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.delta_path)
            self.delta = {}
        else:
            write_signed(self.delta_path, key, {"key": self.header, "entries": self.delta})
        self.stored = self.rewrite = False


#: The share of a kind's entries its delta file may hold before the base is written whole
DELTA_SHARE = 0.125


def delta_path(path: Path) -> Path:
    """The delta file beside the base file *path* of a kind."""
    return path.with_suffix(".delta" + path.suffix)


class Cache:
    """Cached per-file values for one taxonomy. Not thread-safe; one per process."""

    def __init__(
        self, directory: Path, taxonomy_digest: str, code: str | None = None, trees: Trees = NONE_GIVEN
    ):
        """*code*: the digest of the code whose values are kept (default: :func:`code_digest`);
        *trees*: those the run checks, where its key is not trusted (:func:`~hwlint.keystore.secret`)."""
        self.directory = Path(directory)
        self.taxonomy_digest = taxonomy_digest
        self.python = f"{sys.implementation.name}-{'.'.join(map(str, sys.version_info[:3]))}"
        self.code = code or code_digest()
        self.prefix = f"{__version__}-{self.code[:12]}-{taxonomy_digest[:20]}"
        self._key, self.key_problem = key_or_refusal(trees)  # why the cache is off, when it is
        self._stores: dict[str, _Store] = {}
        self._keys: dict[str, str] = {}

    def path_for(self, kind: str) -> Path:
        """The file that holds the values of *kind*."""
        tag = hashlib.blake2b(f"{self.python}\0{kind}".encode(), digest_size=5).hexdigest()
        return self.directory / f"{self.prefix}-{tag}.json"

    def entries(self, kind: str) -> dict[str, Any]:
        return self._store(kind).entries

    def _store(self, kind: str) -> _Store:
        store = self._stores.get(kind)
        if store is None:
            header = {
                "hwlint": __version__,
                "code": self.code,
                "python": self.python,
                "taxonomy": self.taxonomy_digest,
                "kind": kind,
            }
            store = self._stores[kind] = _Store(self.path_for(kind), header, self._key)
        return store

    @property
    def key_refused(self) -> bool:
        """Whether the cache is off because its key could not be had (:attr:`key_problem` says why)."""
        return self._key is None

    @property
    def dirty(self) -> bool:
        """Whether :meth:`save` has something to write."""
        return any(s.dirty for s in self._stores.values())

    def key(self, path: str) -> str:
        """An entry's key: the file's absolute path (remembered: a run asks for each file's twice)."""
        found = self._keys.get(path)
        if found is None:
            found = self._keys[path] = os.path.abspath(path)
        return found

    def get(self, path: str, sha: str, kind: str, value_type: Any) -> Any | None:
        """The value cached for *path* when its content hash is *sha*, else None.

        An entry that does not decode as *value_type* is a miss (and is replaced by the next store)."""
        entry = self._entry(path, sha, kind)
        if entry is None:
            return None
        try:
            return decoder(value_type)(entry[1])
        except Exception:  # InvalidEntry, or a dataclass refusing the values
            return None

    def written_ns(self, kind: str) -> int | None:
        """When the values of *kind* were last written (ns since the epoch), None when they never were."""
        path = self.path_for(kind)
        times = []
        for written in (path, delta_path(path)):
            with contextlib.suppress(OSError):
                times.append(os.stat(written).st_mtime_ns)
        return max(times) if times else None

    def has(self, path: str, sha: str, kind: str) -> bool:
        """Whether a value is kept for *path* with content hash *sha* (it may still not decode)."""
        return self._entry(path, sha, kind) is not None

    def _entry(self, path: str, sha: str, kind: str) -> list | None:
        entry = self.entries(kind).get(self.key(path))
        return entry if type(entry) is list and len(entry) == 2 and entry[0] == sha else None

    def stamped_hash(self, path: str, max_bytes: int, st: os.stat_result | None = None) -> str | None:
        """The content hash of the file at *path* kept with its :data:`~hwlint.model.source.Stamp`
        (:meth:`stamp`), when the file, a regular file of at most *max_bytes*, still has that
        stamp; else None, and the file is read. *st*: the file's ``lstat``, when the caller has it."""
        entry = self.entries(STAMPS).get(self.key(path))
        if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not str:
            return None
        if st is None:
            try:
                st = os.lstat(path)
            except (OSError, ValueError):
                return None
        if not S_ISREG(st.st_mode) or st.st_size > max_bytes or entry[1] != list(stamp_of(st)):
            return None
        return entry[0]

    def stamp(self, path: str, sha: str, stamp: Stamp) -> None:
        """Keep the content hash *sha* of the file at *path* with the stamp it had when read (one
        :func:`~hwlint.model.source.read_stamped` says stands for the bytes)."""
        self.store(path, sha, STAMPS, stamp)

    def store(self, path: str, sha: str, kind: str, value: Any) -> None:
        """Keep *value* for *path* with content hash *sha*; a value JSON cannot hold is not kept."""
        try:
            encoded = encode(value)
        except TypeError:
            return
        self._store(kind).put(self.key(path), [sha, encoded])

    def save(self) -> None:
        """Write every changed kind atomically; a cache that cannot be written is skipped, never an error."""
        if self._key is None:
            return
        for store in self._stores.values():
            if store.dirty:
                try:
                    self.directory.mkdir(parents=True, exist_ok=True)
                    for name, text in _MARKERS:
                        _ensure(self.directory / name, text.encode())
                    store.write(self._key)
                except OSError:
                    pass


_MARKERS = ((".gitignore", "# Automatically created by hwlint.\n*\n"), ("CACHEDIR.TAG", _CACHEDIR_TAG))


def _ensure(path: Path, content: bytes) -> None:
    """Make *path* a regular file holding *content*, written whole or not at all (a temporary file
    renamed over it): a full disk once left an empty ``.gitignore``, which no later run replaced,
    and the cache was no longer git-ignored. A marker that is a symlink is replaced, never followed."""
    if read_regular(path, len(content) + 1) == content:
        return
    from ..effects import write_atomic

    write_atomic(path, content)


def open_cache(
    taxonomy_digest: str,
    root: Path,
    directory: str | None = None,
    disabled: bool = False,
    trees: Trees = NONE_GIVEN,
):
    """The cache for a run: *directory*, else $HWLINT_CACHE_DIR, else .hwlint_cache under *root*
    (the directory of the configuration). None when *disabled* (--no-cache), and when the default
    directory is a symlink (it came with the tree, and would have hwlint write wherever it points).
    *trees*: those the run checks (:class:`Cache`)."""
    if disabled:
        return None
    chosen = directory or os.environ.get("HWLINT_CACHE_DIR")
    if not chosen:
        chosen = Path(root) / CACHE_DIR_NAME
        if chosen.is_symlink():
            return None
    return Cache(Path(chosen), taxonomy_digest, trees=trees)
