"""What a finding's fix is, as ruff has it: an applicability, a message, and edits of the file's text.

A rule builds its finding's :class:`Fix` (through :class:`~hwlint.edits.builder.EditBuilder`); the
fixer only orders, merges and applies the edits. Both records are plain data: a finding and its fix
are cached and shipped between processes as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Applicability(StrEnum):
    """How sure a fix is (ruff's words; the values are what the JSON output and the cache hold)."""

    #: Applied by ``--fix``.
    SAFE = "safe"
    #: Applied with ``--unsafe-fixes`` too.
    UNSAFE = "unsafe"
    #: The rule knows no fix, and its reason says why.
    NONE = "none"


#: What an edit does, which decides whether the model of the fixed text can follow from the
#: original's parse (:mod:`hwlint.fix.remodel`): a declaration on a line of its own first in a class
#: body (``line``/``col``: the class's place); an import on a new line; a name added to the import
#: statement that starts at ``line``; a replacement within one line; a module-level statement on
#: lines of its own after the statement ending at ``line``; anything else (placed by ast-grep, or
#: across lines), after which the fixed text is parsed again.
DECLARE, IMPORT_LINE, IMPORT_NAME, REWRITE, STATEMENT, TEXT = (
    "declare",
    "import-line",
    "import-name",
    "rewrite",
    "statement",
    "text",
)


@dataclass(frozen=True, slots=True)
class Edit:
    """Characters [start_pos, end_pos) of a text replaced by *inserted_text* (ast-grep's shape), with
    what the edit does (*role*, *line*, *col*: see :data:`DECLARE`...). Edits of one *key* are one
    edit, however many fixes carry it: the import two declarations need is written once."""

    start_pos: int
    end_pos: int
    inserted_text: str
    role: str = TEXT
    line: int = 0
    col: int = 0
    key: str = ""


@dataclass(frozen=True, slots=True)
class Fix:
    """A finding's fix: its *applicability* (:attr:`Applicability.NONE` when there is none), what
    it does (*message*, ruff's), why (*reason*: the inference's rule and evidence), and its *edits*,
    or None when the check that found it did not build them (a check that fixes nothing does not pay
    for them)."""

    applicability: Applicability
    message: str = ""
    reason: str = ""
    edits: tuple[Edit, ...] | None = None
    # what went wrong building the edits (a bug in hwlint): the fixer leaves the file alone and says so
    error: str = ""

    @property
    def applicable(self) -> bool:
        return self.applicability != Applicability.NONE

    def enabled(self, unsafe: bool) -> bool:
        """Whether ``--fix`` applies it (``--unsafe-fixes`` given or not)."""
        return self.applicability == Applicability.SAFE or (unsafe and self.applicable)

    def describe(self) -> str:
        """One line for ``--show-fixes``, ``--diff`` and lintrunner: what, how safe, and why."""
        if not self.applicable:
            return f"no fix: {self.reason}"
        return f"{self.message} ({self.applicability}; {self.reason})" if self.reason else self.message
