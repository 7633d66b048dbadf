"""The fixer: an applier of the fixes the rules build, as ruff's is.

Each file is checked with its fixes' edits built (:mod:`hwlint.edits`); the enabled fixes are taken
in their findings' order, those whose edits collide with one taken wait for the next pass
(:mod:`hwlint.fix.merge`); the edits are applied at once, the fixed text is modelled (from the
original's parse where every edit allows it: :mod:`hwlint.fix.remodel`, else parsed again) and
checked again, and the passes go on until nothing changes. A fixed text that would not compile is
refused; a file that does not parse is never touched, and a file is written atomically, unless it
changed on disk since it was read (:mod:`hwlint.fix.write`).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from ..collection import tests
from ..context import Context
from ..edits import Applicability, EditBuilder, Fix, apply_edits
from ..edits.imports import unused_import_edits
from ..model import FileModel, Parse, Resolver, build_model, decode_source, parse_file
from ..model.source import read_source
from ..pipeline.check import ProjectCheck
from ..pipeline.engine import keep_model
from ..pipeline.session import Session
from ..project import Links
from ..roots import NONE_GIVEN, Trees
from ..rules.check import Finding, Selection, run_rules
from ..taxonomy import Taxonomy
from ..words import plural
from .merge import choose
from .outcome import CheckRun, FilePlan, FixOptions, FixResult
from .remodel import Edits, model_after
from .write import compile_error, encode_checked, future_displaced, write_fixed

# ---------------------------------------------------------------------------------------------
# Planning: a file's findings with their fixes' edits


def plan_file(
    path: str,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    resolver: Resolver | None = None,
    trees: Trees = NONE_GIVEN,
) -> FilePlan:
    """Check one file on disk, its findings' fixes with their edits.

    *resolver*: the project's (:attr:`hwlint.pipeline.check.ProjectCheck.linked`) for a file whose
    findings depend on other scanned files, so that a fix declares what the project-aware check
    asks for; None checks the file alone. *trees*: the run's (:func:`~hwlint.model.source.read_source`)."""
    selection = selection or Selection()
    data = read_source(path, trees=trees)
    if isinstance(data, str):
        from ..rules.check import unreadable

        return FilePlan(path, None, None, [f for f in unreadable(path, data) if selection.enabled(f.code)])
    return plan_source(data, path, taxonomy, selection, resolver)


def plan_source(
    data: bytes,
    path: str,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    resolver: Resolver | None = None,
    noqa: bool = True,
) -> FilePlan:
    """Like :func:`plan_file`, for contents already read. The plan's model keeps *resolver*: the
    fixed text is planned again with it."""
    model, parsed = parse_file(data, path, taxonomy, keep=True)
    if resolver is not None:
        model = replace(model, resolver=resolver)
    return plan_model(data, model, taxonomy, selection, parsed=parsed, noqa=noqa)


def plan_model(
    data: bytes,
    model: FileModel,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    context: Context | None = None,
    findings: Sequence[Finding] | None = None,
    parsed: Parse | None = None,
    text: str | None = None,
    noqa: bool = True,
) -> FilePlan:
    """The plan of a file whose contents *data* (decoded: *text*) were modelled as *model*.

    The findings are a check's (every code, noqa applied unless *noqa* is false) reduced to
    *selection*, so what a plan
    reports is what ``hwlint check`` reports; their fixes carry their edits. Pass the check's
    *findings* and the *context* its rules filled (:func:`hwlint.rules.check.check_path` with
    ``edits=True``) to plan from them: the rules do not run again."""
    selection = selection or Selection()
    if context is not None:
        parsed = parsed or context.parsed
    if findings is None or context is None or context.builder is None:
        builder = None
        if model.error is None:
            source = text if text is not None else parsed.source if parsed is not None else None
            builder = EditBuilder(source or decode_source(data)[0], model, taxonomy)
        findings = run_rules(model, taxonomy, noqa=noqa, context=Context(model, taxonomy, builder=builder))
    return FilePlan(
        path=model.path,
        data=data,
        model=model,
        findings=[f for f in findings if selection.enabled(f.code)],
        parsed=parsed,
        noqa=noqa,
    )


