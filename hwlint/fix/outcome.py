"""What a check run leaves for its front end: each file's findings and plan, and with fixes,
what was fixed. Kept apart from :mod:`hwlint.fix.apply`, whose machinery a check that fixes nothing
never imports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..edits import Applicability

if TYPE_CHECKING:
    from ..model import FileModel, Parse
    from ..rules.check import Finding
    from .remodel import Derivation


@dataclass
class FilePlan:
    """One file's findings, with their fixes' edits built, as the fixer plans from them."""

    path: str
    data: bytes | None
    model: FileModel | None
    findings: list[Finding]
    # the parse behind the model, when kept: the fixed text is modelled from it; for a fixed text,
    # how it follows from the original's parse
    parsed: Parse | None = field(default=None, repr=False, compare=False)
    derived: Derivation | None = field(default=None, repr=False, compare=False)
    noqa: bool = True  # whether noqa comments suppressed findings: the fixed text is checked alike


@dataclass
class FixResult:
    """The outcome of fixing one file."""

    plan: FilePlan
    text: str | None = None  # the decoded original text (None: not decodable / not read)
    fixed_text: str | None = None  # the text with the fixes applied (None: nothing to change)
    # (a --fix run drops both texts once the file is written: only a diff shows them)
    after: FilePlan | None = None  # the fixed file, checked and planned again
    fixed: list[Finding] = field(default_factory=list)  # the findings whose fixes were applied
    # the findings whose fixes were not applied, and why (the fixed class would hold a new finding)
    refused: list[tuple[Finding, str]] = field(default_factory=list)
    error: str | None = None  # why the fixed text was not written
    written: bool = False  # the fixed text was written to the file
    edited: bool = False  # the fixed text differs, though the texts were dropped (see _check_and_fix)

    @property
    def changed(self) -> bool:
        # a written result may have dropped its texts (see _fix_and_write)
        return self.written or self.edited or (self.fixed_text is not None and self.fixed_text != self.text)


@dataclass(frozen=True)
class FixOptions:
    fix: bool = False  # apply the enabled fixes and write the files
    unsafe: bool = False  # unsafe fixes are enabled too
    diff: bool = False  # compute the fixes and show them as a diff; write nothing
    show: bool = False  # report each finding's fix and its reason (--show-fixes)
    roots: tuple[str, ...] = ()  # the checked paths: a symlink is written through only into them
    noqa: bool = True  # whether comments suppress findings (False: --ignore-noqa; set from the session)


@dataclass
class CheckRun:
    """Everything a front end reports after checking (and maybe fixing) a set of files."""

    options: FixOptions
    plans: list[FilePlan] = field(default_factory=list)  # the files as they are now (after writing)
    results: list[FixResult] = field(default_factory=list)  # files with fixes computed
    fixed: int = 0
    files_fixed: int = 0  # files written
    warnings: list[str] = field(default_factory=list)
    # the baselines' entries that no longer match a finding (HWC902), reported with the findings
    stale: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said with the fix summary (the enum's import form)

    @property
    def findings(self) -> list[Finding]:
        return [f for p in self.plans for f in p.findings]

    def fixable(self, finding: Finding) -> bool:
        """Whether *finding* has a fix that is enabled (the ``[*]`` mark)."""
        return finding.fix is not None and finding.fix.enabled(self.options.unsafe)

    @property
    def fixable_count(self) -> int:
        return sum(1 for f in self.findings if self.fixable(f))

    @property
    def hidden(self) -> int:
        """Unsafe fixes available but not enabled."""
        if self.options.unsafe:
            return 0
        return sum(
            1 for f in self.findings if f.fix is not None and f.fix.applicability == Applicability.UNSAFE
        )

    @property
    def would_fix(self) -> int:
        """For --diff: findings the written fixes would remove."""
        return sum(len(r.fixed) for r in self.results if r.changed)

    @classmethod
    def unplanned(cls, options: FixOptions, found: Sequence[tuple[str, list[Finding]]]) -> CheckRun:
        """The run of a check that plans no fix: each file as it was found."""
        return cls(options, plans=[FilePlan(path, None, None, list(findings)) for path, findings in found])
