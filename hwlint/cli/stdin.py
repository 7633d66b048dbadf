"""``hwlint check -``: the text on stdin checked (and fixed) as the file it names."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from .common import EXIT_CLEAN, EXIT_FINDINGS
from .output import output_to, write_findings
from .run import Baselines, read_taxonomy, selections

if TYPE_CHECKING:
    from .check import CheckOptions


def check_stdin(check: CheckOptions, configs) -> int:
    """``hwlint check -`` (and ``--stdin-filename NAME``): check the text on stdin as the file
    NAME (its configuration, per-file-ignores and baseline), as ruff does. With ``--fix`` (or
    ``--fix-only``) the fixed text is written to stdout and the findings left to stderr; with
    ``--diff`` the diff."""
    from ..fix.apply import fix_plan, plan_source
    from ..pipeline.config import is_test_file_name, project_files
    from ..project import around, project_instantiators

    report = check.report
    name = check.stdin_filename or "-"
    cfg = configs.for_path(name)
    taxonomy = read_taxonomy(cfg.taxonomy, not check.run.no_cache, configs.trees)
    selection = selections(configs)(name)
    max_bytes = cfg.max_file_size * 1024 * 1024
    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read(max_bytes + 1) if stream is not None else sys.stdin.read().encode("utf-8")
    fixing = check.fix or report.fix_only
    if fixing or report.diff:  # the enum's import as the named file's torch defines it
        from ..edits.torch_enum import enum_form, with_enum_form

        taxonomy = with_enum_form(taxonomy, enum_form(taxonomy, [os.path.abspath(name)]))
    if check.force_exclude and check.stdin_filename and cfg.is_excluded(name):
        if fixing:
            sys.stdout.buffer.write(data) if stream is not None else sys.stdout.write(data.decode("utf-8"))
        return EXIT_CLEAN
    if len(data) > max_bytes:
        from ..rules.check import unreadable

        reason = f"the file is larger than the {cfg.max_file_size} MB limit (--max-file-size)"
        findings = [f for f in unreadable(name, reason) if selection.enabled(f.code)]
        plan = None
    else:
        noqa = check.run.noqa
        plan = plan_source(data, name, taxonomy, selection, noqa=noqa)
        if plan.model is not None and plan.model.error is None:
            # as the flake8 plugin: bases and instantiated classes from the test modules it imports
            reverse = project_instantiators(lambda: project_files(configs), taxonomy, max_bytes)
            linked = around(
                plan.model, taxonomy, accept=is_test_file_name, instantiators=reverse, trees=configs.trees
            )
            if linked is not plan.model:
                plan = plan_source(data, name, taxonomy, selection, linked.resolver, noqa)
        findings = list(plan.findings)
    baseline = Baselines(check.baseline, configs).for_path(name) if name != "-" else None
    if baseline is not None:
        findings = baseline.unrecorded(name, findings)
    result = None
    if plan is not None and (fixing or report.diff):
        result = fix_plan(plan, taxonomy, selection, check.unsafe_fixes)
    changed = result is not None and result.changed and result.after is not None
    if report.diff:
        from ..fix.diff import unified_diff

        sys.stdout.write(unified_diff(result) if changed else "")
        n = len(result.fixed) if changed else 0
        from ..rules.registry import counted

        would = counted(f.code for f in result.fixed) if n else ""
        print(f"Would fix {would}." if n else "No errors would be fixed.", file=sys.stderr)
        return EXIT_FINDINGS if n and not report.exit_zero else EXIT_CLEAN
    if fixing:
        fixed = result.after.data if changed else data
        if stream is not None:
            sys.stdout.buffer.write(fixed)
            sys.stdout.flush()
        else:
            sys.stdout.write(fixed.decode("utf-8", "replace"))
        remaining = [f for f in result.after.findings if selection.enabled(f.code)] if changed else findings
        if baseline is not None:
            remaining = baseline.unrecorded(name, remaining)
        n_fixed = len(result.fixed) if changed else 0
        if report.fix_only:
            return EXIT_FINDINGS if n_fixed and report.exit_non_zero_on_fix else EXIT_CLEAN
        from ..fix.outcome import CheckRun, FixOptions

        run = CheckRun(FixOptions(True, check.unsafe_fixes), fixed=n_fixed)
        fixed_findings = list(result.fixed) if changed else []
        write_findings(
            report,
            sys.stderr,
            run,
            sorted(remaining, key=lambda f: f.sort_key()),
            None,
            fixed_findings,
            configs.trees,
        )
        if n_fixed and report.exit_non_zero_on_fix:
            return EXIT_FINDINGS
        return EXIT_CLEAN if report.exit_zero or not remaining else EXIT_FINDINGS
    from ..fix.outcome import CheckRun, FixOptions

    run = CheckRun(FixOptions(False, check.unsafe_fixes))
    findings.sort(key=lambda f: f.sort_key())
    with output_to(report.output_file) as out:
        write_findings(report, out, run, findings, None, trees=configs.trees)
    return EXIT_CLEAN if report.exit_zero or not findings else EXIT_FINDINGS