#: A fix may enable another (a class declared ACCELERATOR by HWC001's fix then has HWC301 findings),
#: and a fix that collides with another waits for the next pass; as ruff does, fixes are applied
#: again on the fixed text until nothing changes, this many times at most.
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
        result.fixed += again.fixed
        result.refused += again.refused
    _not_offered(result)
    return result


def _not_offered(result: FixResult) -> None:
    """What a fix was refused for is no longer offered as fixable ([*], ``N fixable``): the
    finding's fix becomes none, with the reason."""
    if not result.refused:
        return
    why = {(f.code, f.message): reason for f, reason in result.refused}
    for p in (result.plan, result.after):
        if p is None:
            continue
        p.findings = [
            replace(f, fix=Fix(Applicability.NONE, f.fix.message, why[(f.code, f.message)]))
            if f.fix is not None and (f.code, f.message) in why
            else f
            for f in p.findings
        ]


def _fix_once(
    plan: FilePlan,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    unsafe: bool = False,
) -> FixResult:
    """One pass: the enabled fixes that do not collide, applied at once, and the fixed text planned.

    A fix whose class, once fixed, loses a test, or holds a finding it did not that makes its tests
    fail or vanish at run time (:data:`_BREAKING`: a GENERIC declaration on an instantiated class, a
    ``device`` parameter nothing supplies), is not applied; so is a safe fix that leaves any new
    HWC1xx/HWC2xx finding. The pass is made again without it, and the file's warnings say why."""
    result = FixResult(plan)
    if plan.data is None or plan.model is None or plan.model.error is not None:
        return result
    broken = next((f.fix.error for f in plan.findings if f.fix is not None and f.fix.error), None)
    if broken is not None and any(f.fix is not None and f.fix.enabled(unsafe) for f in plan.findings):
        result.error = f"internal error while fixing ({broken}); left unchanged"
        return result
    refused: dict[tuple[int, int, str], str] = {}
    for _ in range(_MAX_REFUSALS):
        candidates = [f for f in plan.findings if (f.line, f.col, f.code) not in refused]
        chosen, taken = choose(candidates, unsafe)
        if not chosen:
            break
        attempt = _attempt(plan, taxonomy, selection, chosen, taken)
        if isinstance(attempt, str):
            result.error = attempt
            return result
        if attempt is None:  # the edits change nothing
            break
        text, new_text, after = attempt
        safe = {
            _class_of(plan.model, f)
            for f in chosen
            if f.fix is not None and f.fix.applicability == Applicability.SAFE
        }
        kept = _kept(plan.model, after.model, plan.findings, after.findings, unsafe, safe)
        blamed = {(f.line, f.col, f.code): kept[c] for f in chosen if (c := _class_of(plan.model, f)) in kept}
        if not blamed:
            result.text, result.fixed_text, result.after, result.fixed = text, new_text, after, chosen
            break
        refused.update(blamed)
    result.refused = [
        (f, refused[(f.line, f.col, f.code)]) for f in plan.findings if (f.line, f.col, f.code) in refused
    ]
    return result


#: passes made again without the fixes refused (each time, at least one more is)
_MAX_REFUSALS = 4


