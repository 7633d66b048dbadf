"""Fixes: write the inferred ``hw_classification`` into undeclared test classes.

The facts (which classes, where their bodies start, which imports exist) come from the file model;
the edits are built with ast-grep-py from ONE parse of the text, never overlap, and are committed
once. Every byte outside the inserted text stays as it was: comments, CRLF line endings, tabs, the
encoding declaration. A file that does not parse is never touched, and a file written is written
atomically (a temporary file in the same directory, then ``os.replace``), unless it changed on disk
since it was read.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import os
import stat
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ast_grep_py import Edit, SgNode, SgRoot

from .checker import Finding, Selection, read_source, run_rules
from .infer import Inference
from .model import ClassInfo, FileModel, build_model, decode_source, split_lines
from .rules import Context
from .taxonomy import Taxonomy

FIXED_CODE = "HWC001"


# ---------------------------------------------------------------------------------------------
# Text edits


def insert_declarations(
    source: str, model: FileModel, taxonomy: Taxonomy, wanted: Sequence[tuple[ClassInfo, str]]
) -> str:
    """*source* with ``<attribute> = <enum>.<member>`` declared in each class of *wanted*.

    *model* must be the model of *source*. The enum is imported when no import binds it yet.
    """
    if not wanted:
        return source
    root = SgRoot(source, "python").root()
    edits: list[Edit] = []
    enum_ref, import_edit = _enum_reference(
        source, root, model, taxonomy, min(c.site.line for c, _ in wanted)
    )
    if import_edit is not None:
        edits.append(import_edit)
    for cls, member in wanted:
        node = _class_node(root, cls)
        statement = f"{taxonomy.attribute} = {enum_ref}.{member}"
        edits.extend(_declaration_edits(source, node, statement))
    edits.sort(key=lambda e: e.start_pos)
    _check_disjoint(edits)
    return root.commit_edits(edits)


def _insert(anchor: SgNode, start: int, text: str, end: int | None = None) -> Edit:
    """An edit replacing characters [start, end) of the text (an insertion when end is None)."""
    edit = anchor.replace(text)
    edit.start_pos = start
    edit.end_pos = start if end is None else end
    return edit


def _check_disjoint(edits: Sequence[Edit]) -> None:
    # ast-grep drops overlapping edits silently; a dropped edit would be a silent half-fix.
    for a, b in itertools.pairwise(edits):
        if b.start_pos < a.end_pos or (b.start_pos == a.start_pos and a is not b):
            raise AssertionError(f"overlapping edits at {a.start_pos} and {b.start_pos}")


def _class_node(root: SgNode, cls: ClassInfo) -> SgNode:
    for node in root.find_all(kind="class_definition"):
        name = node.field("name")
        if node.range().start.line == cls.site.line - 1 and name is not None and name.text() == cls.name:
            return node
    raise LookupError(f"class {cls.name} at line {cls.site.line} not found by ast-grep")


def _line_end(source: str, pos: int) -> tuple[int, str]:
    """(offset just past the line ending at or after *pos*, that line ending); ("", len) at EOF."""
    for i in range(pos, len(source)):
        ch = source[i]
        if ch == "\n":
            return i + 1, "\n"
        if ch == "\r":
            if source.startswith("\r\n", i):
                return i + 2, "\r\n"
            return i + 1, "\r"
    return len(source), ""


def _line_start(source: str, pos: int) -> int:
    return max(source.rfind("\n", 0, pos), source.rfind("\r", 0, pos)) + 1


def _indent_unit(source: str, class_indent: str) -> str:
    """The indentation step the file uses: a tab if its first indented line starts with one."""
    if "\t" in class_indent:
        return "\t"
    for line in split_lines(source):
        if line[:1] in (" ", "\t") and line.strip():
            return "\t" if line[0] == "\t" else "    "
    return "    "


def _blank_after(source: str, pos: int) -> bool:
    """Whether the line starting at *pos* is blank (or the text ends there)."""
    end, _ = _line_end(source, pos)
    return not source[pos:end].strip()


def _declaration_edits(source: str, node: SgNode, statement: str) -> list[Edit]:
    """Edits putting *statement* first in the class body, after the docstring."""
    colon = next(c for c in node.children() if c.kind() == ":")
    body = node.field("body")
    assert body is not None
    first = next(c for c in body.children() if c.kind() != "comment")
    doc = first if _is_docstring(first) else None
    colon_end = colon.range().end.index
    header_end, newline = _line_end(source, colon_end)
    newline = newline or _default_newline(source)
    first_start = first.range().start.index
    if first_start < header_end:  # `class T(TestCase): pass`: the body shares the header line
        class_start = node.range().start.index
        class_indent = source[_line_start(source, class_start) : class_start]
        indent = class_indent + _indent_unit(source, class_indent)
        if doc is None:
            return [_insert(node, colon_end, f"{newline}{indent}{statement}{newline}{indent}", first_start)]
        return [
            _insert(node, colon_end, f"{newline}{indent}", first_start),
            _insert(node, doc.range().end.index, f"{newline}{indent}{statement}"),
        ]
    indent = source[_line_start(source, first_start) : first_start]
    anchor = header_end
    if doc is not None:
        anchor, newline = _line_end(source, doc.range().end.index)
        if not newline:  # the docstring ends the file
            return [_insert(node, anchor, f"{_default_newline(source)}{indent}{statement}")]
    blank = "" if _blank_after(source, anchor) else newline
    return [_insert(node, anchor, f"{indent}{statement}{newline}{blank}")]


def _is_docstring(stmt: SgNode) -> bool:
    if stmt.kind() != "expression_statement":
        return False
    children = stmt.children()
    return len(children) == 1 and children[0].kind() in ("string", "concatenated_string")


def _default_newline(source: str) -> str:
    _, newline = _line_end(source, 0)
    return newline or "\n"


# -- the enum's import ------------------------------------------------------------------------


def _enum_reference(
    source: str, root: SgNode, model: FileModel, taxonomy: Taxonomy, first_class_line: int
) -> tuple[str, Edit | None]:
    """The name to write the enum as, and the edit importing it (None when already imported)."""
    enum = taxonomy.enum_name
    for imp in sorted(model.imports, key=lambda i: i.nested):
        bound = imp.binding(enum)
        if bound is not None:
            return bound, None
        if imp.module == taxonomy.enum_module and imp.binding("*") is not None:
            return enum, None
    for imp in model.imports:
        if imp.module == taxonomy.enum_module and not imp.nested and imp.site.col == 0:
            node = _module_statement(root, imp.site.line)
            if node is not None and node.kind() == "import_from_statement":
                return enum, _add_name_edit(source, node, enum)
    return enum, _new_import_edit(source, root, model, taxonomy, first_class_line)


def _module_statement(root: SgNode, line: int) -> SgNode | None:
    """The module-level statement that starts on *line* (1-based)."""
    for node in root.children():
        if node.range().start.line == line - 1 and node.kind() != "comment":
            return node
    return None


def _add_name_edit(source: str, node: SgNode, name: str) -> Edit:
    """Add *name* to ``from m import ...`` in case-insensitive sorted position, keeping its style."""
    names = [c for c in node.children() if c.kind() in ("dotted_name", "aliased_import")][1:]
    parenthesized = any(c.kind() == "(" for c in node.children())

    def starts_line(n: SgNode) -> bool:
        start = n.range().start.index
        return parenthesized and not source[_line_start(source, start) : start].strip()

    after = next((n for n in names if _sort_key(n) > name.lower()), None)
    if after is not None:
        start = after.range().start.index
        if starts_line(after):
            _, newline = _line_end(source, start)
            indent = source[_line_start(source, start) : start]
            return _insert(node, start, f"{name},{newline or _default_newline(source)}{indent}")
        return _insert(node, start, f"{name}, ")
    last = names[-1]
    end = last.range().end.index
    if not starts_line(last):
        return _insert(node, end, f", {name}")
    start = last.range().start.index
    indent = source[_line_start(source, start) : start]
    trailing_comma = source[end : node.range().end.index].lstrip().startswith(",")
    next_line, newline = _line_end(source, end)
    if trailing_comma:
        return _insert(node, next_line, f"{indent}{name},{newline}")
    return _insert(node, end, f",{newline}{indent}{name}")


def _sort_key(name_node: SgNode) -> str:
    text = name_node.text()
    return text.split(" as ")[0].strip().lower()


def _new_import_edit(
    source: str, root: SgNode, model: FileModel, taxonomy: Taxonomy, first_class_line: int
) -> Edit:
    line = f"from {taxonomy.enum_module} import {taxonomy.enum_name}"
    before = [i for i in model.imports if not i.nested and i.site.col == 0 and i.site.line < first_class_line]
    if before:
        last = max(before, key=lambda i: i.site.end_line)
        node = _module_statement(root, last.site.line)  # any kind: `from __future__` has its own
        if node is not None:
            pos, newline = _line_end(source, node.range().end.index)
            if not newline:
                return _insert(root, pos, f"{_default_newline(source)}{line}")
            return _insert(root, pos, f"{line}{newline}")
    # No import before the class: go before the first statement that is not the module docstring.
    statements = [c for c in root.children() if c.kind() != "comment"]
    if statements and _is_docstring(statements[0]):
        pos, newline = _line_end(source, statements[0].range().end.index)
        if not newline:  # the docstring ends the file
            newline = _default_newline(source)
            return _insert(root, pos, f"{newline}{line}{newline}")
        return _insert(root, pos, f"{line}{newline}")
    target = statements[0] if statements else None
    pos = _line_start(source, target.range().start.index) if target is not None else len(source)
    return _insert(root, pos, f"{line}{_default_newline(source)}")


# ---------------------------------------------------------------------------------------------
# Planning: which findings get which fix


@dataclass
class FilePlan:
    """One file's findings, the inference behind each HWC001, and the fixed text (if any)."""

    path: str
    data: bytes | None
    model: FileModel | None
    findings: list[Finding]
    inferences: dict[tuple[int, int], Inference] = field(default_factory=dict)  # by class (line, col)

    def inference_for(self, finding: Finding) -> Inference | None:
        if finding.code != FIXED_CODE:
            return None
        return self.inferences.get((finding.line, finding.col))

    def fix_for(self, finding: Finding, unsafe: bool) -> Inference | None:
        """The inference that fixes *finding*, when it is enabled (safe, or unsafe with *unsafe*)."""
        inf = self.inference_for(finding)
        if inf is None or not inf.fixable or not (inf.safe or unsafe):
            return None
        return inf


