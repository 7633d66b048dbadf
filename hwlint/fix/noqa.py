"""``hwlint check --add-noqa``: silence today's findings in place, ruff's migration path for a team
that wants a clean run now and fixes later.

Each reported line gets ``# noqa: CODE[,CODE]`` (merged into a noqa directive already there). Findings
without a line of their own in a parsed file (HWC900, HWC901, HWC902) are left: a comment cannot
silence them. A directive is written only where it is one: after the line's last token, never in
a string that runs past the line's end; the file's tree must stay the same and each directive must
then read as one (:mod:`hwlint.model.noqa`), else the line is left and a warning names it. Files
are written as ``--fix`` writes them: atomically, and never when they changed on disk meanwhile.
"""

from __future__ import annotations

import ast
import warnings as _warnings
from collections import defaultdict
from collections.abc import Iterable

from ..model import decode_source, split_lines
from ..model.noqa import comments, directive, noqa_directives, ruff_directive
from ..model.source import read_source
from ..roots import Trees
from ..rules.check import WHOLE_FILE, Finding

UNSILENCEABLE = WHOLE_FILE


def add_noqa(findings: Iterable[Finding], trees: Trees) -> tuple[int, list[str], int]:
    """Add the directives; returns (directives added, warnings naming files or lines left alone,
    how many files keep a finding no directive silences)."""
    from .write import encode_checked, write_if_unchanged

    by_file: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for f in findings:
        if f.code not in UNSILENCEABLE and f.line > 0:
            by_file[f.path][f.line].add(f.code)
    added, warnings, failed = 0, [], 0
    for path, lines in sorted(by_file.items()):
        data = read_source(path, trees=trees)
        if isinstance(data, str):
            warnings.append(f"{path}: {data}; no noqa added")
            failed += 1
            continue
        try:
            text, encoding = decode_source(data)
        except (SyntaxError, UnicodeDecodeError, LookupError) as e:
            warnings.append(f"{path}: cannot decode the file ({e}); no noqa added")
            failed += 1
            continue
        new_text, n, refused = noqa_text(text, lines)
        for row in refused:
            warnings.append(f"{path}:{row}: a noqa comment cannot go on this line; left unchanged")
        failed += bool(refused)
        if not n:
            continue
        new, error = encode_checked(new_text, encoding, path)
        if new is not None:
            error = write_if_unchanged(path, data, new)
        if error:
            warnings.append(f"{path}: {error}")
            failed += not refused
            continue
        added += n
    return added, warnings, failed


def noqa_text(text: str, codes_by_line: dict[int, set[str]]) -> tuple[str, int, list[int]]:
    """*text* with the directives added, how many lines changed, and the lines that could not
    take one (a string or a continuation runs past their end, or their comment would not read as
    a directive)."""
    try:
        tree = _parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text, 0, sorted(codes_by_line)
    lines = split_lines(text)
    rows = [row for row in sorted(codes_by_line) if 0 < row <= len(lines)]
    found = comments(lines, tree, [row for row in rows if "#" in lines[row - 1]])
    edits: dict[int, str] = {}
    refused = []
    for row in rows:
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        comment = found.get(row)
        if comment is not None and body.endswith(comment):
            new = _with_directive(body[: len(body) - len(comment)], comment, codes_by_line[row])
        elif body.endswith("\\"):  # a comment would end the continuation
            new = None
        else:
            new = f"{body}  # noqa: {', '.join(sorted(codes_by_line[row]))}"
        if new is None:
            refused.append(row)
        elif new != body:
            edits[row] = new + line[len(body) :]
    if not edits:
        return text, 0, refused
    if not _still_right(text, tree, lines, edits, codes_by_line):
        kept: dict[int, str] = {}
        for row in sorted(edits):  # one by one: which lines refuse a comment at their end
            if _still_right(text, tree, lines, {**kept, row: edits[row]}, codes_by_line):
                kept[row] = edits[row]
            else:
                refused.append(row)
        edits = kept
    out = list(lines)
    for row, new_line in edits.items():
        out[row - 1] = new_line
    return "".join(out), len(edits), sorted(refused)


def _with_directive(code: str, comment: str, codes: set[str]) -> str | None:
    """The line *code* + *comment* with *codes* silenced: the comment unchanged when it already
    silences them, its directive's codes merged, or a directive added before it."""
    existing = directive(comment)
    if existing is not None and (not existing or all(_covered(c, existing) for c in codes)):
        return code + comment
    found = ruff_directive(comment)
    if existing is not None and found is not None:
        start, end, listed = found
        merged = ", ".join(sorted({*listed, *codes}))
        return f"{code}{comment[:start]}# noqa: {merged}{comment[end:]}"
    written = f"# noqa: {', '.join(sorted(codes))}"
    for new in (f"{comment}  {written}", f"{written}  {comment}"):
        got = directive(new)
        if got is not None and (not got or all(_covered(c, got) for c in codes)):
            return code.rstrip(" \t\f") + "  " + new if new.startswith(written) else code + new
    return None


def _covered(code: str, prefixes: tuple[str, ...]) -> bool:
    return any(code.startswith(p) for p in prefixes)


def _parse(text: str) -> ast.Module:
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except UnicodeEncodeError:  # a UTF-8 file's stray bytes in comments: CPython reads its bytes
            return ast.parse(text.encode("utf-8", "surrogateescape"))


def _still_right(
    text: str, tree: ast.Module, lines: list[str], edits: dict[int, str], codes_by_line: dict[int, set[str]]
) -> bool:
    """Whether *text* with *edits* (row -> new line) has the same tree (a comment changes none;
    text added inside a string would) and a directive silencing its codes on each edited row."""
    out = list(lines)
    for row, new_line in edits.items():
        out[row - 1] = new_line
    try:
        new_tree = _parse("".join(out))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if ast.dump(new_tree) != ast.dump(tree):
        return False
    found = dict(noqa_directives(out, new_tree))
    for row in edits:
        got = found.get(row)
        if got is None or (got and not all(_covered(c, got) for c in codes_by_line[row])):
            return False
    return True
