"""Fixes: write the inferred ``hw_classification`` into undeclared test classes (HWC001, HWC005),
spell hard-coded devices for every device (HWC301), and convert one-device classes to device-generic
ones (HWC302).

The facts (which classes, where their bodies and headers end, which imports exist) come from the
file model, and so do the places of the edits; ast-grep-py parses the text only for an edit the
model cannot place (a body on its header's line...). The edits never overlap and are committed
once. Every byte outside the inserted text stays as it was: comments, CRLF line endings, tabs, the
encoding declaration. The fixed text's model follows from the original's parse when every edit was
placed by the model (:class:`Edits`, :meth:`hwlint.model.Parsed.with_lines`); otherwise the fixed
text is parsed again, and refused if it does not parse. A file that does not parse is never
touched, and a file written is written atomically (a temporary file in the same directory, then
``os.replace``), unless it changed on disk since it was read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..checker import Finding, ProjectCheck, Selection, read_source, run_rules
from ..context import Context
from ..infer import Inference, inference
from ..model import (
    ClassInfo,
    FileModel,
    Resolver,
    build_model,
    decode_source,
    parse_file,
)
from ..neutral import conversion, hard_uses
from ..pipeline.cache import Cache
from ..pipeline.engine import MAX_FILE_BYTES, analyze_files
from ..project import Links
from ..rules.declarations import collected_inference
from ..taxonomy import Taxonomy
from .edits import fix_edits
from .outcome import (
    DECLARATION_CODES,
    FIXED_CODE,
    FIXED_CODES,
    CheckRun,
    ConversionFix,
    FilePlan,
    FixOptions,
    FixResult,
    RewriteFix,
)
from .remodel import _model_after
from .text import apply_edits
from .write import _compile_error, _future_displaced, encode_checked, write_fixed

if TYPE_CHECKING:  # ast-grep is imported when a file needs it (a few per migration), not by every check
    pass


# ---------------------------------------------------------------------------------------------
# Text edits


# -- the enum's import ------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Planning: which findings get which fix


def plan_file(
    path: str, taxonomy: Taxonomy, selection: Selection | None = None, resolver: Resolver | None = None
) -> FilePlan:
    """Check one file on disk and infer a classification for each class HWC001 flags.

    *resolver*: the project's (:attr:`hwlint.checker.ProjectCheck.linked`) for a file whose
    findings depend on other scanned files, so that a fix declares what the project-aware check
    asks for; None checks the file alone."""
    selection = selection or Selection()
    data = read_source(path)
    if isinstance(data, str):
        from ..checker import check_file

        return FilePlan(path, None, None, check_file(path, taxonomy, selection).findings)
    return plan_source(data, path, taxonomy, selection, resolver)


def plan_source(
    data: bytes,
    path: str,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    resolver: Resolver | None = None,
) -> FilePlan:
    """Like :func:`plan_file`, for contents already read. The plan's model keeps *resolver*: the
    fixed text is planned again with it."""
    model, parsed = parse_file(data, path, taxonomy, keep=True)
    if resolver is not None:
        model = replace(model, resolver=resolver)
    plan = plan_model(data, model, taxonomy, selection)
    plan.parsed = parsed
    return plan


def plan_model(
    data: bytes,
    model: FileModel,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    context: Context | None = None,
    findings: Sequence[Finding] | None = None,
) -> FilePlan:
    """The plan of a file whose contents *data* were modelled as *model*.

    The findings are a check's (every code, noqa applied) reduced to *selection*, so what a plan
    reports is what ``hwlint check`` reports. Pass the check's *findings* and the *context* its
    rules filled (:func:`hwlint.checker.check_in_context`) to plan from them: the rules do not run
    again and the inference they computed (HWC004's) is reused."""
    selection = selection or Selection()
    ctx = context or Context(model, taxonomy)
    if findings is None:
        findings = run_rules(model, taxonomy, context=ctx)
    plan = FilePlan(
        path=model.path,
        data=data,
        model=model,
        findings=[f for f in findings if selection.enabled(f.code)],
        parsed=context.parsed if context is not None else None,
    )
    if model.error is not None:
        return plan
    by_site = {(c.site.line, c.site.col): c for c in model.classes}
    _plan_device_fixes(ctx, plan, by_site)
    for f in plan.findings:
        cls = by_site.get((f.line, f.col)) if f.code in DECLARATION_CODES else None
        if cls is None:
            continue
        try:
            found = inference(ctx, cls) if f.code == FIXED_CODE else collected_inference(ctx, cls)
            if found is not None:
                plan.inferences[(f.line, f.col)] = found
        except Exception:  # a bug in the inference costs the class its fix, not the run (HWC004 reports it)
            continue
    return plan


def _plan_device_fixes(ctx: Context, plan: FilePlan, by_site: dict[tuple[int, int], ClassInfo]) -> None:
    """The fixes of the file's HWC301 and HWC302 findings."""
    codes = {f.code for f in plan.findings}
    if "HWC301" in codes:
        rewrites = {}
        for cls in ctx.model.test_classes:
            for h in hard_uses(ctx, cls):
                if h.rewrite is not None:
                    rewrites.setdefault((h.use.site.line, h.use.site.col), RewriteFix(cls, h.rewrite))
        for f in plan.findings:
            if f.code == "HWC301" and (f.line, f.col) in rewrites:
                plan.fixes[(f.line, f.col, f.code)] = rewrites[(f.line, f.col)]
    for f in plan.findings:
        cls = by_site.get((f.line, f.col)) if f.code == "HWC302" else None
        found = conversion(ctx, cls) if cls is not None else None
        if found is not None and found.convertible:
            plan.fixes[(f.line, f.col, f.code)] = ConversionFix(cls, found)  # type: ignore[arg-type]


#: A fix may enable another (a class declared ACCELERATOR by HWC001's fix then has HWC301 findings);
#: as ruff does, fixes are applied again on the fixed text until nothing changes, this many times at most.
MAX_FIX_PASSES = 5


def fix_plan(
    plan: FilePlan,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    unsafe: bool = False,
) -> FixResult:
    """Compute the fixed text of a planned file (nothing is written), fixing until nothing changes.

    Each fixed text is modelled, checked and planned again (through the project, when the plan's
    model resolves through one): what ``after`` reports is what a fresh check of the fixed text
    reports."""
    result = _fix_once(plan, taxonomy, selection, unsafe)
    for _ in range(MAX_FIX_PASSES - 1):
        if not result.changed or result.after is None or result.error:
            break
        again = _fix_once(result.after, taxonomy, selection, unsafe)
        if not again.changed or again.error:
            break
        result.fixed_text, result.after = again.fixed_text, again.after
        result.applied += again.applied
        result.fixed += again.fixed
    return result


def _fix_once(
    plan: FilePlan,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    unsafe: bool = False,
) -> FixResult:
    result = FixResult(plan)
    if plan.data is None or plan.model is None or plan.model.error is not None:
        return result
    chosen = [(f, inf) for f in plan.findings if (inf := plan.fix_for(f, unsafe)) is not None]
    if not chosen:
        return result
    text, _ = decode_source(plan.data)
    result.text = text
    conversions = [fx for _, fx in chosen if isinstance(fx, ConversionFix)]
    converted = {id(fx.cls) for fx in conversions}
    # a converted class gets its declaration from the conversion: its HWC001 is fixed by it
    chosen += [
        (f, fx)
        for f in plan.findings
        if f.code in DECLARATION_CODES
        and (fx := plan.inference_for(f)) is not None
        and id(fx.cls) in converted
        and all(f is not g for g, _ in chosen)
    ]
    wanted = [
        (fx.cls, fx.classification)
        for _, fx in chosen
        if isinstance(fx, Inference) and id(fx.cls) not in converted
    ]
    rewrites = [fx.rewrite for _, fx in chosen if isinstance(fx, RewriteFix)]
    try:
        made = fix_edits(
            text,
            plan.model,
            taxonomy,
            wanted,  # type: ignore[arg-type]
            rewrites,
            [fx.conversion for fx in conversions],
        )
        new_text = apply_edits(text, made.edits)
        derived = _model_after(plan, text, new_text, made) if made.exact and new_text != text else None
    except Exception as e:  # a bug in the fixer must leave the file alone, not stop the run
        result.error = f"internal error while fixing ({type(e).__name__}: {e}); left unchanged"
        return result
    if new_text == text:  # the edits change nothing: no text to model again, nothing to write
        return result
    data, result.error = encode_checked(new_text, plan.model.encoding, plan.path)
    if data is None:  # bytes that would not read back as the fixed text (mac_arabic, idna)
        return result
    # unless it follows from the original's parse, parse the fixed text: the edits may have broken it
    model = derived[0] if derived is not None else build_model(data, plan.path, taxonomy)
    if plan.model.resolver is not None:  # the fixed text is seen through the project as the original was
        model = replace(model, resolver=plan.model.resolver)
    after = plan_model(data, model, taxonomy, selection)
    after.derived = derived[1] if derived is not None else None
    # The edits add a module-level import and class-body assignments: once the text parses, the only
    # error a compiler could still find is a `from __future__` import that is no longer first.
    if model.error is not None:
        broken = model.error.message
    else:
        broken = _compile_error(new_text, plan.path) if _future_displaced(plan.model, model) else None
    if broken is not None and _compile_error(text, plan.path) is None:
        # A fix must never break a file: refuse rather than write it.
        result.error = f"the fixed file would not compile ({broken}); left unchanged"
        return result
    result.fixed_text, result.after = new_text, after
    result.applied = [inf for _, inf in chosen]
    result.fixed = [f for f, _ in chosen]
    return result


# ---------------------------------------------------------------------------------------------
# A whole check run with fixes (what `hwlint check --fix | --unsafe-fixes | --diff` does)


def check_and_fix_paths(
    files: Sequence[str],
    taxonomy: Taxonomy,
    selection_for: Callable[[str], Selection],
    options: FixOptions,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Callable[[int], None] | None = None,
    fixable: Callable[[str], bool] | None = None,
    roots: Sequence[str] = (),
) -> tuple[ProjectCheck, dict[str, tuple[FilePlan, FixResult | None]]]:
    """A check of *files* that plans (and with ``fix`` or ``diff``, fixes) them in the same pass:
    the project check, as :func:`hwlint.checker.check_project` gives it, and the outcome of each
    file planned, for :func:`apply_fixes`.

    Each file is read once, on the *jobs* processes: the bytes read are checked, and when a
    selected finding has a fix (and *fixable(path)*, default all: a baselined file is not), the plan
    reuses the check's model and context, and the fix is computed from those same bytes;
    :func:`apply_fixes` writes it, once every plan is made (a plan that sees another file through
    the project must see it as it was checked). A file whose findings turn out to depend on other
    files (:attr:`~hwlint.checker.ProjectCheck.linked`) is left to :func:`apply_fixes`, which plans
    it again with the project's resolver, and so is a file whose bases or instantiated classes may
    come from another scanned module (the pass does not plan it). A cached check stands for a file with
    nothing to plan; the others are read again.
    """
    from ..checker import CHECK_KIND, CHECK_VALUE, link_checked
    from ..project import Project

    selections = {path: selection_for(path) for path in files if fixable is None or fixable(path)}
    task = functools.partial(_check_and_fix, selections, options, Project([], paths=files))

    def nothing_to_plan(path: str, hit: tuple[list[Finding], Links | None]) -> bool:
        return _to_plan(hit[0], selections.get(path)) is None

    values = analyze_files(
        files,
        taxonomy,
        task,
        CHECK_KIND,
        jobs,
        cache,
        max_bytes,
        CHECK_VALUE,
        progress,
        reuse=nothing_to_plan,
        cached=_Checked.value,
    )
    per_file, outcomes = [], {}
    for path, value in zip(files, values, strict=True):
        if isinstance(value, _Checked):
            if value.outcome is not None:
                outcomes[path] = value.outcome
            value = value.value()
        per_file.append(value)
    checked = link_checked(files, per_file, taxonomy, jobs, cache, max_bytes, roots)
    linked = set(checked.linked)
    return checked, {path: outcome for path, outcome in outcomes.items() if path not in linked}


@dataclass(frozen=True)
class _Checked:
    """What a check with fixes found in one file: every finding, its links (the check's cached
    value), and the plan and fix if planned."""

    findings: list[Finding]
    links: Links | None = None
    outcome: tuple[FilePlan, FixResult | None] | None = None

    def value(self) -> tuple[list[Finding], Links | None]:
        return self.findings, self.links


def _to_plan(findings: Sequence[Finding], selection: Selection | None) -> Selection | None:
    """*selection*, when a finding it enables has a fix (or an explanation) to plan; else None."""
    if selection is None or not any(f.code in FIXED_CODES and selection.enabled(f.code) for f in findings):
        return None
    return selection


def _check_and_fix(
    selections: dict[str, Selection],
    options: FixOptions,
    project,
    path: str,
    data: bytes | str,
    taxonomy: Taxonomy,
) -> _Checked:
    """The engine's per-file work for :func:`check_and_fix_paths`: check, plan and fix from one
    model of the bytes read (the main process writes)."""
    from ..checker import check_in_context, unreadable
    from ..project import links_of

    if isinstance(data, str):
        return _Checked(unreadable(path, data))
    findings, ctx = check_in_context(data, path, taxonomy, keep=True)
    links = links_of(ctx.model) if ctx is not None and ctx.model.error is None else None
    selection = _to_plan(findings, selections.get(path))
    if selection is None or ctx is None:
        return _Checked(findings, links)
    if links is not None and project.providers(links):
        return _Checked(findings, links)  # planned after the check, with what other modules define
    plan = plan_model(data, ctx.model, taxonomy, selection, ctx, findings)
    result = fix_plan(plan, taxonomy, selection, options.unsafe) if options.fix or options.diff else None
    # what goes back to the main process: the bytes to write, and the texts for a diff only
    for p in (plan, result.after if result is not None else None):
        if p is not None:
            p.model = p.parsed = p.derived = None
    if result is not None and not options.diff:
        result.edited = result.changed
        result.text = result.fixed_text = None
    _reported(plan, result)
    return _Checked(findings, links, (plan, result))


def _reported(plan: FilePlan, result: FixResult | None) -> None:
    """Reduce the classes the inferences of *plan* and *result* name to what the main process
    reports of them (name and place): their methods and device uses, most of what a worker would
    pickle back, stay in the worker."""
    slim: dict[int, Inference] = {}

    def named(inf: Inference) -> Inference:
        if id(inf) not in slim:
            cls = replace(
                inf.cls, methods=(), device_uses=(), shared_uses=(), test_uses=(), availability_checks=()
            )
            slim[id(inf)] = replace(inf, cls=cls)
        return slim[id(inf)]

    for p in (plan, result.after if result is not None else None):
        if p is not None:
            p.inferences = {k: named(v) for k, v in p.inferences.items()}
    if result is not None:
        result.applied = [named(inf) for inf in result.applied]


def _forks() -> bool:
    import multiprocessing  # imported here: a check that fixes nothing never pays for it

    return "fork" in multiprocessing.get_all_start_methods()


def apply_fixes(
    found: Sequence[tuple[str, list[Finding]]],
    taxonomy: Taxonomy,
    selection_for: Callable[[str], Selection],
    options: FixOptions,
    jobs: int | None = None,
    progress: bool = False,
    planned: dict[str, tuple[FilePlan, FixResult | None]] | None = None,
    resolvers: Mapping[str, Resolver] | None = None,
) -> CheckRun:
    """Plan the fixes of the checked files that have an HWC001 finding: with ``fix`` or ``diff``,
    compute them, and with ``fix``, write them. Files without one pass through unchanged.

    *found* holds each file with its selected findings, however they were computed (serially,
    in parallel, from a cache). *planned* holds the files already planned in the check's pass
    (:func:`check_and_fix_paths`); the others with something to fix (or explain) are read again,
    and planned and fixed on *jobs* processes (as the check ran), with a bar when *progress*. A file
    in *resolvers* (path -> the project's resolver: its findings depend on other scanned files) is
    planned with it: on the processes, where they fork (and inherit the resolvers), else in this
    one (a resolver holds the project's models, too many to pickle).
    """
    from ..pipeline.progress import Bar

    if not (options.fix or options.diff or options.show or planned):
        return CheckRun.unplanned(options, found)
    run = CheckRun(options)
    passed = dict(planned or {})  # computed in the check's pass, not written yet
    planned = dict(passed)
    planning = options.fix or options.diff or options.show
    todo = [
        path
        for path, findings in found
        if planning and path not in planned and any(f.code in FIXED_CODES for f in findings)
    ]
    selections = {path: selection_for(path) for path in todo}
    resolvers = resolvers or {}
    # forked processes inherit the resolvers; anywhere else they would be pickled: plan those here
    shared = resolvers if resolvers and _forks() else {}
    linked = [path for path in todo if path in resolvers and path not in shared]
    todo = [path for path in todo if path not in resolvers or path in shared]
    analysis = functools.partial(_plan_and_fix_linked, selections, options, shared)
    bar = Bar(len(todo) + len(linked), "fixing", progress)
    try:
        values = analyze_files(todo, taxonomy, analysis, "fix", jobs, progress=bar)
        for path in linked:
            data = read_source(path)
            values.append(_plan_and_fix(selections, options, path, data, taxonomy, resolvers[path]))
            todo.append(path)
            bar(1)
    finally:
        bar.close()
    planned.update(zip(todo, values, strict=True))
    for path, (plan, result) in passed.items():
        planned[path] = (plan, _write(result, options))
    for path, findings in found:
        if path not in planned:
            run.plans.append(FilePlan(path, None, None, list(findings)))
            continue
        plan, result = planned[path]
        if result is None:
            run.plans.append(plan)
            continue
        run.results.append(result)
        if result.error:
            run.warnings.append(f"{path}: {result.error}")
            # what could not be fixed is not offered as fixable ([*], "N fixable") either
            plan.findings = [replace(f, fix=None) if f.code == FIXED_CODE else f for f in plan.findings]
        if result.written:
            run.fixed += len(result.fixed)
            run.files_fixed += 1
        run.plans.append(result.after if result.written and result.after is not None else plan)
    return run


def _plan_and_fix_linked(
    selections: dict[str, Selection],
    options: FixOptions,
    resolvers: Mapping[str, Resolver],
    path: str,
    data: bytes | str,
    taxonomy: Taxonomy,
) -> tuple[FilePlan, FixResult | None]:
    """:func:`_plan_and_fix`, with the project's resolver of a file whose findings depend on others."""
    plan, result = _plan_and_fix(selections, options, path, data, taxonomy, resolvers.get(path))
    if path in resolvers:
        plan.model = None  # it would carry the resolver, and the project's models, back
    return plan, result


def _plan_and_fix(
    selections: dict[str, Selection],
    options: FixOptions,
    path: str,
    data: bytes | str,
    taxonomy: Taxonomy,
    resolver: Resolver | None = None,
) -> tuple[FilePlan, FixResult | None]:
    """The engine's per-file work for :func:`apply_fixes`: the plan of the bytes read, and the fix
    it allows (with ``fix`` or ``diff``), written with ``fix``."""
    selection = selections[path]
    if isinstance(data, str):
        from ..checker import unreadable

        return FilePlan(
            path, None, None, [f for f in unreadable(path, data) if selection.enabled(f.code)]
        ), None
    plan = plan_source(data, path, taxonomy, selection, resolver)
    return _fix_and_write(plan, taxonomy, selection, options)


def _fix_and_write(
    plan: FilePlan,
    taxonomy: Taxonomy,
    selection: Selection,
    options: FixOptions,
) -> tuple[FilePlan, FixResult | None]:
    """The fix *plan* allows (with ``fix`` or ``diff``), written with ``fix``: what is written
    is what was planned from, unless the file changed since (:func:`write_if_unchanged`). What
    goes back to the main process is what it reports: no model, no bytes, and the texts only for
    a diff."""
    result = None
    if options.fix or options.diff:
        result = fix_plan(plan, taxonomy, selection, options.unsafe)
    plan.parsed = plan.derived = None  # the tree stays in this process
    return plan, _write(result, options)


def _write(result: FixResult | None, options: FixOptions) -> FixResult | None:
    """*result* written with ``fix`` (unless the file changed since it was read:
    :func:`write_if_unchanged`), then reduced to what is reported: no model, no bytes, and the
    texts only for a diff."""
    if result is None:
        return None
    if options.fix and not options.diff and result.changed and not result.written:
        result.written = write_fixed(result, options.roots)
    for p in (result.plan, result.after):
        if p is not None:
            p.data = p.model = p.parsed = p.derived = None
    if not options.diff:
        result.text = result.fixed_text = None
    return result