def plan_file(path: str, taxonomy: Taxonomy, selection: Selection | None = None) -> FilePlan:
    """Check one file on disk and infer a classification for each class HWC001 flags."""
    selection = selection or Selection()
    data = read_source(path)
    if isinstance(data, str):
        from .checker import check_file

        return FilePlan(path, None, None, check_file(path, taxonomy, selection).findings)
    return plan_source(data, path, taxonomy, selection)


def plan_source(data: bytes, path: str, taxonomy: Taxonomy, selection: Selection | None = None) -> FilePlan:
    """Like :func:`plan_file`, for contents already read."""
    model = build_model(data, path, taxonomy)
    ctx = Context(model, taxonomy)
    findings = run_rules(model, taxonomy, selection, context=ctx)  # HWC004's inferences stay in ctx
    plan = FilePlan(path, data, model, findings)
    if model.error is not None:
        return plan
    by_site = {(c.site.line, c.site.col): c for c in model.classes}
    for f in findings:
        cls = by_site.get((f.line, f.col)) if f.code == FIXED_CODE else None
        if cls is None:
            continue
        try:
            plan.inferences[(f.line, f.col)] = ctx.inference(cls)
        except Exception:  # a bug in the inference costs the class its fix, not the run (HWC004 reports it)
            continue
    return plan


