"""Writing a fixed file: refused when it would not compile, atomic (a temporary file in the same
directory, then ``os.replace``), and only when the file is what it was when it was read."""

from __future__ import annotations

import os
import stat
import tempfile
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model import FileModel
from ..roots import under

if TYPE_CHECKING:
    from .outcome import FixResult


def future_displaced(before: FileModel, after: FileModel) -> bool:
    """Whether an import the fix added or changed may come before a ``from __future__`` import of
    the fixed file, which then fails to compile. (Every other statement a fix adds is in a class
    body or after a class, which a compiling file has after its ``__future__`` imports.)"""
    futures = [i.site.end_line for i in after.imports if i.module == "__future__"]
    if not futures:
        return False
    unchanged = Counter((i.module, i.names) for i in before.imports)
    for i in after.imports:
        if unchanged[i.module, i.names] > 0:
            unchanged[i.module, i.names] -= 1
        elif i.site.line <= max(futures):
            return True
    return False


def compile_error(text: str, path: str) -> str | None:
    """Why *text* does not compile, if it does not. Compiling catches what parsing lets through,
    such as a ``from __future__`` import that is no longer first."""
    try:
        with warnings.catch_warnings():  # the file's own warnings (invalid escapes...) are not ours
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        return f"{type(e).__name__}: {getattr(e, 'msg', e)}"
    except RecursionError:
        return None  # too deep to compile here; the parse above already passed
    return None


_UTF8 = frozenset({"utf-8", "utf-8-sig"})


def encode_checked(text: str, encoding: str, path: str) -> tuple[bytes | None, str | None]:
    """(*text* as the bytes of a file in *encoding*, None), or (None, why it cannot be written).

    What is checked is the bytes, as Python will read them: with an encoding other than UTF-8 the
    bytes must decode back (cookie and all) to *text* exactly, and compile. ``mac_arabic`` encodes
    a space as 0xA0, so the cookie line is no cookie any more and the file no longer compiles;
    ``idna`` cannot encode a whole file at all. UTF-8 gives back what it encodes, so UTF-8 files
    (nearly all) skip the second decoding and the compile."""
    from ..model import decode_source

    stray = False
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as e:
        # a UTF-8 file's stray bytes (in comments) were decoded to lone surrogates: they go back as
        # they were, and the bytes are checked like any other encoding's
        try:
            if encoding not in _UTF8:
                raise
            data, stray = text.encode(encoding, "surrogateescape"), True
        except UnicodeError:
            return None, f"the fixed text cannot be encoded as {encoding} ({_why(e)}); left unchanged"
    except (UnicodeError, LookupError) as e:
        return None, f"the fixed text cannot be encoded as {encoding} ({_why(e)}); left unchanged"
    if encoding in _UTF8 and not stray:
        return data, None
    try:
        back, _ = decode_source(data)
    except (SyntaxError, UnicodeError, LookupError) as e:
        back, why = None, _why(e)
    else:
        why = "it reads back as other text"
    if back != text:
        return None, f"the fixed file would not read back in its encoding {encoding} ({why}); left unchanged"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        reason = f"{type(e).__name__}: {getattr(e, 'msg', e)}"
        return None, f"the fixed file would not compile as {encoding} ({reason}); left unchanged"
    except (RecursionError, MemoryError):
        pass  # too deep to compile here: the text itself was checked
    return data, None


