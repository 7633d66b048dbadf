"""Run the rules over files: one model per file, every registered rule, noqa and code selection.

This is the engine behind every front end (``hwlint check``, flake8, lintrunner). It decides nothing
about presentation: it returns :class:`Finding` objects in a stable order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from .cache import Cache
from .context import Context
from .engine import MAX_FILE_BYTES, analyze_files, read_source
from .model import FileModel, Resolver, build_model
from .rules import RULES
from .taxonomy import Taxonomy


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int  # 0-based, in characters
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: str | None = None  # "safe" or "unsafe" when hwlint can fix it (ruff's applicability)

    @property
    def rule(self):
        return RULES[self.code]

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.col, self.code, self.message)


@dataclass(frozen=True)
class Selection:
    """Which codes are reported: ruff-style prefixes (``HWC``, ``HWC1``, ``HWC203``)."""

    select: tuple[str, ...] = ("HWC",)
    ignore: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        # As in ruff, the more specific prefix wins; on a tie, ignore wins.
        sel = _longest_prefix(code, self.select)
        return sel >= 0 and sel > _longest_prefix(code, self.ignore)

    def with_ignored(self, extra: Iterable[str]) -> Selection:
        return Selection(self.select, (*self.ignore, *extra))


def unknown_selectors(prefixes: Iterable[str]) -> list[str]:
    """The selectors that name no rule: ``ALL``, ``HWC``, ``HWC1`` and ``HWC101`` are known,
    ``FOO`` and ``HWC999`` are not (ruff rejects them too, rather than selecting nothing)."""
    return [p for p in prefixes if p.upper() != "ALL" and not any(c.startswith(p.upper()) for c in RULES)]


def check_config_selectors(config) -> None:
    """Raise :class:`~hwlint.config.ConfigError` naming the file and key of an unknown selector."""
    from .config import ConfigError

    where = config.source or "configuration"
    for key, prefixes in (("select", config.select), ("ignore", config.ignore)):
        bad = unknown_selectors(prefixes)
        if bad:
            raise ConfigError(f"{where}: tool.hwlint.{key}: unknown rule selector {bad[0]!r}{_known_hint()}")
    for pattern, codes in config.per_file_ignores:
        bad = unknown_selectors(codes)
        if bad:
            raise ConfigError(
                f"{where}: tool.hwlint.per-file-ignores.{pattern!r}: unknown rule selector {bad[0]!r}"
                f"{_known_hint()}"
            )


def _known_hint() -> str:
    return " (`hwlint rule --all` lists the rules)"


def _longest_prefix(code: str, prefixes: Sequence[str]) -> int:
    best = -1
    for p in prefixes:
        p = p.upper()
        if p == "ALL":
            p = ""
        if code.startswith(p):
            best = max(best, len(p))
    return best


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    model: FileModel | None = None


def run_rules(
    model: FileModel,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    resolver: Resolver | None = None,
    noqa: bool = True,
    context: Context | None = None,
) -> list[Finding]:
    """All enabled findings for one file model, sorted; a rule that raises becomes HWC900.

    Pass *context* to keep what the rules computed (classifications, inferences) for later use."""
    selection = selection or Selection()
    out: list[Finding] = []
    if model.error is not None:
        if selection.enabled("HWC901"):
            err = model.error
            out.append(_finding(model.path, "HWC901", err.line, err.col, {"reason": err.message.rstrip(".")}))
        return out
    ctx = context or Context(model, taxonomy, resolver)
    for code, rule in RULES.items():
        if rule.check is None or not selection.enabled(code):
            continue
        try:
            for site, fields in rule.check(ctx):
                out.append(
                    _finding(model.path, code, site.line, site.col, fields, site.end_line, site.end_col)
                )
        except Exception as e:
            if selection.enabled("HWC900"):
                error = f"{type(e).__name__}: {e}".rstrip(".")
                out.append(_finding(model.path, "HWC900", 1, 0, {"rule": code, "error": error}))
    if noqa and model.noqa:
        out = [f for f in out if not _suppressed(model, f)]
    out.sort(key=Finding.sort_key)
    return out


def _finding(
    path: str, code: str, line: int, col: int, fields: dict, end_line: int = 0, end_col: int = 0
) -> Finding:
    message = RULES[code].message.format(**fields)
    return Finding(path, line, col, code, message, end_line or line, end_col, fields.get("fix"))


def _suppressed(model: FileModel, finding: Finding) -> bool:
    codes = model.noqa_codes(finding.line)
    if codes is None:
        return False
    return not codes or any(finding.code.startswith(c) for c in codes)


def check_source(
    source: str | bytes, path: str, taxonomy: Taxonomy, selection: Selection | None = None
) -> list[Finding]:
    """Check one file's contents."""
    return _check_contents(source, path, taxonomy, selection or Selection())[0]


