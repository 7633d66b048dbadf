"""What hwlint keeps for a user between runs, signed so that nobody else can plant it: the MAC key
(:func:`secret`, kept outside every checked tree, mode 0600) and JSON values written and read under
it (:func:`write_signed`, :func:`read_signed`; :func:`remember` for what every command derives
alike from one input, such as a parsed taxonomy).

It sits at the bottom of the package, beside :mod:`hwlint.roots`, because the taxonomy loader keeps
its parse here and the result cache (:mod:`hwlint.pipeline.cache`) signs its files with the same key.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import stat
from pathlib import Path
from typing import Any

from .roots import Trees, under

MAGIC = b"hwlint-cache-4"
KEY_FILE_ENV = "HWLINT_CACHE_KEY_FILE"


def key_file() -> Path:
    """Where the cache's MAC key lives: $HWLINT_CACHE_KEY_FILE, else $XDG_CACHE_HOME/hwlint/cache-key."""
    explicit = os.environ.get(KEY_FILE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hwlint" / "cache-key"


KEY_MIN_BYTES, KEY_MAX_BYTES = 16, 64


def secret(trees: Trees) -> bytes | None:
    """The MAC key, created (32 random bytes, mode 0600) when missing; None when it cannot be had
    or is not to be trusted (:func:`key_or_refusal` says why), which turns the cache off."""
    return key_or_refusal(trees)[0]


def key_or_refusal(trees: Trees) -> tuple[bytes | None, str | None]:
    """The MAC key (:func:`secret`) and, when it is None, why it was refused (a front end may say
    so). *trees*: those the run checks, where no key is trusted."""
    path = key_file()
    problem = _misplaced(path, trees)
    if problem is not None:
        return None, problem
    for _ in range(2):
        key, problem = _read_key(path)
        if key is None and problem == "missing":
            _create_key(path)
            continue
        return key, problem
    return None, problem if problem != "missing" else f"{path}: cannot be created"


def _misplaced(path: Path, trees: Trees) -> str | None:
    """Why a key at *path* is not to be trusted for where it is: inside the tree being checked
    (a pull request can commit ``.cache/hwlint/cache-key`` and a cache signed with it, when CI's
    ``$HOME`` or ``$XDG_CACHE_HOME`` lies in its workspace), or in a directory another user may
    write to. None when it is fine."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return f"{path}: cannot be resolved"
    for tree in sorted(trees.checked()):
        if under(real, tree):
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

    from .effects import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # linked in, never renamed over: a key another process created meanwhile is kept
        write_atomic(path, secrets.token_bytes(32), 0o600, replace=False)
    except OSError:
        pass


def mac(key: bytes, body: bytes) -> bytes:
    """The signature of *body* under *key* (hex, as it is written after the magic)."""
    return hashlib.blake2b(body, key=key[:64], digest_size=32).hexdigest().encode()


def remembered(name: str, trees: Trees) -> Any | None:
    """The JSON value kept under *name* beside the key (:func:`remember`), if this user's key
    signed it; None otherwise. For what every command derives from the same input, such as a
    parsed taxonomy, keyed by that input's hash. *trees*: those the run checks (see :func:`secret`)."""
    key = secret(trees)
    return read_signed(key_file().with_name(f"{name}.json"), key) if key is not None else None


def remember(name: str, value: Any, trees: Trees) -> None:
    """Keep the JSON *value* under *name* beside the key, signed with it; nothing when there is
    no key or the directory cannot be written. *trees*: those the run checks (see :func:`secret`)."""
    key = secret(trees)
    if key is not None:
        with contextlib.suppress(OSError):
            write_signed(key_file().with_name(f"{name}.json"), key, value)


UNREAD = object()  # what read_signed returns for a file that is not there


def read_signed(path: Path, key: bytes, missing: Any = None) -> Any:
    """The JSON value of *path* if *key* signed it: None when it is not, or not JSON; *missing*
    when there is no such regular file."""
    data = read_regular(path)
    if data is None:
        return missing
    first, _, body = data.partition(b"\n")
    magic, _, signature = first.partition(b" ")
    if magic != MAGIC or not hmac.compare_digest(signature, mac(key, body)):
        return None  # not written by us with this key
    try:
        return json.loads(body)
    except ValueError:
        return None


def write_signed(path: Path, key: bytes, value: Any) -> None:
    """Write the JSON *value* to *path*, signed with *key*: to a temporary file beside it, renamed
    over it (raises OSError)."""
    from .effects import write_atomic  # a warm run writes nothing

    body = json.dumps(value, separators=(",", ":")).encode()
    write_atomic(path, MAGIC + b" " + mac(key, body) + b"\n" + body, 0o600)


#: The largest cache file read: a planted 4 GB store was read whole before its MAC was checked.
#: PyTorch's test tree (1,080 files) keeps 1.6 MB of findings and 8 MB of report summaries.
MAX_STORE_BYTES = 256 * 1024 * 1024


def read_regular(path: Path, limit: int = MAX_STORE_BYTES) -> bytes | None:
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
