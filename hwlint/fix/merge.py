"""Ordering and merging the edits of a file's fixes, as ruff's applier does.

Fixes are taken in the order of their findings. A fix whose edits collide with an edit already taken
(overlapping text, or a second insertion at the same place) waits for the next pass, when the file
is checked again and its rule builds it anew on the fixed text. An edit carrying the *key* of one
already taken (the import two declarations need) is that edit: it is written once. Two new import
lines at one place are both written, in the order they were taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..edits import EditBuilder, apply_edits
from ..edits.records import IMPORT_LINE, Edit
from ..edits.text import check_disjoint, merge_insertions
from ..model import ClassInfo, FileModel
from ..rules.check import Finding
from ..taxonomy import Taxonomy


def choose(findings: Iterable[Finding], unsafe: bool) -> tuple[list[Finding], list[Edit]]:
    """The findings whose fixes are applied together in one pass, and their edits, deduplicated
    by key, in the order they were taken; fixes that are not enabled, not built, or collide with
    one taken before are left for the next pass."""
    taken: list[Finding] = []
    edits: list[Edit] = []
    keys: set[str] = set()
    for f in findings:
        fix = f.fix
        if fix is None or not fix.enabled(unsafe) or not fix.edits:
            continue
        own = [e for e in fix.edits if not (e.key and e.key in keys)]
        if any(_collide(e, other) for e in own for other in edits):
            continue
        taken.append(f)
        edits += own
        keys.update(e.key for e in own if e.key)
    return taken, edits


def _collide(a: Edit, b: Edit) -> bool:
    """Whether two edits of different fixes cannot both be made: they replace overlapping text, or
    both insert at one place (but two new import lines, which are written one after the other)."""
    if a.start_pos == a.end_pos == b.start_pos == b.end_pos:
        return not (a.role == b.role == IMPORT_LINE)
    return (
        (a.start_pos < b.end_pos and b.start_pos < a.end_pos)
        or (a.start_pos == a.end_pos and b.start_pos < a.start_pos < b.end_pos)
        or (b.start_pos == b.end_pos and a.start_pos < b.start_pos < a.end_pos)
    )


def merged(edits: Sequence[Edit]) -> list[Edit]:
    """*edits* sorted and disjoint, insertions at one place joined in the order they were taken."""
    out = merge_insertions(list(edits))
    check_disjoint(out)
    return out


def insert_declarations(
    source: str, model: FileModel, taxonomy: Taxonomy, wanted: Sequence[tuple[ClassInfo, str]]
) -> str:
    """*source* with ``<attribute> = <enum>.<member>`` declared in each class of *wanted*, the enum
    imported once when no import binds it yet. *model* must be the model of *source*."""
    builder = EditBuilder(source, model, taxonomy)
    edits: list[Edit] = []
    keys: set[str] = set()
    for cls, member in sorted(wanted, key=lambda w: (w[0].site.line, w[0].site.col)):
        for e in builder.declare(cls, member):
            if not (e.key and e.key in keys):
                edits.append(e)
                keys.add(e.key)
    return apply_edits(source, merged(edits))
