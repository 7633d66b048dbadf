"""What a check run leaves for its front end: each file's findings and plan, and with fixes,
what was fixed. Kept apart from :mod:`hwlint.fix`, whose machinery a check that fixes nothing
never imports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..checker import Finding
    from ..infer import Inference
    from ..model import FileModel, Parse
    from .apply import ConversionFix, FixResult, RewriteFix
    from .remodel import _Derivation

#: The findings a fix removes: an undeclared test class, a class that collects tests undeclared, a
#: hard-coded device, a one-device class that can run on every device.
FIXED_CODES = ("HWC001", "HWC005", "HWC301", "HWC302")
FIXED_CODE = FIXED_CODES[0]
DECLARATION_CODES = FIXED_CODES[:2]


@dataclass
class FilePlan:
    """One file's findings, the inference behind each HWC001, and the fixed text (if any)."""

    path: str
    data: bytes | None
    model: FileModel | None
    findings: list[Finding]
    inferences: dict[tuple[int, int], Inference] = field(default_factory=dict)  # by class (line, col)
    # HWC301 / HWC302 fixes by (line, col, code) of their finding
    fixes: dict[tuple[int, int, str], RewriteFix | ConversionFix] = field(default_factory=dict)
    # the parse behind the model, when kept: the fixed text is modelled from it; for a fixed text,
    # how it follows from the original's parse
    parsed: Parse | None = field(default=None, repr=False, compare=False)
    derived: _Derivation | None = field(default=None, repr=False, compare=False)

    def inference_for(self, finding: Finding) -> Inference | None:
        if finding.code not in DECLARATION_CODES:
            return None
        return self.inferences.get((finding.line, finding.col))

    def fix_object(self, finding: Finding) -> Inference | RewriteFix | ConversionFix | None:
        """What would fix *finding*, enabled or not."""
        if finding.code in DECLARATION_CODES:
            return self.inference_for(finding)
        return self.fixes.get((finding.line, finding.col, finding.code))

    def fix_for(self, finding: Finding, unsafe: bool) -> Inference | RewriteFix | ConversionFix | None:
        """The fix of *finding*, when it is enabled (safe, or unsafe with *unsafe*)."""
        inf = self.fix_object(finding)
        if inf is None or not inf.fixable or not (inf.safe or unsafe):
            return None
        return inf


@dataclass(frozen=True)
class FixOptions:
    fix: bool = False  # apply the enabled fixes and write the files
    unsafe: bool = False  # unsafe fixes are enabled too
    diff: bool = False  # compute the fixes and show them as a diff; write nothing
    show: bool = False  # keep each class's inference, to report its evidence (--show-fixes)
    roots: tuple[str, ...] = ()  # the checked paths: a symlink is written through only into them


@dataclass
class CheckRun:
    """Everything a front end reports after checking (and maybe fixing) a set of files."""

    options: FixOptions
    plans: list[FilePlan] = field(default_factory=list)  # the files as they are now (after writing)
    results: list[FixResult] = field(default_factory=list)  # files with fixes computed
    fixed: int = 0
    files_fixed: int = 0  # files written
    warnings: list[str] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [f for p in self.plans for f in p.findings]

    def fixable(self, finding: Finding) -> bool:
        """Whether *finding* has a fix that is enabled (the ``[*]`` mark)."""
        return finding.fix == "safe" or (self.options.unsafe and finding.fix == "unsafe")

    @property
    def fixable_count(self) -> int:
        return sum(1 for f in self.findings if self.fixable(f))

    @property
    def hidden(self) -> int:
        """Unsafe fixes available but not enabled."""
        return 0 if self.options.unsafe else sum(1 for f in self.findings if f.fix == "unsafe")

    @property
    def would_fix(self) -> int:
        """For --diff: findings the written fixes would remove."""
        return sum(len(r.fixed) for r in self.results if r.changed)

    def diff(self) -> str:
        from .diff import unified_diff

        return "".join(unified_diff(r) for r in self.results)

    @classmethod
    def unplanned(cls, options: FixOptions, found: Sequence[tuple[str, list[Finding]]]) -> CheckRun:
        """The run of a check that plans no fix: each file as it was found."""
        return cls(options, plans=[FilePlan(path, None, None, list(findings)) for path, findings in found])
