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
* an entry is used only for the exact content it was computed from: every run reads and hashes
  each file (SHA-256 of the whole content); an mtime and a size prove nothing;
* the file carries a MAC keyed by a secret kept outside the tree (``$XDG_CACHE_HOME/hwlint/
  cache-key``, created on first use, mode 0600). A cache written by anyone without that key,
  however plausible its entries ("this content has no findings"), is ignored and rewritten.

Beside the key, :func:`remember` keeps, under the same MAC, what every command derives alike from
one input (the values of a taxonomy's YAML, by the text's hash).

Saving writes a temporary file in the same directory and renames it over the old one, so two runs
at once never leave a torn file (the last one wins). A directory the cache creates gets a
``CACHEDIR.TAG`` (backup tools skip it) and a ``.gitignore`` of ``*`` (it is never committed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import hmac
import json
import os
import stat
import sys
import types
import typing
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import __version__

_MAGIC = b"hwlint-cache-4"
CACHE_DIR_NAME = ".hwlint_cache"
KEY_FILE_ENV = "HWLINT_CACHE_KEY_FILE"
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
    tuple, dict with str keys, Counter (str -> int), a bare dict (any JSON object) and dataclasses of
    these."""
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
    return lambda v: _raise(_bad(f"nothing: {tp!r} is not cached"))


def _raise(e: Exception) -> Any:
    raise e


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
# The secret that makes a cache file ours


def key_file() -> Path:
    """Where the cache's MAC key lives: $HWLINT_CACHE_KEY_FILE, else $XDG_CACHE_HOME/hwlint/cache-key."""
    explicit = os.environ.get(KEY_FILE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hwlint" / "cache-key"


#: Why the key was refused, when it was (a front end may say so): None when it was not.
key_problem: str | None = None
KEY_MIN_BYTES, KEY_MAX_BYTES = 16, 64


def _secret() -> bytes | None:
    """The MAC key, created (32 random bytes, mode 0600) when missing; None when it cannot be had
    or is not to be trusted (:func:`_key_refusal`), which turns the cache off for the run."""
    global key_problem
    path = key_file()
    key_problem = _misplaced(path)
    if key_problem is not None:
        return None
    for _ in range(2):
        key, key_problem = _read_key(path)
        if key is None and key_problem == "missing":
            key_problem = None
            _create_key(path)
            continue
        return key
    key_problem = key_problem or f"{path}: cannot be created"
    return None


def _misplaced(path: Path) -> str | None:
    """Why a key at *path* is not to be trusted for where it is: inside the tree being checked
    (a pull request can commit ``.cache/hwlint/cache-key`` and a cache signed with it, when CI's
    ``$HOME`` or ``$XDG_CACHE_HOME`` lies in its workspace), or in a directory another user may
    write to. None when it is fine."""
    from ..model.source import checked_trees

    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return f"{path}: cannot be resolved"
    for tree in checked_trees():
        if real.startswith(tree.rstrip(os.sep) + os.sep):
            return f"{path} lies inside the checked tree {tree}: a key there may come with the code"
    try:
        st = os.stat(os.path.dirname(real))
    except OSError:
        return None  # created below, with mode 0700
    if st.st_uid not in (os.geteuid(), 0) or (st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX):
        return f"{os.path.dirname(real)}: another user may write to it"
    return None


def _read_key(path: Path) -> tuple[bytes | None, str | None]:
    """(the key, None), or (None, why not): "missing", or the check it fails. A key is a regular
    file (not a symlink: /dev/zero cost 2.6 GB; not a FIFO: it hung), of this user, readable and
    writable by nobody else, of 16 to 64 bytes; what is read is bounded before reading."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None, "missing"
    except OSError as e:
        why = "a symlink" if os.path.islink(path) else (e.strerror or str(e))
        return None, f"{path}: {why}; the key must be a regular file"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, f"{path}: not a regular file"
        if st.st_uid != os.geteuid():
            return None, f"{path}: owned by another user"
        if st.st_mode & 0o077:
            return None, f"{path}: mode {stat.S_IMODE(st.st_mode):04o}; the key must be 0600"
        if not KEY_MIN_BYTES <= st.st_size <= KEY_MAX_BYTES:
            return None, f"{path}: {st.st_size} bytes; a key has {KEY_MIN_BYTES} to {KEY_MAX_BYTES}"
        key = os.read(fd, KEY_MAX_BYTES + 1)
    except OSError as e:
        return None, f"{path}: {e.strerror or e}"
    finally:
        os.close(fd)
    if not KEY_MIN_BYTES <= len(key) <= KEY_MAX_BYTES:
        return None, f"{path}: {len(key)} bytes; a key has {KEY_MIN_BYTES} to {KEY_MAX_BYTES}"
    return key, None


def _create_key(path: Path) -> None:
    import secrets  # once per user: not worth importing on every run
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".cache-key-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
            os.link(tmp, path)  # never replaces a key another process created meanwhile
        finally:
            os.unlink(tmp)
    except OSError:
        pass


def _mac(key: bytes, body: bytes) -> bytes:
    return hashlib.blake2b(body, key=key[:64], digest_size=32).hexdigest().encode()


def remembered(name: str) -> Any | None:
    """The JSON value kept under *name* beside the key (:func:`remember`), if this user's key
    signed it; None otherwise. For what every command derives from the same input, such as a
    parsed taxonomy, keyed by that input's hash."""
    key = _secret()
    return _read_signed(key_file().with_name(f"{name}.json"), key) if key is not None else None


def remember(name: str, value: Any) -> None:
    """Keep the JSON *value* under *name* beside the key, signed with it; nothing when there is
    no key or the directory cannot be written."""
    key = _secret()
    if key is not None:
        with contextlib.suppress(OSError):
            _write_signed(key_file().with_name(f"{name}.json"), key, value)


_UNREAD = object()  # what _read_signed returns for a file that is not there


def _read_signed(path: Path, key: bytes, missing: Any = None) -> Any:
    """The JSON value of *path* if *key* signed it: None when it is not, or not JSON; *missing*
    when there is no such regular file."""
    data = _read_regular(path)
    if data is None:
        return missing
    first, _, body = data.partition(b"\n")
    magic, _, mac = first.partition(b" ")
    if magic != _MAGIC or not hmac.compare_digest(mac, _mac(key, body)):
        return None  # not written by us with this key
    try:
        return json.loads(body)
    except ValueError:
        return None


def _write_signed(path: Path, key: bytes, value: Any) -> None:
    """Write the JSON *value* to *path*, signed with *key*: to a temporary file beside it, renamed
    over it (raises OSError)."""
    import tempfile  # a warm run writes nothing

    body = json.dumps(value, separators=(",", ":")).encode()
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + b" " + _mac(key, body) + b"\n" + body)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------------------------


class _Store:
    """The entries of one kind, loaded on first use: path -> [content hash, encoded value]."""

    def __init__(self, path: Path, header: dict, key: bytes | None):
        self.path = path
        self.header = header
        self.entries: dict[str, Any] = {}
        self.dirty = False
        if key is None:
            return
        loaded = _read_signed(path, key, _UNREAD)
        if loaded is _UNREAD:
            self.dirty = path.exists()
            return
        # not signed with this key, or written for another version, taxonomy or kind: rewritten
        if type(loaded) is not dict or loaded.get("key") != header or type(loaded.get("entries")) is not dict:
            self.dirty = True
            return
        self.entries = loaded["entries"]


#: The largest cache file read: a planted 4 GB store was read whole before its MAC was checked.
#: PyTorch's test tree (1,080 files) keeps 1.6 MB of findings and 8 MB of report summaries.
MAX_STORE_BYTES = 256 * 1024 * 1024


def _read_regular(path: Path, limit: int = MAX_STORE_BYTES) -> bytes | None:
    """The bytes of *path* if it is a regular file (not a symlink, FIFO or device) of at most
    *limit* bytes, else None: the size is checked before anything is read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)  # a file grown since fstat is refused too
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


class Cache:
    """Cached per-file values for one taxonomy. Not thread-safe; one per process."""

    def __init__(self, directory: Path, taxonomy_digest: str, code: str | None = None):
        """*code*: the digest of the code whose values are kept (default: :func:`code_digest`)."""
        self.directory = Path(directory)
        self.taxonomy_digest = taxonomy_digest
        self.python = f"{sys.implementation.name}-{'.'.join(map(str, sys.version_info[:3]))}"
        self.code = code or code_digest()
        self.prefix = f"{__version__}-{self.code[:12]}-{taxonomy_digest[:20]}"
        self._key = _secret()
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
        """Whether the cache is off because its key could not be had (:data:`key_problem` says why)."""
        return self._key is None

    @property
    def dirty(self) -> bool:
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
        try:
            return os.stat(self.path_for(kind)).st_mtime_ns
        except OSError:
            return None

    def has(self, path: str, sha: str, kind: str) -> bool:
        """Whether a value is kept for *path* with content hash *sha* (it may still not decode)."""
        return self._entry(path, sha, kind) is not None

    def _entry(self, path: str, sha: str, kind: str) -> list | None:
        entry = self.entries(kind).get(self.key(path))
        return entry if type(entry) is list and len(entry) == 2 and entry[0] == sha else None

    def store(self, path: str, sha: str, kind: str, value: Any) -> None:
        """Keep *value* for *path* with content hash *sha*; a value JSON cannot hold is not kept."""
        try:
            encoded = encode(value)
        except TypeError:
            return
        store = self._store(kind)
        store.entries[self.key(path)] = [sha, encoded]
        store.dirty = True

    def save(self) -> None:
        """Write every changed kind atomically; a cache that cannot be written is skipped, never an error."""
        if self._key is None:
            return
        for store in self._stores.values():
            if store.dirty and self._write(store, self._key):
                store.dirty = False

    def _write(self, store: _Store, key: bytes) -> bool:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            for name, text in _MARKERS:
                _ensure(self.directory / name, text.encode())
            _write_signed(store.path, key, {"key": store.header, "entries": store.entries})
        except OSError:
            return False
        return True


_MARKERS = ((".gitignore", "# Automatically created by hwlint.\n*\n"), ("CACHEDIR.TAG", _CACHEDIR_TAG))


def _ensure(path: Path, content: bytes) -> None:
    """Make *path* a regular file holding *content*, written whole or not at all (a temporary file
    renamed over it): a full disk once left an empty ``.gitignore``, which no later run replaced,
    and the cache was no longer git-ignored. A marker that is a symlink is replaced, never followed."""
    if _read_regular(path, len(content) + 1) == content:
        return
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def open_cache(taxonomy_digest: str, root: Path, directory: str | None = None, disabled: bool = False):
    """The cache for a run: *directory*, else $HWLINT_CACHE_DIR, else .hwlint_cache under *root*
    (the directory of the configuration). None when *disabled* (--no-cache), and when the default
    directory is a symlink (it came with the tree, and would have hwlint write wherever it points)."""
    if disabled:
        return None
    chosen = directory or os.environ.get("HWLINT_CACHE_DIR")
    if not chosen:
        chosen = Path(root) / CACHE_DIR_NAME
        if chosen.is_symlink():
            return None
    return Cache(Path(chosen), taxonomy_digest)
