"""A file's bytes decoded as CPython decodes them (BOM, PEP 263 cookie, stray bytes in comments)."""

from __future__ import annotations

import codecs
import io
import re
import tokenize


def decode_source(data: bytes) -> tuple[str, str]:
    """Decode file bytes as Python does (BOM, PEP 263 cookie). Returns (text, encoding).

    A UTF-8 file whose bytes are not all UTF-8 still decodes (each stray byte a lone surrogate,
    ``surrogateescape``, so that encoding the text gives the bytes back): CPython's ``compile()``,
    and so ``import`` and pytest, accept such bytes in a comment. Whether they are only there,
    :func:`parse_file` asks CPython. Raises SyntaxError (a bad cookie) or UnicodeDecodeError."""
    return _decode(data)[:2]


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


def _decode(data: bytes) -> tuple[str, str, bool]:
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