def _attempt(plan: FilePlan, taxonomy: Taxonomy, selection: Selection | None, chosen: list, taken: list):
    """The fixed text of *plan* with *taken* (the edits of *chosen*) and its plan; None when the
    edits change nothing; a string saying why the file is left alone (an internal error, a fixed
    text that would not compile)."""
    assert plan.data is not None and plan.model is not None
    text, _ = decode_source(plan.data)
    try:
        made = Edits.of(text, plan.model, taken)
        new_text = apply_edits(text, made.edits)
        derived = model_after(plan, text, new_text, made) if made.exact and new_text != text else None
    except Exception as e:  # a bug in the fixer must leave the file alone, not stop the run
        return f"internal error while fixing ({type(e).__name__}: {e}); left unchanged"
    if new_text == text:  # the edits change nothing: no text to model again, nothing to write
        return None
    data, error = encode_checked(new_text, plan.model.encoding, plan.path)
    if data is None:  # bytes that would not read back as the fixed text (mac_arabic, idna)
        return error
    # unless it follows from the original's parse, parse the fixed text: the edits may have broken it
    model = derived[0] if derived is not None else build_model(data, plan.path, taxonomy)
    if model.error is None:
        # what the fix stopped using is not left imported (pyflakes' F401), as a person would fix it
        unused = unused_import_edits(text, plan.model, new_text, model)
        if unused:
            new_text = apply_edits(new_text, unused)
            data, error = encode_checked(new_text, plan.model.encoding, plan.path)
            if data is None:
                return error
            model, derived = build_model(data, plan.path, taxonomy), None
    if plan.model.resolver is not None:  # the fixed text is seen through the project as the original was
        model = replace(model, resolver=plan.model.resolver)
    after = plan_model(data, model, taxonomy, selection, text=new_text, noqa=plan.noqa)
    after.derived = derived[1] if derived is not None else None
    # The edits add module-level imports and statements and class-body assignments: once the text
    # parses, the only error a compiler could still find is a `from __future__` import that is no
    # longer first.
    if model.error is not None:
        broken = model.error.message
    else:
        broken = compile_error(new_text, plan.path) if future_displaced(plan.model, model) else None
    if broken is not None and compile_error(text, plan.path) is None:
        # A fix must never break a file: refuse rather than write it.
        return f"the fixed file would not compile ({broken}); left unchanged"
    return text, new_text, after


#: Findings no fix may create: the declaration contradicts how the runtime runs the class's tests,
#: so they fail or vanish (a GENERIC or device class instantiated for other devices drops the
#: generated copies on their runners; GENERIC with a ``device`` parameter leaves a parameter
#: nothing supplies; a generated name replaces a class). ACCELERATOR without instantiation
#: (HWC102) is not among them: the class runs as it is on every runner, and a ``device`` that
#: nothing supplied before the fix is no worse after it.
_BREAKING = ("HWC101", "HWC104", "HWC105", "HWC106", "HWC107", "HWC201")
#: Findings a safe fix may not create either. An unsafe one may leave them: the tests still run on
#: some runner (an accelerator call in a GENERIC class, an @onlyCUDA test in an ACCELERATOR one, a
#: test that ignores its device), and the finding says what a person does next; refusing the fix
#: would leave the class undeclared, which a classification-filtered run drops whole.
_CONTRADICTIONS = ("HWC1", "HWC2")


def _kept(
    before: FileModel,
    after: FileModel | None,
    found: Sequence[Finding],
    now: Sequence[Finding],
    unsafe: bool,
    safe: Collection[str | None] = (),
) -> dict[str, str]:
    """Class name -> why its fixes are not applied: the fixed text gives it a finding it did not
    have and that no enabled fix removes (of :data:`_BREAKING`, or of :data:`_CONTRADICTIONS` for
    a class in *safe*, whose fix is safe), or fewer tests."""
    if after is None:
        return {}
    out: dict[str, str] = {}
    old = Counter((f.code, f.message) for f in found)
    for f in now:
        if not f.code.startswith(_CONTRADICTIONS) or (f.fix is not None and f.fix.enabled(unsafe)):
            continue
        if old[(f.code, f.message)]:
            old[(f.code, f.message)] -= 1
            continue
        cls = _class_of(after, f)
        if cls is not None and (f.code in _BREAKING or cls in safe):
            out.setdefault(cls, f"the fixed class would have {f.code}: {f.message}")
    tests_after = {c.name: set(tests(after, c)) for c in after.classes}
    everywhere = set().union(*tests_after.values())  # a test moved to a class of its own is kept
    for c in before.classes:
        lost = set(tests(before, c)) - tests_after.get(c.name, set()) - everywhere
        if lost and c.name not in out:
            out[c.name] = f"the fixed class would lose {', '.join(f'`{t}`' for t in sorted(lost)[:3])}"
    return out