def check_file(
    path: str, taxonomy: Taxonomy, selection: Selection | None = None, max_bytes: int = MAX_FILE_BYTES
) -> FileResult:
    """Check one file on disk. A file that cannot be read is an HWC901 finding, never an exception."""
    selection = selection or Selection()
    data = read_source(path, max_bytes)
    if isinstance(data, str):
        return FileResult(path, [f for f in unreadable(path, data) if selection.enabled(f.code)])
    findings, model = _check_contents(data, path, taxonomy, selection)
    return FileResult(path, findings, model)


def _check_contents(
    source: str | bytes, path: str, taxonomy: Taxonomy, selection: Selection
) -> tuple[list[Finding], FileModel | None]:
    """The findings for a file's contents, and its model (None when building it failed: a bug in
    hwlint, not the file, reported as HWC900)."""
    findings, context = check_in_context(source, path, taxonomy, selection)
    return findings, (context.model if context is not None else None)


def check_in_context(
    source: str | bytes, path: str, taxonomy: Taxonomy, selection: Selection | None = None
) -> tuple[list[Finding], Context | None]:
    """The findings for a file's contents, and the context the rules filled: the model, and what
    they inferred per class, which a fix of the file reuses rather than computing again. The
    context is None when building the model failed (a bug in hwlint, not the file: HWC900)."""
    selection = selection or Selection()
    try:
        model = build_model(source, path, taxonomy)
    except Exception as e:
        error = f"{type(e).__name__}: {e}".rstrip(".")
        finding = _finding(path, "HWC900", 1, 0, {"rule": "model", "error": error})
        return ([finding] if selection.enabled(finding.code) else []), None
    context = Context(model, taxonomy)
    return run_rules(model, taxonomy, selection, context=context), context


def unreadable(path: str, reason: str) -> list[Finding]:
    """HWC901 for a file that cannot be read (a dangling symlink reads as missing, as ruff says)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        reason = "No such file or directory"
    except OSError:  # a path too long to name keeps its own reason
        pass
    return [_finding(path, "HWC901", 1, 0, {"reason": reason})]


# ---------------------------------------------------------------------------------------------
# Many files: parallel, cached, in a stable order

_ALL = Selection(("HWC",), ())


def check_paths(
    files: Sequence[str],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Callable[[int], None] | None = None,
) -> list[list[Finding]]:
    """Every finding (all codes, noqa applied) for each of *files*, in the same order.

    Files run in parallel on *jobs* processes (default: the number of cores); results are identical
    to a serial run. With a *cache*, unchanged files are not read again.
    """
    per_file = analyze_files(
        files, taxonomy, _check_analysis, "check", jobs, cache, max_bytes, list[Finding], progress
    )
    # the cache is keyed by absolute path: a value cached from another directory names the file
    # as it was given then
    return [
        [f if f.path == path else replace(f, path=path) for f in findings]
        for path, findings in zip(files, per_file, strict=True)
    ]


def _check_analysis(path: str, data: bytes | str, taxonomy: Taxonomy) -> list[Finding]:
    return unreadable(path, data) if isinstance(data, str) else _check_contents(data, path, taxonomy, _ALL)[0]
