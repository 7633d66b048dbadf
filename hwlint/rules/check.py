"""Running the rules over one file: its model, every registered rule, noqa and code selection.

What every front end (``hwlint check``, flake8, lintrunner) checks a file with; many files go
through :mod:`hwlint.pipeline.check`. It decides nothing about presentation: it returns
:class:`Finding` objects in a stable order.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..context import Context
from ..edits import EditBuilder, Fix
from ..model import FileModel, Resolver
from ..taxonomy import Taxonomy
from .registry import RULES


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int  # 0-based, in characters
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    # what the rule can do about it (its edits built only when the check was asked for them)
    fix: Fix | None = None

    @property
    def rule(self):
        return RULES[self.code]

    @property
    def fixable(self) -> bool:
        """Whether the rule has a fix for it (safe or unsafe)."""
        return self.fix is not None and self.fix.applicable

    def without_edits(self) -> Finding:
        """The finding as a check that fixes nothing reports it: its fix without edits."""
        if self.fix is None or self.fix.edits is None:
            return self
        return replace(self, fix=replace(self.fix, edits=None))

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


def selector_problem(config) -> str | None:
    """A configuration's unknown rule selector, as a usage error naming its file and key (not a
    silently empty selection): ``select``, ``ignore`` and ``per-file-ignores``; None when each
    selector names a rule."""
    where = config.source or "configuration"
    prefix = "tool.hwlint." if config.source is not None and config.source.name == "pyproject.toml" else ""
    hint = " (`hwlint rule --all` lists the rules)"
    for key, prefixes in (("select", config.select), ("ignore", config.ignore)):
        bad = unknown_selectors(prefixes)
        if bad:
            return f"{where}: {prefix}{key}: unknown rule selector {bad[0]!r}{hint}"
    for pattern, codes in (*config.per_file_ignores, *config.cli_per_file_ignores):
        bad = unknown_selectors(codes)
        if bad:
            return f"{where}: {prefix}per-file-ignores.{pattern!r}: unknown rule selector {bad[0]!r}{hint}"
    return None


def _longest_prefix(code: str, prefixes: Sequence[str]) -> int:
    best = -1
    for p in prefixes:
        p = p.upper()
        if p == "ALL":
            p = ""
        if code.startswith(p):
            best = max(best, len(p))
    return best


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
            out.append(
                make_finding(model.path, "HWC901", err.line, err.col, {"reason": err.message.rstrip(".")})
            )
        return out
    ctx = context or Context(model, taxonomy, resolver)
    for code, rule in RULES.items():
        if rule.check is None or not selection.enabled(code):
            continue
        try:
            for site, fields in rule.check(ctx):
                out.append(
                    make_finding(model.path, code, site.line, site.col, fields, site.end_line, site.end_col)
                )
        except MemoryError:
            raise  # the file is too large for this process (the engine reports it), not a bug
        except Exception as e:
            if selection.enabled("HWC900"):
                error = f"{type(e).__name__}: {e}".rstrip(".")
                out.append(make_finding(model.path, "HWC900", 1, 0, {"rule": code, "error": error}))
    if noqa and model.noqa:
        out = [f for f in out if not _suppressed(model, f)]
    out.sort(key=Finding.sort_key)
    return out


def make_finding(
    path: str, code: str, line: int, col: int, fields: dict, end_line: int = 0, end_col: int = 0
) -> Finding:
    message = RULES[code].message.format(**fields)
    fix = fields.get("fix")
    return Finding(path, line, col, code, message, end_line or line, end_col, fix)  # type: ignore[arg-type]


#: Findings about the file as a whole, or about hwlint itself: reported on line 1, whose noqa
#: comment (a blanket one after ``import torch``) must not silence them; a file-level one does.
WHOLE_FILE = frozenset({"HWC900", "HWC901", "HWC902"})


def _suppressed(model: FileModel, finding: Finding) -> bool:
    if model.exempts(finding.code):  # the file-level `# hwlint: noqa[: CODES]`
        return True
    if finding.code in WHOLE_FILE:
        return False
    codes = model.noqa_codes(finding.line)
    if codes is None:
        return False
    return not codes or any(finding.code.startswith(c) for c in codes)


def check_path(
    path: str,
    source: str | bytes,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    keep: bool = False,
    edits: bool = False,
    noqa: bool = True,
) -> tuple[list[Finding], Context | None]:
    """Check one file, *source* its contents (a file that cannot be read is :func:`unreadable`):
    every front end's one entry for a file, as ruff's ``check_path``.

    Returns the findings and the context the rules filled: the model, and what they inferred per
    class, which a fix of the file reuses rather than computing again (with *keep*, the parse too:
    :attr:`Context.parsed`). With *edits*, the findings' fixes carry their edits. Without *noqa*,
    ``# noqa`` comments suppress nothing (``--ignore-noqa``). The context is None when building
    the model failed (a bug in hwlint, not the file: HWC900)."""
    selection = selection or Selection()
    keep = keep or edits
    try:
        from ..model import parse_file  # the builder: imported by the runs that build a model

        model, parsed = parse_file(source, path, taxonomy, keep)
    except MemoryError:
        raise
    except Exception as e:
        error = f"{type(e).__name__}: {e}".rstrip(".")
        finding = make_finding(path, "HWC900", 1, 0, {"rule": "model", "error": error})
        return ([finding] if selection.enabled(finding.code) else []), None
    builder = EditBuilder(parsed.source, model, taxonomy) if edits and parsed is not None else None
    context = Context(model, taxonomy, builder=builder)
    context.parsed = parsed
    return run_rules(model, taxonomy, selection, noqa=noqa, context=context), context


def unreadable(path: str, reason: str) -> list[Finding]:
    """HWC901 for a file that cannot be read (a dangling symlink reads as missing, as ruff says)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        reason = "No such file or directory"
    except OSError:  # a path too long to name keeps its own reason
        pass
    return [make_finding(path, "HWC901", 1, 0, {"reason": reason})]


# ---------------------------------------------------------------------------------------------
# Many files: parallel, cached, in a stable order
