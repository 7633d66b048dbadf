"""Run the rules over files: one model per file, every registered rule, noqa and code selection.

This is the engine behind every front end (``hwlint check``, flake8, lintrunner). It decides nothing
about presentation: it returns :class:`Finding` objects in a stable order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from .context import Context
from .model import FileModel, Resolver, parse_file
from .pipeline.cache import Cache
from .pipeline.engine import MAX_FILE_BYTES, analyze_files, read_source
from .project import Linked, Links, link, linked_values, links_of
from .rules.registry import RULES
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
    from .pipeline.config import ConfigError

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
    if model.exempts(finding.code):  # a file-level noqa (flake8's, or hwlint's with codes)
        return True
    codes = model.noqa_codes(finding.line)
    if codes is None:
        return False
    return not codes or any(finding.code.startswith(c) for c in codes)


def check_source(
    source: str | bytes, path: str, taxonomy: Taxonomy, selection: Selection | None = None
) -> list[Finding]:
    """Check one file's contents."""
    return check_contents(source, path, taxonomy, selection or Selection())[0]


def check_file(
    path: str, taxonomy: Taxonomy, selection: Selection | None = None, max_bytes: int = MAX_FILE_BYTES
) -> FileResult:
    """Check one file on disk. A file that cannot be read is an HWC901 finding, never an exception."""
    selection = selection or Selection()
    data = read_source(path, max_bytes)
    if isinstance(data, str):
        return FileResult(path, [f for f in unreadable(path, data) if selection.enabled(f.code)])
    findings, model = check_contents(data, path, taxonomy, selection)
    return FileResult(path, findings, model)


def check_contents(
    source: str | bytes, path: str, taxonomy: Taxonomy, selection: Selection | None = None
) -> tuple[list[Finding], FileModel | None]:
    """The findings for a file's contents, and its model (None when building it failed: a bug in
    hwlint, not the file, reported as HWC900)."""
    findings, context = check_in_context(source, path, taxonomy, selection)
    return findings, (context.model if context is not None else None)


def check_in_context(
    source: str | bytes, path: str, taxonomy: Taxonomy, selection: Selection | None = None, keep: bool = False
) -> tuple[list[Finding], Context | None]:
    """The findings for a file's contents, and the context the rules filled: the model, and what
    they inferred per class, which a fix of the file reuses rather than computing again (with
    *keep*, the parse too: :attr:`Context.parsed`). The context is None when building the model
    failed (a bug in hwlint, not the file: HWC900)."""
    selection = selection or Selection()
    try:
        model, parsed = parse_file(source, path, taxonomy, keep)
    except Exception as e:
        error = f"{type(e).__name__}: {e}".rstrip(".")
        finding = _finding(path, "HWC900", 1, 0, {"rule": "model", "error": error})
        return ([finding] if selection.enabled(finding.code) else []), None
    context = Context(model, taxonomy)
    context.parsed = parsed
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
    roots: Sequence[str] = (),
) -> list[list[Finding]]:
    """Every finding (all codes, noqa applied) for each of *files*, in the same order.

    Files run in parallel on *jobs* processes (default: the number of cores); results are identical
    to a serial run. With a *cache*, unchanged files are not read again. The findings see the
    project: see :func:`check_project`.
    """
    return check_project(files, taxonomy, jobs, cache, max_bytes, progress, roots).findings


@dataclass
class ProjectCheck:
    """The findings of each file, and which files' findings depend on other files."""

    findings: list[list[Finding]]
    linked: list[str] = field(default_factory=list)  # paths as given
    # the project's resolver of each linked file, by path: loads the models (a fix plans with them)
    resolvers: Callable[[], dict[str, Resolver]] = dict


def check_project(
    files: Sequence[str],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Callable[[int], None] | None = None,
    roots: Sequence[str] = (),
) -> ProjectCheck:
    """:func:`check_paths` with the project model: two phases.

    The first checks each file on its own (parallel, cached with the file's
    :class:`~hwlint.project.Links`). The second, over those links, checks again with the project's
    resolver only the files whose bases or instantiated classes come from another scanned module,
    or whose classes another scanned module instantiates (:func:`hwlint.project.link`): their
    inherited classification, inherited tests and instantiations are the runtime's."""
    per_file = analyze_files(
        files, taxonomy, _check_analysis, CHECK_KIND, jobs, cache, max_bytes, CHECK_VALUE, progress
    )
    return link_checked(files, per_file, taxonomy, jobs, cache, max_bytes, roots)


#: The cache kind and value type of a file's check: its findings, alone, and its Links.
CHECK_KIND = "check"
CHECK_VALUE = tuple[list[Finding], Links | None]


def link_checked(
    files: Sequence[str],
    per_file: Sequence[tuple[list[Finding], Links | None]],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    roots: Sequence[str] = (),
) -> ProjectCheck:
    """The second phase of :func:`check_project`, over the first one's (findings, links) per file
    (however they were computed: a fix computes them in its own pass)."""
    links = {path: replace(lk, path=path) for path, (_, lk) in zip(files, per_file, strict=True) if lk}

    def check_linked(models: dict[str, FileModel]) -> dict[str, list[Finding]]:
        return {path: run_rules(model, taxonomy, _ALL) for path, model in models.items()}

    made: list[Linked] = []  # the phase's models, made once: a fix plans with them after the check

    def linker() -> Linked:
        if not made:
            made.append(link(files, links, taxonomy, roots, jobs, cache, max_bytes))
        return made[0]

    def resolvers() -> dict[str, Resolver]:
        models = linker().models
        return {path: m.resolver for path, m in models.items() if m.resolver is not None}

    kind = "check-linked"
    linked = linked_values(
        files, links, taxonomy, kind, check_linked, list[Finding], roots, jobs, cache, max_bytes, linker
    )[1]
    out = []
    for path, (findings, _) in zip(files, per_file, strict=True):
        findings = linked.get(path, findings)
        # the cache is keyed by absolute path: a value cached from another directory names the
        # file as it was given then
        out.append([f if f.path == path else replace(f, path=path) for f in findings])
    return ProjectCheck(out, list(linked), resolvers)


def _check_analysis(path: str, data: bytes | str, taxonomy: Taxonomy) -> tuple[list[Finding], Links | None]:
    """One file's findings, checked alone, and what the cross-file phase needs of it."""
    if isinstance(data, str):
        return unreadable(path, data), None
    findings, model = check_contents(data, path, taxonomy, _ALL)
    return findings, links_of(model) if model is not None and model.error is None else None