@dataclass
class FixResult:
    """The outcome of fixing one file."""

    plan: FilePlan
    text: str | None = None  # the decoded original text (None: not decodable / not read)
    fixed_text: str | None = None  # the text with the fixes applied (None: nothing to change)
    after: FilePlan | None = None  # the fixed file, checked and planned again
    fixed: list[Finding] = field(default_factory=list)  # findings the fixes remove
    applied: list[Inference] = field(default_factory=list)
    error: str | None = None  # why the fixed text was not written

    @property
    def changed(self) -> bool:
        return self.fixed_text is not None and self.fixed_text != self.text


def fix_plan(
    plan: FilePlan, taxonomy: Taxonomy, selection: Selection | None = None, unsafe: bool = False
) -> FixResult:
    """Compute the fixed text of a planned file (nothing is written)."""
    result = FixResult(plan)
    if plan.data is None or plan.model is None or plan.model.error is not None:
        return result
    chosen = [(f, inf) for f in plan.findings if (inf := plan.fix_for(f, unsafe)) is not None]
    if not chosen:
        return result
    text, _ = decode_source(plan.data)
    result.text = text
    wanted = [(inf.cls, inf.classification) for _, inf in chosen]
    try:
        new_text = insert_declarations(text, plan.model, taxonomy, wanted)  # type: ignore[arg-type]
    except Exception as e:  # a bug in the fixer must leave the file alone, not stop the run
        result.error = f"internal error while fixing ({type(e).__name__}: {e}); left unchanged"
        return result
    after = plan_source(new_text.encode(plan.model.encoding), plan.path, taxonomy, selection)
    assert after.model is not None
    # The edits add a module-level import and class-body assignments: once the text parses, the only
    # error a compiler could still find is a `from __future__` import that is no longer first.
    if after.model.error is not None:
        broken = after.model.error.message
    else:
        broken = _compile_error(new_text, plan.path) if "__future__" in new_text else None
    if broken is not None and _compile_error(text, plan.path) is None:
        # A fix must never break a file: refuse rather than write it.
        result.error = f"the fixed file would not compile ({broken}); left unchanged"
        return result
    result.fixed_text, result.after = new_text, after
    result.applied = [inf for _, inf in chosen]
    result.fixed = [f for f, _ in chosen]
    return result


