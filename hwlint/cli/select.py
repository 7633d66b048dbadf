"""``hwselect``: print the tests a CI runner executes, in a form pytest or a CI matrix takes.

A thin front end over :mod:`hwlint.select` (what runs) and :mod:`hwlint.select.kexpr` (how to say it to
``pytest -k``). The summary and every warning go to stderr; stdout carries only the selection.

Exit codes: 0 a non-empty selection; 2 usage, configuration or taxonomy error; 3 the selection is
empty (with the reasons on stderr), because a runner that runs nothing must not look green.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import __version__
from ..words import visible
from .common import Parser as _Parser
from .common import UserError as _UserError
from .common import add_engine_options, exiting, guarded, warn
from .run import config_and_taxonomy
from .select_options import SelectOptions

EXIT_OK, EXIT_ERROR, EXIT_EMPTY = 0, 2, 3


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="hwselect",
        description="Print the test classes a CI runner executes (hw_classification, instantiation).",
        epilog="`hwselect explain RUNNER PATH::Class` says why a class does or does not run; "
        "`hwselect verify RUNNER PATH...` collects with torch on the runner and compares; "
        "`hwselect diff --base REV` says what a change does to each runner; "
        "`hwselect expectations import LIST -o FILE` turns a node-id list into expectations. "
        "Exit codes: 0 selected, 2 error, 3 empty selection.",
    )
    p.add_argument("--version", action="version", version=f"hwselect {__version__}")
    p.add_argument("runner", metavar="RUNNER", nargs="?", help="a runner of the taxonomy (not with matrix)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files and directories (default: .)")
    _common(p)
    formats = (*FORMATS, "matrix")
    p.add_argument("--format", choices=formats, default="nodeids", help="output format (default: nodeids)")
    p.add_argument("--include-unclassified", action="store_true", help="select unclassified classes too")
    p.add_argument("--runners", metavar="A,B", help="matrix: runners to include (default: all)")
    p.add_argument("--shards", type=_shard_count, default=1, metavar="N", help="matrix: shards per runner")
    p.add_argument("--shard", metavar="I/N", help="only shard I of N (1-based), as the matrix splits it")
    p.add_argument(
        "--durations",
        action="append",
        default=[],
        metavar="FILE",
        help="balance shards by recorded times: pytest --junitxml XML or a .test_durations JSON (repeatable)",
    )
    p.add_argument(
        "--argsfile", metavar="FILE", help="k, nodeids: write a pytest argument file and print @FILE"
    )
    p.add_argument(
        "--expectations", metavar="FILE", help="report the entries of this expectations file that are stale"
    )
    _verbosity(p)
    add_engine_options(p)
    return p


def _verbosity(p: argparse.ArgumentParser) -> None:
    loud = p.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", action="store_true", help="no warnings and no summary on stderr")
    loud.add_argument(
        "-v", "--verbose", action="store_true", help="every warning on its own line (default: one per kind)"
    )


def _shard_count(text: str) -> int:
    """``--shards N``: a whole number between 1 and MAX_SHARDS (argparse reports anything else)."""
    from ..select.shards import MAX_SHARDS

    if not text.isdigit() or len(text) > 12 or not 1 <= int(text) <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(
            f"expected a number of shards from 1 to {MAX_SHARDS:,}, got {text!r}"
        )
    return int(text)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--taxonomy", metavar="FILE", help="taxonomy YAML (default: [tool.hwlint] or bundled)")
    p.add_argument("--config", metavar="FILE", help="pyproject.toml to read [tool.hwlint] from")
    p.add_argument(
        "--backend", action="append", default=[], metavar="NAME", help="PrivateUse1 backend name (repeatable)"
    )


def build_explain_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="hwselect explain", description="Why a class does or does not run on a runner.")
    p.add_argument("runner", metavar="RUNNER")
    p.add_argument("target", metavar="PATH::CLASS")
    _common(p)
    return p


def build_verify_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="hwselect verify",
        description="Collect with torch's runtime as RUNNER runs it and compare with the static selection.",
        epilog="Arguments after `--` go to pytest (e.g. `-- -p my_device_plugin`). "
        "Exit codes: 0 the same classes, 1 a difference, 2 error or nothing to compare (a module "
        "that failed to collect, no torch, no class collected).",
    )
    p.add_argument("runner", metavar="RUNNER")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files and directories (default: .)")
    _common(p)
    p.add_argument("--include-unclassified", action="store_true", help="as hwselect's option")
    p.add_argument("--timeout", type=int, default=3600, metavar="S", help="pytest's collection time limit")
    p.add_argument(
        "--allow-uncollectable",
        action="store_true",
        help="compare what collected and list the modules that failed to collect (default: exit 2)",
    )
    _verbosity(p)
    add_engine_options(p)
    return p


def console() -> int:
    """The ``hwselect`` console script: :func:`main` on the command line, then the exit."""
    return exiting(main())


def main(argv: Sequence[str] | None = None) -> int:
    """``hwselect`` with the arguments *argv* (default: the command line's)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["explain"]:
        explain_args = build_explain_parser().parse_args(argv[1:])
        return guarded("hwselect", lambda: cmd_explain(SelectOptions.of(explain_args)))
    if argv[:1] == ["diff"]:
        from .diff import DiffOptions, build_diff_parser, cmd_diff

        diff_args = build_diff_parser().parse_intermixed_args(argv[1:])
        return guarded("hwselect", lambda: cmd_diff(DiffOptions.of(diff_args)))
    if argv[:1] == ["expectations"]:
        from .diff import DiffOptions, build_expectations_parser, cmd_expectations

        exp_args = build_expectations_parser().parse_args(argv[1:])
        return guarded("hwselect", lambda: cmd_expectations(DiffOptions.of(exp_args)))
    if argv[:1] == ["verify"]:
        rest = argv[1:]
        pytest_args: list[str] = []
        if "--" in rest:
            cut = rest.index("--")
            rest, pytest_args = rest[:cut], rest[cut + 1 :]
        verify_args = build_verify_parser().parse_intermixed_args(rest)
        return guarded("hwselect", lambda: cmd_verify(SelectOptions.of(verify_args), pytest_args))
    args = build_parser().parse_intermixed_args(argv)
    return guarded("hwselect", lambda: cmd_select(SelectOptions.of(args)))


def _select(taxonomy, config, runner: str, paths, options):
    from ..select.records import SelectionError
    from ..select.runners import select_paths

    try:
        return select_paths(
            taxonomy, runner, paths, options.backend, options.include_unclassified, config, options.run
        )
    except SelectionError as e:
        raise _UserError(str(e)) from None


def cmd_select(options) -> int:
    matrix_paths = ([options.runner] if options.runner else []) + list(options.paths)
    config, taxonomy = config_and_taxonomy(
        options.config,
        options.taxonomy,
        options.run,
        matrix_paths if options.format == "matrix" else options.paths,
    )
    if options.format == "matrix":
        paths = matrix_paths
        if options.runner in taxonomy.runners and not os.path.exists(options.runner):
            raise _UserError(
                f"--format matrix takes its runners from --runners, not a positional RUNNER: "
                f"use `hwselect --format matrix --runners {options.runner} [PATH ...]`"
            )
        _check_paths(paths)
        return cmd_matrix(options, config, taxonomy, paths or ["."])
    if not options.runner:
        raise _UserError("give a RUNNER (one of: " + ", ".join(taxonomy.runners) + ")")
    _check_paths(options.paths)
    shard_spec = _parse_shard(options.shard)
    durations = _durations(options.durations)
    sel = _select(taxonomy, config, options.runner, list(options.paths) or ["."], options)
    if options.expectations:
        _audit_expectations(sel, options.expectations, options.quiet)
    chosen, pieces = _shard_of(sel, shard_spec, durations, options)
    if not chosen and not pieces:
        _report(sel, options)
        _report_empty(sel, options.shard)
        return EXIT_EMPTY
    lines, notes = (
        render(sel, chosen, options, pieces) if chosen or FORMATS[options.format].takes_parts else ([], [])
    )
    _report(sel, options, notes)
    if lines is not None:
        lines += [nodeid for u in pieces for nodeid in u.nodeids() or ()]
        _emit(lines, options.argsfile if FORMATS[options.format].argsfile else None)
    return EXIT_OK


def _audit_expectations(sel, path: str, quiet: bool) -> None:
    """The entries of the expectations file *path* for this runner that name no selected test."""
    from ..select.expectations import ExpectationsError, audit, load_expectations
    from ..select.identity import selected_tests

    try:
        entries = load_expectations(path)
    except ExpectationsError as e:
        raise _UserError(str(e)) from None
    keys = selected_tests(sel, lambda p: os.path.normpath(p).replace(os.sep, "/"))
    if not quiet:
        for line in audit(entries, sel.runner.name, keys).lines():
            print(f"hwselect: {line}", file=sys.stderr)


def _check_paths(paths: Sequence[str]) -> None:
    """A path that does not exist is a typo, not an empty selection."""
    missing = [p for p in paths if not os.path.lexists(p) and _not_found(p)]
    if missing:
        raise _UserError(f"no such file or directory: {', '.join(missing)}")


def _not_found(path: str) -> bool:
    """True when *path* does not exist; a path that cannot be looked at for another reason (too
    long, permission denied) is read, and reported with that reason."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def _parse_shard(spec: str | None) -> tuple[int, int] | None:
    """``--shard I/N`` as (I, N), checked before any work (N at most MAX_SHARDS)."""
    from ..select.records import SelectionError
    from ..select.shards import parse_shard

    if not spec:
        return None
    try:
        return parse_shard(spec, "--shard")
    except SelectionError as e:
        raise _UserError(str(e)) from None


def _durations(paths: Sequence[str]):
    """The --durations files, read (None without any)."""
    from ..select.durations import DurationsError, load_durations

    if not paths:
        return None
    try:
        return load_durations(paths)
    except DurationsError as e:
        raise _UserError(f"--durations: {e}") from None


def _shard_of(sel, spec: tuple[int, int] | None, durations, options):
    """The classes of shard *spec* held whole, and the parts of classes spread over shards (units
    of :mod:`hwlint.select.shards`); every selected class without *spec*. A part goes out only as
    node ids, and only where they are sure (:meth:`~hwlint.select.shards.Unit.nodeids`): else the
    shard is run through the plugin, which places each collected item."""
    from ..select.shards import plan_shards

    if spec is None:
        return sel.selected, []
    i, n = spec
    plan = plan_shards(sel.selected, n, durations)
    part = plan.parts[i - 1]
    spread = plan.spread()
    pieces = [u for u in part if id(u.candidate) in spread]
    if durations is not None and not options.quiet:
        print(visible(_durations_line(sel.runner.name, plan)), file=sys.stderr)
    cannot = FORMATS[options.format].no_parts
    unsure = next((u for u in pieces if cannot or u.nodeids() is None), None)
    if unsure is not None:
        c = unsure.candidate
        what = f"test {unsure.test}" if unsure.test else f"item {unsure.item}"
        why = cannot or "its items are named only at collection"
        plugin = [*(options.paths or ["."]), "--hw-runner", sel.runner.name, "--hw-shard", f"{i}/{n}"]
        plugin += [x for f in options.durations for x in ("--hw-durations", f)]
        raise _UserError(
            f"shard {i}/{n} spreads {c.nodeid} over shards by its tests ({what} here) and {why}; "
            f"run the shard with the pytest plugin: pytest {' '.join(plugin)}"
        )
    order = {id(c): k for k, c in enumerate(sel.selected)}
    whole = {id(u.candidate): u.candidate for u in part if id(u.candidate) not in spread}
    return sorted(whole.values(), key=lambda c: order[id(c)]), pieces


def _report(sel, options, notes: Sequence = ()) -> None:
    """The warnings (one line per kind; each with --verbose; none with -q) and the summary."""
    from ..select.notices import report_lines

    for line in report_lines([*sel.warnings, *notes], options.verbose, options.quiet):
        print(visible(line), file=sys.stderr)
    if not options.quiet:
        print(visible(sel.summary()), file=sys.stderr)


def _report_empty(sel, shard: str | None) -> None:
    if shard and sel.selected:
        print(f"hwselect: shard {shard} of runner {sel.runner.name} is empty", file=sys.stderr)
        return
    print(f"hwselect: runner {sel.runner.name} selects nothing:", file=sys.stderr)
    for reason in sel.why_empty():
        print(f"  - {visible(reason)}", file=sys.stderr)


# -- formats ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SelectFormat:
    """One ``--format`` of a runner's selection: *write(sel, chosen, root, options)* gives stdout's
    lines (None: it printed them itself) and the notes about them for stderr; with *argsfile*,
    ``--argsfile`` writes the lines to a file pytest reads (``@FILE``). *no_parts* says why the
    format cannot hold a class's part (some of its tests, by node id: ``--shard`` spreads a heavy
    class over shards); empty where it can: the parts' node ids follow the lines, or, with
    *takes_parts*, go to the writer as ``pieces=`` (the json document puts them in their class)."""

    write: Callable[..., tuple[list[str] | None, list[str]]]
    argsfile: bool = False
    no_parts: str = "it addresses whole classes"
    takes_parts: bool = False


def _k_lines(sel, chosen, root: str, options) -> tuple[list[str], list]:
    if options.argsfile:  # node ids in the file: an expression there would be read as a path
        return argument_lines(sel, chosen, root, options)
    return [k_expression(sel, chosen, root, options)], []


def _json_document(sel, chosen, root: str, options, pieces=()) -> tuple[None, list[str]]:
    parts: dict[int, tuple] = {}
    for u in pieces:
        parts.setdefault(id(u.candidate), (u.candidate, []))[1].extend(u.nodeids() or ())
    print(json.dumps(selection_json(sel, chosen, root, parts), indent=2))
    return None, []


#: The formats of one runner's selection (``--format matrix``, over several runners, is
#: :func:`cmd_matrix`): adding one is a writer and an entry here.
FORMATS: dict[str, SelectFormat] = {
    "k": SelectFormat(
        _k_lines,
        argsfile=True,
        no_parts="a -k expression matches names, not node ids, and a test's name may be part of another's",
    ),
    "nodeids": SelectFormat(
        lambda sel, chosen, root, options: argument_lines(sel, chosen, root, options),
        argsfile=True,
        no_parts="",
    ),
    "files": SelectFormat(
        lambda sel, chosen, root, options: (file_lines(sel, chosen), []),
        no_parts="a file runs every test of its classes",
    ),
    "json": SelectFormat(_json_document, no_parts="", takes_parts=True),
}


def render(sel, chosen, options, pieces=()) -> tuple[list[str] | None, list]:
    """stdout's lines in the chosen format (None: the format printed itself) and the notes about
    them for stderr; *pieces* are the parts of classes spread over shards (json only)."""
    fmt = FORMATS[options.format]
    extra = {"pieces": pieces} if fmt.takes_parts else {}
    return fmt.write(sel, chosen, _scan_root(options.paths), options, **extra)


def _scan_root(paths: Sequence[str]) -> str:
    from ..select.kexpr import scan_root

    return scan_root(paths or ["."])


def _emit(lines: list[str], argsfile: str | None) -> None:
    """Print *lines*, or write them to *argsfile* and print ``@argsfile`` for pytest."""
    _one_per_line(lines)
    if argsfile:
        from ..effects import write_output

        try:
            write_output(argsfile, "\n".join(lines) + "\n")
        except OSError as e:
            raise _UserError(f"{argsfile}: cannot write: {e.strerror or e}") from None
        print(f"@{argsfile}")
        return
    print("\n".join(lines))


def _one_per_line(lines: list[str]) -> None:
    """One argument per line is the contract: a path holding a line break (or another control
    character) would become several arguments, or forge one, and one holding a byte that is not
    UTF-8 (a surrogate, as the file system's name decodes) has no text a pytest argument file can
    hold. Refuse it (exit 2), naming it escaped."""
    from ..words import printable, visible

    bad = next((line for line in lines if printable(line) != line or _not_utf8(line)), None)
    if bad is not None:
        what = "a control character" if printable(bad) != bad else "a byte that is not UTF-8"
        raise _UserError(
            f"{visible(bad)}: a path with {what} cannot be written one per line; "
            "rename the file (--format k can still select it by class name)"
        )


def _not_utf8(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= c <= "\udfff" for c in text)


def argument_lines(sel, chosen, root: str, options) -> tuple[list[str], list]:
    """The node-id lines (:func:`nodeid_lines`), ending with the plugin's options where a file is
    listed whole. With ``--shard`` those lines are the scanned paths and the plugin's options: the
    plugin splits what its command line's paths select, so it must be given the paths hwselect split."""
    from ..select.notices import Kind

    runner = sel.runner.name
    lines, notes = nodeid_lines(sel, chosen, root, plugin_options(options, runner, None))
    if options.shard and any(n.kind is Kind.ARGSFILE_PLUGIN for n in notes):
        lines = [*(options.paths or ["."]), *plugin_options(options, runner, options.shard)]
    return lines, notes


def nodeid_lines(sel, chosen, root: str | None = None, plugin: Sequence[str] = ()) -> tuple[list[str], list]:
    """Node ids of *chosen*, as pytest arguments one per line, and a note per class addressed
    through its file.

    Some classes have no node id certain to exist, and pytest aborts the run on one it cannot
    find: a PrivateUse1 class is named ``...PRIVATEUSE1`` or after the backend depending on
    collection order, and a class defined (or instantiated) under an ``if`` may not exist. Their
    file is listed instead and, when that file holds anything not chosen (or torch may generate
    classes there for other devices), the lines end with the pytest plugin's options *plugin*
    (``--hw-runner RUNNER ...``): the plugin deselects the rest at collection, so a ``-k``, ``-m``
    or ``--deselect`` the user adds intersects with the selection (a ``-k`` of hwselect's own
    would be replaced by the user's: pytest keeps the last ``-k``).
    """
    from ..select.explain import pytest_path
    from ..select.kexpr import phantom_classes
    from ..select.notices import Kind, Notice

    ids = {id(c) for c in chosen}
    lines: list[str] = []
    notes: list[Notice] = []
    listed = []
    mixed = False
    for f in sel.files:
        mine = [c for c in f.candidates if id(c) in ids]
        if not mine:
            continue
        unsure = [c for c in mine if c.uncertain_nodeid]
        if unsure:
            for c in unsure:
                why = _why_unsure(c)
                # a reason of a kind of its own (a class decorator...) is counted as that kind
                kind = Kind(why.kind) if why.kind else Kind.LISTED_WHOLE
                notes.append(Notice(kind, c.nodeid, f"no certain node id: {why}; its file is listed"))
            lines.append(pytest_path(f.path))
            listed.append(f)
            mixed = mixed or len(mine) < len(f.candidates) or bool(f.functions)
            continue
        lines += [f"{pytest_path(c.path)}::{c.name}" for c in mine]
    if mixed or phantom_classes(listed, sel.runner.device, sel.backends):
        lines += plugin
        notes.append(
            Notice(
                Kind.ARGSFILE_PLUGIN,
                "",
                f"the node ids end with `{' '.join(plugin)}` for the files listed whole: hwlint's pytest "
                "plugin deselects the rest of them, so your own -k, -m or --deselect intersects; "
                "pytest needs hwlint installed",
            )
        )
    return lines, notes


def _why_unsure(c):
    """The first reason the node id of *c* is uncertain (a :class:`~hwlint.select.records.Note`)."""
    from ..select.records import Note

    if c.uncertain_name:
        return Note(None, "a PrivateUse1 class, named by collection order")
    return c.unsure[0] if c.unsure else Note(None, "it exists only under a run-time condition")


def file_lines(sel, chosen) -> list[str]:
    """The files holding at least one chosen class."""
    from ..select.explain import pytest_path

    chosen_ids = {id(c) for c in chosen}
    return [pytest_path(f.path) for f in sel.files if any(id(c) in chosen_ids for c in f.candidates)]


def k_expression(sel, chosen, root: str, options) -> str:
    """One -k expression selecting exactly *chosen*; a usage error (exit 2) when there is none.

    Node ids are what ``--argsfile`` writes instead: they are exact by construction, and pytest
    resolves them far faster than it evaluates a long expression once per collected item.
    """
    from ..select.kexpr import MAX_ARG_BYTES, build, phantom_classes

    phantoms = phantom_classes(sel.files, sel.runner.device, sel.backends)
    plan = build(sel.candidates, chosen, sel.functions(), root, phantoms)
    instead = (
        f"use a pytest argument file instead: `hwselect {options.runner} {' '.join(options.paths or ['.'])} "
        "--format k --argsfile sel.args` writes node ids to sel.args and prints `@sel.args` for pytest"
    )
    if plan.too_long:
        raise _UserError(
            f"the -k expression would be over the {MAX_ARG_BYTES:,}-byte limit of one argument; {instead}"
        )
    if not plan.exact:
        shown = [f"  - {c.nodeid}: {reason}" for c, reason in plan.inexact[:10]]
        if len(plan.inexact) > 10:
            shown.append(f"  - and {len(plan.inexact) - 10:,} more")
        raise _UserError(
            f"no -k expression selects exactly what runner {sel.runner.name} runs:", *shown, instead
        )
    if plan.size > MAX_ARG_BYTES:
        raise _UserError(
            f"the -k expression is {plan.size:,} bytes, over the {MAX_ARG_BYTES:,}-byte limit of one "
            f"argument; {instead}"
        )
    return plan.expression


def selection_json(sel, chosen, root: str | None = None, parts: dict | None = None) -> dict:
    """The json format's document (a contract: see the README). *parts*: the classes of which
    only some tests are chosen (a shard's part of a class spread over shards), by id, each with
    the node ids of those tests; a file holding one has no exact expression."""
    from ..select.explain import pytest_path
    from ..select.kexpr import build, phantom_classes
    from ..select.notices import group
    from ..select.records import STATUSES

    parts = parts or {}
    ids = {id(c) for c in chosen} | set(parts)
    phantoms = phantom_classes(sel.files, sel.runner.device, sel.backends)
    by_path: dict[str, list] = {}
    for p in phantoms:
        by_path.setdefault(p.path, []).append(p)
    files = []
    for f in sel.files:
        mine = [c for c in f.candidates if id(c) in ids]
        if not mine:
            continue
        plan = build(f.candidates, mine, {f.path: f.functions}, root, by_path.get(f.path, ()))
        counts = {s: sum(1 for c in f.candidates if c.status == s) for s in STATUSES}
        files.append(
            {
                "path": pytest_path(f.path),
                "classes": [
                    {
                        "name": c.name,
                        "names": list(c.names),
                        "classification": c.classification,
                        "generic": c.generic,
                        "tests": c.test_count,
                        "items": c.item_count,
                        "nodeids": parts[id(c)][1] if id(c) in parts else None,  # null: all its tests
                    }
                    for c in mine
                ],
                "expression": plan.expression
                if plan.exact and not any(id(c) in parts for c in mine)
                else None,
                "counts": {"total": len(f.candidates), "chosen": len(mine), **counts},
            }
        )
    plan = build(sel.candidates, [*chosen, *(c for c, _ in parts.values())], sel.functions(), root, phantoms)
    inexact = [{"nodeid": c.nodeid, "reason": r} for c, r in plan.inexact]
    inexact += [
        {"nodeid": c.nodeid, "reason": "spread over shards: this shard runs only the tests its nodeids name"}
        for c, _ in parts.values()
    ]
    if plan.too_long:
        inexact.append({"nodeid": None, "reason": "the expression would be over the one-argument limit"})
    return {
        "runner": sel.runner.name,
        "device": sel.runner.device,
        "runs": list(sel.runner.runs),
        "backends": list(sel.backends),
        "counts": {**sel.counts(), "chosen": len(ids)},
        "expression": plan.expression if plan.exact and not parts else None,
        "inexact": inexact,
        "files": files,
        "warnings": [str(w) for w in sel.warnings],
        "warning_kinds": [g.as_json() for g in group(sel.warnings)],
    }


def _select_all(taxonomy, config, names, paths, options):
    """Every named runner's selection, each file read once for all of them."""
    from ..pipeline.config import discover
    from ..select.records import SelectionError
    from ..select.runners import get_runner, select_all

    try:
        runners = [get_runner(taxonomy, name) for name in names]
    except SelectionError as e:
        raise _UserError(str(e)) from None
    skipped: list = []
    files = list(discover(paths, config, skipped=skipped))
    if not options.quiet:
        for s in skipped:
            warn("hwselect", s)
    from ..pipeline.session import Session

    session = Session.from_config(config, options.run, taxonomy, paths=paths)
    return select_all(session, files, options.backend, options.include_unclassified, runners)


def cmd_matrix(options, config, taxonomy, paths) -> int:
    """A GitHub Actions ``strategy.matrix`` object: ``{"include": [{runner, shard, ...}]}``."""
    from ..select.shards import plan_shards

    names = [r for r in (options.runners or "").split(",") if r] or list(taxonomy.runners)
    durations = _durations(options.durations)
    include = []
    empty = []
    selections = _select_all(taxonomy, config, names, paths, options)
    # the runners' warnings together (most are the same on every runner), then one summary each
    from ..select.notices import report_lines

    warnings = [w for sel in selections.values() for w in sel.warnings]
    for line in report_lines(warnings, options.verbose, options.quiet):
        print(visible(line), file=sys.stderr)
    for name, sel in selections.items():
        if not options.quiet:
            print(sel.summary(), file=sys.stderr)
        if not sel.selected:
            empty.append(sel)
            continue
        plan = plan_shards(sel.selected, options.shards, durations)
        spread = plan.spread()
        if not options.quiet:
            print(_durations_line(name, plan), file=sys.stderr)
        for i, (part, seconds, again) in enumerate(
            zip(plan.parts, plan.seconds, plan.first_use, strict=True), 1
        ):
            if not part:
                continue
            classes = {id(u.candidate): u.candidate for u in part}.values()
            items = sum(u.items for u in part)
            entry = {
                "runner": name,
                "device": sel.runner.device,
                "shard": i,
                "shards": options.shards,
                "classes": len(classes),
                # classes of which the shard runs some tests, the others running elsewhere
                "split_classes": sum(1 for c in classes if id(c) in spread),
                "items": items,
                # items without a record: their count (and time) is hwlint's static estimate
                "estimated_items": sum(u.estimated for u in part),
                "exact_items": all(u.exact for u in part),
                "files": len({c.path for c in classes}),
                # None without --durations: the split then balances item counts, not time
                "seconds": round(seconds, 1) if durations is not None else None,
                # of those, the first-use costs (setUpClass, first calls) it pays again
                "first_use_seconds": round(again, 1) if durations is not None else None,
                "pytest": _plugin_arguments(options, paths, name, i),
            }
            include.append(entry)
    for sel in empty:
        _report_empty(sel, None)
    print(json.dumps({"include": include}))
    return EXIT_OK if include else EXIT_EMPTY


def _plugin_arguments(options, paths: Sequence[str], runner: str, shard: int) -> list[str]:
    """The pytest arguments that run one matrix entry with the plugin (the same split, recomputed
    on the job): ``[*paths, "--hw-runner", runner, "--hw-shard", "I/N", ...]``."""
    part = f"{shard}/{options.shards}" if options.shards > 1 else None
    return [*paths, *plugin_options(options, runner, part)]


def plugin_options(options, runner: str, shard: str | None) -> list[str]:
    """The pytest plugin's options that select what hwselect's own *options* select for
    *runner*: ``--hw-runner``, the shard ``I/N`` (None: none) with its durations, the taxonomy,
    the backend, ``--hw-include-unclassified``."""
    out = ["--hw-runner", runner]
    if shard:
        out += ["--hw-shard", shard]
        for f in options.durations:
            out += ["--hw-durations", f]
    if options.taxonomy:
        out += ["--hw-taxonomy", options.taxonomy]
    out += [x for b in options.backend[:1] for x in ("--hw-backend", b)]
    if options.include_unclassified:
        out.append("--hw-include-unclassified")
    return out


def _durations_line(runner: str, plan) -> str:
    """What the split rests on: pytest items recorded where known, ``about N`` where estimated,
    the longest shard against the bound."""
    from ..select.notices import plural

    units = [u for part in plan.parts for u in part]
    items = sum(u.items for u in units)
    estimated = sum(u.estimated for u in units)
    exact = all(u.exact for u in units if u.estimated)
    classes = len(plan.placements)
    line = f"hwselect {runner}: {plural(classes, 'class', 'classes')}, "
    if plan.per_item is None:  # no record: the split balances item counts
        line += f"{'' if exact else 'about '}{plural(items, 'test item')} (counted statically)"
    elif not estimated:
        line += f"{plural(items, 'test item')}, every one recorded"
    else:
        recorded = items - estimated
        count = f"{estimated:,}" if exact else f"about {estimated:,}"
        per = f"{plan.per_item:.3g} s per item (the median)"
        line += f"{recorded:,} test items recorded, {count} estimated at {per}"
    split = len(plan.spread())
    if split:
        line += f"; {plural(split, 'class', 'classes')} spread over shards"
    longest = max(range(len(plan.seconds)), key=lambda k: plan.seconds[k], default=None)
    if longest is None:
        return line
    unit = " s" if plan.per_item is not None else " items"
    line += f"; longest shard {plan.seconds[longest]:,.1f}{unit}"
    if plan.first_use[longest] >= 0.05:
        line += f" ({plan.first_use[longest]:,.1f} s of first-use costs paid again)"
    return line + f", bound {plan.bound:,.1f}{unit}"


def cmd_explain(options) -> int:
    from ..pipeline.session import run_trees
    from ..select.explain import NO_SUCH_CLASS, Verdict, explain
    from ..select.records import SelectionError

    path, sep, cls = options.target.rpartition("::")  # a class name holds no "::", a path may
    config, taxonomy = config_and_taxonomy(options.config, options.taxonomy, options.run, [path])
    if not sep or not cls:
        raise _UserError(f"expected PATH::Class, got {options.target!r}")
    if not os.path.exists(path):
        raise _UserError(f"{path}: no such file")
    try:
        trees = run_trees(config, paths=[path])
        found = explain(taxonomy, options.runner, path, cls, options.backend, config.roots, trees)
    except SelectionError as e:
        raise _UserError(str(e)) from None
    lines = found.lines
    if found.verdict is Verdict.NO_SUCH_CLASS:
        raise _UserError(lines[0][len(NO_SUCH_CLASS) + 2 :], *lines[1:])
    print("\n".join(map(visible, lines)))  # one line each: a name's newline or ESC escaped
    return EXIT_OK if found.verdict is Verdict.RUNS else EXIT_EMPTY


def cmd_verify(options, pytest_args: Sequence[str]) -> int:
    """``hwselect verify``: the static selection against torch's runtime, on this machine."""
    from ..select.records import SelectionError
    from ..select.verify import VerifyError, verify

    _check_paths(options.paths)
    config, taxonomy = config_and_taxonomy(options.config, options.taxonomy, options.run, options.paths)
    try:
        result = verify(
            taxonomy,
            options.runner,
            list(options.paths) or ["."],
            list(options.backend),
            options.include_unclassified,
            config,
            list(pytest_args),
            options.timeout,
            options.run,
            options.taxonomy,
        )
    except (SelectionError, VerifyError) as e:
        raise _UserError(str(e)) from None
    for line in result.lines(verbose=options.verbose, quiet=options.quiet):
        print(visible(line))
    vacuous = result.vacuous(options.allow_uncollectable)
    for reason in vacuous:
        print(f"hwselect verify: error: {reason}", file=sys.stderr)
    if vacuous:
        return EXIT_ERROR
    return 1 if result.differences else EXIT_OK


if __name__ == "__main__":
    console()