def _class_of(model: FileModel, finding: Finding) -> str | None:
    """The name of the innermost class of *model* whose lines hold *finding*."""
    inside = [c for c in model.classes if c.site.line <= finding.line <= c.end_line]
    return max(inside, key=lambda c: c.site.line).name if inside else None


# ---------------------------------------------------------------------------------------------
# A whole check run with fixes (what `hwlint check --fix | --unsafe-fixes | --diff` does)


def check_and_fix_paths(
    files: Sequence[str],
    session: Session,
    selection_for: Callable[[str], Selection],
    options: FixOptions,
    fixable: Callable[[str], bool] | None = None,
) -> tuple[ProjectCheck, dict[str, tuple[FilePlan, FixResult | None]]]:
    """A check of *files* that plans (and with ``fix`` or ``diff``, fixes) them in the same pass:
    the project check, as :func:`hwlint.pipeline.check.check_project` gives it, and the outcome of each
    file planned, for :func:`apply_fixes`.

    Each file is read once, on the session's processes: the bytes read are checked, and when a
    selected finding has a fix (and *fixable(path)*, default all: a baselined file is not), the plan
    reuses the check's model and context, and the fix is computed from those same bytes;
    :func:`apply_fixes` writes it, once every plan is made (a plan that sees another file through
    the project must see it as it was checked). A file whose findings turn out to depend on other
    files (:attr:`~hwlint.pipeline.check.ProjectCheck.linked`) is left to :func:`apply_fixes`, which plans
    it again with the project's resolver, and so is a file whose bases or instantiated classes may
    come from another scanned module (the pass does not plan it). A cached check stands for a file with
    nothing to plan; the others are read again.
    """
    from ..pipeline.check import CHECK_KIND, CHECK_VALUE, link_checked

    selections = {path: selection_for(path) for path in files if fixable is None or fixable(path)}
    options = replace(options, noqa=session.noqa)
    task = functools.partial(_check_and_fix, selections, options, session.project(files))

    def nothing_to_plan(path: str, hit: tuple[list[Finding], Links | None]) -> bool:
        return _to_plan(hit[0], selections.get(path)) is None

    kind = session.noqa_kind(CHECK_KIND)
    try:
        values = session.analyze(
            files,
            task,
            kind,
            CHECK_VALUE,
            reuse=nothing_to_plan,
            cached=_Checked.value,
            keep=True,
            meanwhile=lambda: session.prefetch(files),
        )
        per_file, outcomes = [], {}
        for path, value in zip(files, values, strict=True):
            if isinstance(value, _Checked):
                if value.outcome is not None:
                    outcomes[path] = value.outcome
                value = value.value()
            per_file.append(value)
        checked = link_checked(files, per_file, session)
    finally:
        session.held.close()  # whatever the cross-file phase did not take
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
    """*selection*, when a finding it enables has a fix to apply; else None."""
    if selection is None or not any(f.fixable and selection.enabled(f.code) for f in findings):
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
    from ..project import links_of
    from ..rules.check import check_path, unreadable

    if isinstance(data, str):
        return _Checked(unreadable(path, data))
    edits = options.fix or options.diff
    findings, ctx = check_path(path, data, taxonomy, keep=True, edits=edits, noqa=options.noqa)
    keep_model(ctx.model if ctx is not None else None)  # the cross-file phase's, as a check's
    links = links_of(ctx.model) if ctx is not None and ctx.model.error is None else None
    selection = _to_plan(findings, selections.get(path))
    reported = [f.without_edits() for f in findings]  # what the check (and its cache) keeps
    if selection is None or ctx is None:
        return _Checked(reported, links)
    if links is not None and project.providers(links):
        return _Checked(reported, links)  # planned after the check, with what other modules define
    plan = plan_model(data, ctx.model, taxonomy, selection, ctx, findings, noqa=options.noqa)
    result = fix_plan(plan, taxonomy, selection, options.unsafe) if options.fix or options.diff else None
    # what goes back to the main process: the bytes to write, and the texts for a diff only
    for p in (plan, result.after if result is not None else None):
        if p is not None:
            p.model = p.parsed = p.derived = None
    if result is not None and not options.diff:
        result.edited = result.changed
        result.text = result.fixed_text = None
    _reported(plan, result)
    return _Checked(reported, links, (plan, result))