def _compile_error(text: str, path: str) -> str | None:
    """Why *text* does not compile, if it does not. Compiling catches what parsing lets through,
    such as a ``from __future__`` import that is no longer first."""
    try:
        with warnings.catch_warnings():  # the file's own warnings (invalid escapes...) are not ours
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        return f"{type(e).__name__}: {getattr(e, 'msg', e)}"
    except RecursionError:
        return None  # too deep to compile here; the parse above already passed
    return None


def write_fixed(result: FixResult) -> bool:
    """Write the fixed file atomically. False (and ``result.error``) when the file changed on disk
    since it was read or cannot be written; the file is then left as it is."""
    path = os.path.realpath(result.plan.path)  # replace the target of a symlink, not the link
    try:
        with open(path, "rb") as f:
            current = f.read()
        if current != result.plan.data:
            result.error = "the file changed on disk while hwlint was fixing it; left unchanged"
            return False
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if not mode & 0o222:
            # os.replace would succeed (it needs only the directory), and root may write anything:
            # the mode is the owner's word that the file is not to be changed.
            result.error = "the file is read-only; left unchanged"
            return False
        fd, tmp = tempfile.mkstemp(prefix=".hwlint-", suffix=".tmp", dir=os.path.dirname(path) or ".")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(result.after.data)  # type: ignore[union-attr]  # the file's own encoding
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        result.error = f"cannot write the fixed file: {e.strerror or e}"
        return False
    return True


def unified_diff(result: FixResult) -> str:
    """The change a fix would make, as a unified diff (ruff's ``--diff``)."""
    if not result.changed:
        return ""
    assert result.text is not None and result.fixed_text is not None
    path = result.plan.path
    return "".join(
        difflib.unified_diff(
            result.text.splitlines(keepends=True),
            result.fixed_text.splitlines(keepends=True),
            fromfile=path,
            tofile=path,
        )
    )


# ---------------------------------------------------------------------------------------------
# A whole check run with fixes (what `hwlint check --fix | --unsafe-fixes | --diff` does)


@dataclass(frozen=True)
class FixOptions:
    fix: bool = False  # apply the enabled fixes and write the files
    unsafe: bool = False  # unsafe fixes are enabled too
    diff: bool = False  # compute the fixes and show them as a diff; write nothing
    show: bool = False  # keep each class's inference, to report its evidence (--show-fixes)


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
        return "".join(unified_diff(r) for r in self.results)


