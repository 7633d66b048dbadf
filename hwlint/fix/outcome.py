"""What a check run leaves for its front end: each file's findings and plan, and with fixes,
what was fixed. Kept apart from :mod:`hwlint.fix`, whose machinery a check that fixes nothing
never imports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..neutral import SAFE, Conversion, Rewrite, shown

if TYPE_CHECKING:
    from ..checker import Finding
    from ..infer import Inference
    from ..model import ClassInfo, FileModel, Parse
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

    @classmethod
    def unplanned(cls, options: FixOptions, found: Sequence[tuple[str, list[Finding]]]) -> CheckRun:
        """The run of a check that plans no fix: each file as it was found."""
        return cls(options, plans=[FilePlan(path, None, None, list(findings)) for path, findings in found])


@dataclass(frozen=True)
class RewriteFix:
    """HWC301's fix: one hard-coded device spelled for every device."""

    cls: ClassInfo
    rewrite: Rewrite

    @property
    def safe(self) -> bool:
        return self.rewrite.applicability == SAFE

    fixable = True

    def describe(self) -> str:
        kind = "safe" if self.safe else "unsafe"
        use = self.rewrite.use
        before = use.target.text if use.target is not None else shown(use)
        return f"`{before}` -> `{self.rewrite.text}` ({kind}, line {use.site.line})"


@dataclass(frozen=True)
class ConversionFix:
    """HWC302's fix: the whole class made device-generic."""

    cls: ClassInfo
    conversion: Conversion
    safe = False
    fixable = True

    def describe(self) -> str:
        c = self.conversion
        return (
            f"{c.classification} -> {c.target} (unsafe): {len(c.tests)} test(s) take `device`, "
            f"{len(c.rewrites)} hard-coded device(s) rewritten, instantiated for every device but "
            "the generic runners'"
        )


@dataclass
class FixResult:
    """The outcome of fixing one file."""

    plan: FilePlan
    text: str | None = None  # the decoded original text (None: not decodable / not read)
    fixed_text: str | None = None  # the text with the fixes applied (None: nothing to change)
    # (a --fix run drops both texts once the file is written: only a diff shows them)
    after: FilePlan | None = None  # the fixed file, checked and planned again
    fixed: list[Finding] = field(default_factory=list)  # findings the fixes remove
    applied: list[Inference] = field(default_factory=list)
    error: str | None = None  # why the fixed text was not written
    written: bool = False  # the fixed text was written to the file
    edited: bool = False  # the fixed text differs, though the texts were dropped (see _check_and_fix)

    @property
    def changed(self) -> bool:
        # a written result may have dropped its texts (see _fix_and_write)
        return self.written or self.edited or (self.fixed_text is not None and self.fixed_text != self.text)
