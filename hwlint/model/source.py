"""A file's source: its bytes read as safely as a checked tree allows (:func:`read_source`: a size
cap, regular files only, a symbolic link only into the trees being checked), and decoded as CPython
decodes them (:func:`decode_source`: BOM, PEP 263 cookie, stray bytes in comments).

Every layer that reads a checked file reads it here; which trees a symbolic link may point into is
:class:`hwlint.roots.Trees`' to say (the session's: every reader is handed them).
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import time
import tokenize

from ..roots import Trees


def decode_source(data: bytes) -> tuple[str, str]:
    """Decode file bytes as Python does (BOM, PEP 263 cookie). Returns (text, encoding).

    A UTF-8 file whose bytes are not all UTF-8 still decodes (each stray byte a lone surrogate,
    ``surrogateescape``, so that encoding the text gives the bytes back): CPython's ``compile()``,
    and so ``import`` and pytest, accept such bytes in a comment. Whether they are only there,
    :func:`parse_file` asks CPython. Raises SyntaxError (a bad cookie) or UnicodeDecodeError."""
    return decode_strict(data)[:2]


# tokenize's cookie_re and blank_re, on bytes: CPython reads the cookie from the raw line
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)


_BLANK = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)", re.ASCII)


def _raw_cookie(data: bytes) -> str | None:
    """The encoding a cookie names on the first or second line (the second only after a blank or
    comment line), read from the bytes as CPython does: the line need not be UTF-8."""
    for line in data.splitlines(keepends=True)[:2]:
        m = _COOKIE.match(line)
        if m:
            return m.group(1).decode("ascii")
        if not _BLANK.match(line):
            return None
    return None


def decode_strict(data: bytes) -> tuple[str, str, bool]:
    """(text, encoding, strict): *strict* is False when UTF-8 bytes did not all decode."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        # detect_encoding also refuses first lines that are not UTF-8, which compile() takes when
        # they are comments: only a cookie it cannot read stays an error
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            named = _raw_cookie(data)
            if named is None:
                return data.decode("utf-8", "surrogateescape"), "utf-8", False
            encoding = codecs.lookup(named).name  # LookupError: an unknown encoding
            if encoding != "utf-8":
                return data.decode(encoding), encoding, True
            return data.decode("utf-8", "surrogateescape"), "utf-8", False
        raise
    try:
        return data.decode(encoding), encoding, True
    except UnicodeDecodeError:
        if encoding not in ("utf-8", "utf-8-sig"):
            raise
        return data.decode(encoding, "surrogateescape"), encoding, False


MAX_FILE_BYTES = 10 * 1024 * 1024


def read_source(path: str, max_bytes: int = MAX_FILE_BYTES, *, trees: Trees) -> bytes | str:
    """The file's bytes, or a one-line reason it cannot be read.

    Files over *max_bytes* are refused: parsing costs about 15 bytes of memory per byte of source,
    and one generated 50 MB file must not take the whole run down with it. Only regular files are
    read, and a symbolic link only to a file inside the run's *trees* (:class:`hwlint.roots.Trees`) and
    outside /proc, /sys and /dev: a pull request's ``test_env.py -> /proc/self/environ`` or
    ``test_netrc.py -> ~/.netrc`` would have its target's text parsed and echoed into the log.
    """
    return read_stamped(path, max_bytes, trees=trees)[0]


#: A file's identity and state as ``stat`` gives them: size, mtime and ctime (ns), inode, device.
Stamp = tuple[int, int, int, int, int]

#: How long before a read a file must have last changed for its :data:`Stamp` to stand for the
#: bytes read (git's "racily clean" entries): a file written again within one tick of the
#: filesystem's clock, at the same size, would keep its stamp. Two seconds cover the coarsest
#: clocks (FAT, some network filesystems).
SETTLED_NS = 2_000_000_000


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def read_stamped(
    path: str, max_bytes: int = MAX_FILE_BYTES, *, trees: Trees
) -> tuple[bytes | str, Stamp | None]:
    """:func:`read_source`, with the :data:`Stamp` of the file read when it stands for the bytes:
    a regular file (not a link), unchanged while it was read, whose last change (its ctime, which
    no program sets at will, and its mtime) came :data:`SETTLED_NS` before the read began.
    Otherwise None."""
    link = False
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            link = True
            real = os.path.realpath(path)
            refused = trees.link_refusal(real)
            if refused:
                return refused, None
            path = real  # opened as resolved: a link changed meanwhile is not followed elsewhere
    except (OSError, ValueError):
        pass  # the open below says why (missing, too long, a NUL in the name)
    began = time.time_ns()
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except IsADirectoryError:
        return "Is a directory", None
    except OSError as e:
        return e.strerror or str(e), None
    except ValueError:  # a NUL in the path (from a lintrunner paths file, say)
        return "the path holds a NUL character", None
    try:
        st = os.fstat(fd)
        kind = file_kind(st.st_mode)
    except OSError as e:
        os.close(fd)
        return e.strerror or str(e), None
    if kind is not None:  # a directory opens for reading too, and fdopen would raise
        os.close(fd)
        return (kind if kind == "Is a directory" else f"not a regular file ({kind})"), None
    with os.fdopen(fd, "rb") as f:
        # read(n) allocates n bytes before it reads: ask for what fstat says, plus one byte that
        # shows a file grown since (then read on, up to one byte past the cap)
        want = min(st.st_size, max_bytes) + 1
        try:
            data = f.read(want)
            if len(data) == want and want <= max_bytes:
                data += f.read(max_bytes + 1 - want)
            after = os.fstat(fd)
        except OSError as e:
            return e.strerror or str(e), None
    if len(data) > max_bytes:
        return f"the file is larger than the {max_bytes // (1024 * 1024)} MB limit (--max-file-size)", None
    stamp = stamp_of(st)
    settled = max(st.st_mtime_ns, st.st_ctime_ns) < began - SETTLED_NS
    whole = len(data) == st.st_size and stamp_of(after) == stamp
    return data, stamp if settled and whole and not link else None


def file_kind(mode: int) -> str | None:
    """None for a regular file, else what it is: reading a FIFO or a device may never end."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in (
        (stat.S_ISDIR, "Is a directory"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return kind
    return "special file"