def apply_fixes(
    found: Sequence[tuple[str, list[Finding]]],
    taxonomy: Taxonomy,
    selection_for: Callable[[str], Selection],
    options: FixOptions,
    jobs: int | None = None,
    progress: bool = False,
) -> CheckRun:
    """Plan the fixes of the checked files that have an HWC001 finding: with ``fix`` or ``diff``,
    compute them, and with ``fix``, write them. Files without one pass through unchanged.

    *found* holds each file with its selected findings, however they were computed (serially,
    in parallel, from a cache): only files with something to fix (or explain) are read again.
    They are planned and fixed on *jobs* processes (as the check ran), with a bar when *progress*;
    files are written here.
    """
    from .engine import analyze_files
    from .progress import Bar

    run = CheckRun(options)
    planning = options.fix or options.diff or options.show
    todo = [path for path, findings in found if planning and any(f.code == FIXED_CODE for f in findings)]
    selections = {path: selection_for(path) for path in todo}
    analysis = functools.partial(_plan_and_fix, selections, options)
    bar = Bar(len(todo), "fixing", progress)
    try:
        values = analyze_files(todo, taxonomy, analysis, "fix", jobs, progress=bar)
    finally:
        bar.close()
    planned = dict(zip(todo, values, strict=True))
    for path, findings in found:
        if path not in planned:
            run.plans.append(FilePlan(path, None, None, list(findings)))
            continue
        plan, result = planned[path]
        if result is None:
            run.plans.append(plan)
            continue
        run.results.append(result)
        written = not options.diff and result.changed and write_fixed(result)
        if result.error:
            run.warnings.append(f"{path}: {result.error}")
        if written:
            run.fixed += len(result.fixed)
            run.files_fixed += 1
        run.plans.append(result.after if written and result.after is not None else plan)
    return run


def _plan_and_fix(
    selections: dict[str, Selection], options: FixOptions, path: str, data: bytes | str, taxonomy: Taxonomy
) -> tuple[FilePlan, FixResult | None]:
    """The engine's per-file work for :func:`apply_fixes`: the plan, and the fix it allows (with
    ``fix`` or ``diff``). The file is read again here: what is written must match what was planned."""
    selection = selections[path]
    plan = plan_file(path, taxonomy, selection)
    if not (options.fix or options.diff):
        return plan, None
    return plan, fix_plan(plan, taxonomy, selection, options.unsafe)


def write_diff(run: CheckRun, out, err) -> int:
    """``--diff``, as ruff does it: the diff on *out*, the count on *err*. Returns that count."""
    out.write(run.diff())
    n = run.would_fix
    err.write(f"Would fix {n} error{'s' if n != 1 else ''}.\n" if n else "No errors would be fixed.\n")
    return n


def write_fix_report(run: CheckRun, out) -> None:
    """``--show-fixes``: the fixes applied (ruff's enumeration), then what hwlint inferred per class."""
    applied = [r for r in run.results if r.changed and not run.options.diff and r.applied and not r.error]
    if applied:
        n = sum(len(r.fixed) for r in applied)
        out.write(f"\nFixed {n} error{'s' if n != 1 else ''}:\n")
        for r in applied:
            out.write(f"- {r.plan.path}:\n    {len(r.fixed)} × {FIXED_CODE} (missing-hw-classification)\n")
            for inf in r.applied:
                out.write(f"      {inf.cls.name}: {inf.describe()}\n")
    pending = [(p, f, p.inference_for(f)) for p in run.plans for f in p.findings if p.inference_for(f)]
    if pending:
        out.write("\nNot fixed:\n" if applied else "\nFixes:\n")
        for p, f, inf in pending:
            assert inf is not None
            state = "" if inf.fixable else "no fix: "
            if inf.fixable and not inf.safe and not run.options.unsafe:
                state = "needs --unsafe-fixes: "
            out.write(f"- {p.path}:{f.line}: {inf.cls.name}: {state}{inf.describe()}\n")