def _reported(plan: FilePlan, result: FixResult | None) -> None:
    """Reduce the findings of *plan* and *result* to what the main process reports of them: their
    fixes' edits, most of what a worker would pickle back, stay in the worker."""
    for p in (plan, result.after if result is not None else None):
        if p is not None:
            p.findings = [f.without_edits() for f in p.findings]
    if result is not None:
        result.fixed = [f.without_edits() for f in result.fixed]


def _forks() -> bool:
    import multiprocessing  # imported here: a check that fixes nothing never pays for it

    return "fork" in multiprocessing.get_all_start_methods()


def apply_fixes(
    found: Sequence[tuple[str, list[Finding]]],
    session: Session,
    selection_for: Callable[[str], Selection],
    options: FixOptions,
    planned: dict[str, tuple[FilePlan, FixResult | None]] | None = None,
    resolvers: Mapping[str, Resolver] | None = None,
    progress: bool = False,
) -> CheckRun:
    """Plan the fixes of the checked files that have an HWC001 finding: with ``fix`` or ``diff``,
    compute them, and with ``fix``, write them. Files without one pass through unchanged.

    *found* holds each file with its selected findings, however they were computed (serially,
    in parallel, from a cache). *planned* holds the files already planned in the check's pass
    (:func:`check_and_fix_paths`); the others with something to fix are read again, and planned
    and fixed on the session's processes (as the check ran, uncached), with a bar when *progress*. A file
    in *resolvers* (path -> the project's resolver: its findings depend on other scanned files) is
    planned with it: on the processes, where they fork (and inherit the resolvers), else in this
    one (a resolver holds the project's models, too many to pickle).
    """
    from ..pipeline.progress import Bar

    if not (options.fix or options.diff or planned):
        return CheckRun.unplanned(options, found)
    options = replace(options, noqa=session.noqa)
    run = CheckRun(options)
    passed = dict(planned or {})  # computed in the check's pass, not written yet
    planned = dict(passed)
    planning = options.fix or options.diff
    todo = [
        path
        for path, findings in found
        if planning and path not in planned and any(f.fixable for f in findings)
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
        values = replace(session, cache=None, progress=bar).analyze(todo, analysis, "fix")
        for path in linked:
            data = read_source(path, trees=session.trees)
            values.append(_plan_and_fix(selections, options, path, data, session.taxonomy, resolvers[path]))
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
            plan.findings = [replace(f, fix=None) if f.fixable else f for f in plan.findings]
        if result.written:
            run.fixed += len(result.fixed)
            run.files_fixed += 1
        run.plans.append(result.after if result.written and result.after is not None else plan)
    refused = sum(len(r.refused) for r in run.results)
    if refused:
        run.warnings.append(
            f"{plural(refused, 'fix')} not applied: the fixed class would lose a test, or hold a finding "
            "that breaks its tests (`--show-fixes` says which, and why)"
        )
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
        from ..rules.check import unreadable

        return FilePlan(
            path, None, None, [f for f in unreadable(path, data) if selection.enabled(f.code)]
        ), None
    plan = plan_source(data, path, taxonomy, selection, resolver, options.noqa)
    plan, result = _fix_and_write(plan, taxonomy, selection, options)
    _reported(plan, result)
    return plan, result


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