def _why(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


STALE_TEMP_SECONDS = 60


_CONFLICT = "the file changed on disk while hwlint was fixing it; left unchanged"


def write_fixed(result: FixResult, roots: Sequence[str] = ()) -> bool:
    """Write the fixed file (see :func:`write_if_unchanged`). False (and ``result.error``) when it
    cannot be done safely; the file is then left as it is."""
    assert result.after is not None and result.plan.data is not None
    result.error = write_if_unchanged(result.plan.path, result.plan.data, result.after.data, roots)  # type: ignore[arg-type]
    return result.error is None


def write_if_unchanged(path: str, original: bytes, new: bytes, roots: Sequence[str] = ()) -> str | None:
    """Replace *path*'s contents *original* with *new*; the reason when it did not.

    * The new text goes to a temporary file in the file's directory; the file's content and stat
      are compared again just before ``os.replace``: an edit made meanwhile is a conflict, never
      overwritten (the window left is the few microseconds between that check and the rename).
    * The temporary file gets the file's mode, owner and group; when they cannot be kept, the file
      is left alone.
    * A file with several hard links is rewritten in place (after the same check), so that every
      link sees the fix.
    * A symlink is followed only to a file inside *roots* (the checked paths; default: the current
      directory): a link out of the tree is not written through.
    * Temporary files (``.hwlint-*.tmp``) older than a minute, left by a killed run, are removed.
    """
    link = path
    path = os.path.realpath(link)  # replace the target of a symlink, not the link
    directory = os.path.dirname(path) or "."
    _remove_stale_temps(directory)
    if os.path.islink(link) and not _inside(path, roots or (os.getcwd(),)):
        return "a symlink to a file outside the checked tree; left unchanged"
    try:
        before = os.stat(path)
        if _read(path) != original:
            return _CONFLICT
        mode = stat.S_IMODE(before.st_mode)
        if not mode & 0o222:
            # os.replace would succeed (it needs only the directory), and root may write anything:
            # the mode is the owner's word that the file is not to be changed.
            return "the file is read-only; left unchanged"
        if before.st_nlink > 1:
            return _rewrite_in_place(path, before, original, new)
        fd, tmp = tempfile.mkstemp(prefix=".hwlint-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(new)  # the file's own encoding
                out.flush()
                os.fchmod(out.fileno(), mode)
                if (before.st_uid, before.st_gid) != (os.getuid(), os.getgid()):
                    os.fchown(out.fileno(), before.st_uid, before.st_gid)
            if _changed_since(path, before, original):
                os.unlink(tmp)
                return _CONFLICT
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except PermissionError as e:
        return f"cannot write the fixed file with its owner and mode kept: {e.strerror or e}"
    except OSError as e:
        return f"cannot write the fixed file: {e.strerror or e}"
    return None


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _changed_since(path: str, before: os.stat_result, data: bytes | None) -> bool:
    """True when *path* is no longer the file that was read (stat or content differ). This is the
    last look before the rename; tests hook it to land an edit in between."""
    now = os.stat(path)
    same = (now.st_ino, now.st_dev, now.st_size, now.st_mtime_ns, now.st_ctime_ns) == (
        before.st_ino,
        before.st_dev,
        before.st_size,
        before.st_mtime_ns,
        before.st_ctime_ns,
    )
    return not same or _read(path) != data


def _rewrite_in_place(path: str, before: os.stat_result, original: bytes, new: bytes) -> str | None:
    """Write *new* into the file itself, keeping its inode and so every hard link to it."""
    with open(path, "r+b") as f:
        if _changed_since(path, before, original):
            return _CONFLICT
        f.write(new)
        f.truncate()
    return None


def _inside(path: str, roots: Sequence[str]) -> bool:
    """Whether *path* (resolved) lies under one of *roots*: a checked directory, or the directory a
    checked file is named in (the file itself may be the link)."""
    for root in roots:
        base = os.path.realpath(root if os.path.isdir(root) else os.path.dirname(root) or ".")
        if under(path, base):
            return True
    return False


#: directory -> when this process last removed its stale temporary files
_CLEANED: dict[str, float] = {}


def _remove_stale_temps(directory: str) -> None:
    """Remove the temporary files a killed ``--fix`` left in *directory* (a live one is younger).
    A directory looked at less than :data:`STALE_TEMP_SECONDS` ago is not listed again: what was
    stale then is gone, and the rest was not yet (a whole-tree fix of PyTorch's test/ writes 804
    files in a hundred directories, and listed a directory for each file)."""
    import glob
    import time

    now = time.time()
    last = _CLEANED.get(directory)
    if last is not None and now - last < STALE_TEMP_SECONDS:
        return
    _CLEANED[directory] = now
    limit = now - STALE_TEMP_SECONDS
    for tmp in glob.glob(os.path.join(glob.escape(directory), ".hwlint-*.tmp")):
        try:
            st = os.lstat(tmp)
            if stat.S_ISREG(st.st_mode) and st.st_mtime < limit:
                os.unlink(tmp)
        except OSError:
            continue
