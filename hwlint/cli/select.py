"""``hwselect``: print the tests a CI runner executes, in a form pytest or a CI matrix takes.

A thin front end over :mod:`hwlint.select` (what runs) and :mod:`hwlint.kexpr` (how to say it to
``pytest -k``). The summary and every warning go to stderr; stdout carries only the selection.

Exit codes: 0 a non-empty selection; 2 usage, configuration or taxonomy error; 3 the selection is
empty (with the reasons on stderr), because a runner that runs nothing must not look green.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from .. import __version__
from .common import Parser as _Parser
from .common import UserError as _UserError
from .common import add_engine_options, guarded

EXIT_OK, EXIT_ERROR, EXIT_EMPTY = 0, 2, 3
FORMATS = ("k", "nodeids", "files", "json", "matrix")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="hwselect",
        description="Print the test classes a CI runner executes (hw_classification, instantiation).",
        epilog="`hwselect explain RUNNER PATH::Class` says why a class does or does not run. "
        "Exit codes: 0 selected, 2 error, 3 empty selection.",
    )
    p.add_argument("--version", action="version", version=f"hwselect {__version__}")
    p.add_argument("runner", metavar="RUNNER", nargs="?", help="a runner of the taxonomy (not with matrix)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files and directories (default: .)")
    _common(p)
    p.add_argument("--format", choices=FORMATS, default="nodeids", help="output format (default: nodeids)")
    p.add_argument("--include-unclassified", action="store_true", help="select unclassified classes too")
    p.add_argument("--runners", metavar="A,B", help="matrix: runners to include (default: all)")
    p.add_argument("--shards", type=int, default=1, metavar="N", help="matrix: shards per runner")
    p.add_argument("--shard", metavar="I/N", help="only shard I of N (1-based), as the matrix splits it")
    p.add_argument(
        "--argsfile", metavar="FILE", help="k, nodeids: write a pytest argument file and print @FILE"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    add_engine_options(p)
    return p


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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hwselect`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["explain"]:
        explain_args = build_explain_parser().parse_args(argv[1:])
        return guarded("hwselect", lambda: cmd_explain(explain_args))
    args = build_parser().parse_intermixed_args(argv)
    return guarded("hwselect", lambda: cmd_select(args))


def _setup(args, paths: Sequence[str]):
    from ..pipeline.config import ConfigError, config_for_paths
    from ..taxonomy import TaxonomyError, load_taxonomy

    try:
        # the configuration of what is selected, as `hwlint check` finds it, not the cwd's
        config = config_for_paths(paths, args.config)
        taxonomy = load_taxonomy(
            args.taxonomy or config.taxonomy, remember=not getattr(args, "no_cache", False)
        )
    except (ConfigError, TaxonomyError) as e:
        raise _UserError(str(e)) from None
    return config, taxonomy


def _cache(args, config, taxonomy):
    from ..pipeline.cache import open_cache

    return open_cache(taxonomy.digest, config.root, args.cache_dir, args.no_cache)


def _select(taxonomy, config, runner: str, paths, args):
    from ..select.records import SelectionError
    from ..select.runners import select_paths

    cache = _cache(args, config, taxonomy)
    try:
        return select_paths(
            taxonomy, runner, paths, args.backend, args.include_unclassified, config, args.jobs, cache
        )
    except SelectionError as e:
        raise _UserError(str(e)) from None


def cmd_select(args) -> int:
    matrix_paths = ([args.runner] if args.runner else []) + args.paths
    config, taxonomy = _setup(args, matrix_paths if args.format == "matrix" else args.paths)
    if args.format == "matrix":
        paths = matrix_paths
        if args.runner in taxonomy.runners and not os.path.exists(args.runner):
            raise _UserError(
                f"--format matrix takes its runners from --runners, not a positional RUNNER: "
                f"use `hwselect --format matrix --runners {args.runner} [PATH ...]`"
            )
        _check_paths(paths)
        return cmd_matrix(args, config, taxonomy, paths or ["."])
    if not args.runner:
        raise _UserError("give a RUNNER (one of: " + ", ".join(taxonomy.runners) + ")")
    _check_paths(args.paths)
    sel = _select(taxonomy, config, args.runner, args.paths or ["."], args)
    chosen = _shard_of(sel.selected, args.shard)
    _report(sel, args.quiet)
    if not chosen:
        _report_empty(sel, args.shard)
        return EXIT_EMPTY
    WRITERS[args.format](sel, chosen, args)
    return EXIT_OK


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


def _shard_of(selected, spec: str | None):
    from ..select.records import SelectionError
    from ..select.shards import shard

    if not spec:
        return selected
    try:
        i, n = (int(x) for x in spec.split("/"))
        if not 1 <= i <= n:
            raise ValueError
        return shard(selected, n)[i - 1]
    except (ValueError, SelectionError):
        raise _UserError(f"--shard expects I/N with 1 <= I <= N, got {spec!r}") from None


def _report(sel, quiet: bool) -> None:
    for w in sel.warnings:
        print(f"hwselect: warning: {w}", file=sys.stderr)
    if not quiet:
        print(sel.summary(), file=sys.stderr)


def _report_empty(sel, shard: str | None) -> None:
    if shard and sel.selected:
        print(f"hwselect: shard {shard} of runner {sel.runner.name} is empty", file=sys.stderr)
        return
    print(f"hwselect: runner {sel.runner.name} selects nothing:", file=sys.stderr)
    for reason in sel.why_empty():
        print(f"  - {reason}", file=sys.stderr)


# -- formats ------------------------------------------------------------------------------------


def write_nodeids(sel, chosen, args) -> None:
    """One ``path::Class`` per line (a pytest argument file: ``pytest @ids.txt``)."""
    _emit(nodeid_lines(sel, chosen), args.argsfile)


def _emit(lines: list[str], argsfile: str | None) -> None:
    """Print *lines*, or write them to *argsfile* and print ``@argsfile`` for pytest."""
    _one_per_line(lines)
    if argsfile:
        with open(argsfile, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"@{argsfile}")
        return
    print("\n".join(lines))


def _one_per_line(lines: list[str]) -> None:
    """One argument per line is the contract: a path holding a line break (or another control
    character) would become several arguments, or forge one. Refuse it (exit 2)."""
    from .output import printable

    bad = next((line for line in lines if printable(line) != line), None)
    if bad is not None:
        raise _UserError(
            f"{printable(bad)}: a path with a control character cannot be written one per line; "
            "rename the file (--format k can still select it by class name)"
        )


def nodeid_lines(sel, chosen) -> list[str]:
    """Node ids of *chosen*, as pytest arguments one per line.

    Some classes have no node id certain to exist, and pytest aborts the run on one it cannot
    find: a PrivateUse1 class is named ``...PRIVATEUSE1`` or after the backend depending on
    collection order, and a class defined (or instantiated) under an ``if`` may not exist. Their
    file is listed instead and, when that file holds anything not chosen, two more lines ``-k`` and
    an expression exact over the listed scope (node ids of the other files select only chosen
    classes, so their module name suffices).
    """
    from ..select.explain import relpath
    from ..select.kexpr import build

    ids = {id(c) for c in chosen}
    lines: list[str] = []
    scope = []
    scope_functions = {}
    mixed = False
    whole: list[str] = []
    named = conditional = 0
    for f in sel.files:
        mine = [c for c in f.candidates if id(c) in ids]
        if not mine:
            continue
        unsure = [c for c in mine if c.uncertain_nodeid]
        if unsure:
            whole.append(relpath(f.path))
            named += sum(c.uncertain_name for c in unsure)
            conditional += sum(not c.uncertain_name for c in unsure)
            lines.append(relpath(f.path))
            scope += f.candidates
            scope_functions[f.path] = f.functions
            mixed = mixed or len(mine) < len(f.candidates) or bool(f.functions)
            continue
        lines += [f"{relpath(c.path)}::{c.name}" for c in mine]
        scope += mine
    if whole:
        print(
            f"hwselect: note: {len(whole)} files listed whole (first: {whole[0]}): no certain node id "
            f"for {named} PrivateUse1 classes (named by collection order) and {conditional} classes "
            "whose existence depends on a run-time fact (a condition, a rebinding, dynamic code: "
            "`hwselect explain` says which)" + ("; a -k keeps exactly the selected classes" if mixed else ""),
            file=sys.stderr,
        )
    if mixed:
        plan = build(scope, [c for c in scope if id(c) in ids], scope_functions)
        if plan.exact:
            lines += ["-k", plan.expression]
        else:
            for c, reason in plan.inexact:
                print(
                    f"hwselect: warning: {c.nodeid}: no certain node id, and -k cannot single it "
                    f"out ({reason}); its whole file is listed",
                    file=sys.stderr,
                )
    return lines


def write_files(sel, chosen, args) -> None:
    """The files holding at least one chosen class."""
    from ..select.explain import relpath

    chosen_ids = {id(c) for c in chosen}
    lines = [relpath(f.path) for f in sel.files if any(id(c) in chosen_ids for c in f.candidates)]
    _one_per_line(lines)
    for line in lines:
        print(line)


def write_k(sel, chosen, args) -> None:
    """A -k expression, or node ids (a pytest argument file) when one argument cannot say it.

    Node ids are also what ``--argsfile`` writes: they are exact by construction, and pytest
    resolves them far faster than it evaluates a long expression once per collected item.
    """
    from ..select.kexpr import MAX_ARG_BYTES, build

    plan = build(sel.candidates, chosen, sel.functions())
    for c, reason in plan.inexact:
        print(f"hwselect: -k cannot select {c.nodeid} exactly: {reason}", file=sys.stderr)
    if plan.exact and plan.size <= MAX_ARG_BYTES and not args.argsfile:
        print(plan.expression)
        return
    if not plan.exact:
        print("hwselect: falling back to node ids (a pytest argument file)", file=sys.stderr)
    elif not args.argsfile:
        print(
            f"hwselect: the -k expression is {plan.size} bytes, over the {MAX_ARG_BYTES}-byte "
            "argument limit; printing node ids instead: save them and run `pytest @FILE`",
            file=sys.stderr,
        )
    _emit(nodeid_lines(sel, chosen), args.argsfile)


def write_json(sel, chosen, args) -> None:
    """Per file: chosen classes, an expression exact for that file alone, and counts."""
    print(json.dumps(selection_json(sel, chosen), indent=2))


def selection_json(sel, chosen) -> dict:
    """The json format's document (a contract: see the README)."""
    from ..select.explain import relpath
    from ..select.kexpr import build
    from ..select.records import STATUSES

    ids = {id(c) for c in chosen}
    files = []
    for f in sel.files:
        mine = [c for c in f.candidates if id(c) in ids]
        if not mine:
            continue
        plan = build(f.candidates, mine, {f.path: f.functions})
        counts = {s: sum(1 for c in f.candidates if c.status == s) for s in STATUSES}
        files.append(
            {
                "path": relpath(f.path),
                "classes": [
                    {
                        "name": c.name,
                        "names": list(c.names),
                        "classification": c.classification,
                        "generic": c.generic,
                        "tests": c.test_count,
                    }
                    for c in mine
                ],
                "expression": plan.expression if plan.exact else None,
                "counts": {"total": len(f.candidates), "chosen": len(mine), **counts},
            }
        )
    plan = build(sel.candidates, chosen, sel.functions())
    return {
        "runner": sel.runner.name,
        "device": sel.runner.device,
        "runs": list(sel.runner.runs),
        "backends": list(sel.backends),
        "counts": {**sel.counts(), "chosen": len(chosen)},
        "expression": plan.expression if plan.exact else None,
        "inexact": [{"nodeid": c.nodeid, "reason": r} for c, r in plan.inexact],
        "files": files,
        "warnings": list(sel.warnings),
    }


WRITERS = {"k": write_k, "nodeids": write_nodeids, "files": write_files, "json": write_json}


def _select_all(taxonomy, config, names, paths, args):
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
    for s in skipped:
        print(f"hwselect: warning: {s}", file=sys.stderr)
    from ..pipeline.session import Session

    max_bytes = config.max_file_size * 1024 * 1024
    session = Session(taxonomy, args.jobs, _cache(args, config, taxonomy), max_bytes, config.roots)
    return select_all(session, files, args.backend, args.include_unclassified, runners)


def cmd_matrix(args, config, taxonomy, paths) -> int:
    """A GitHub Actions ``strategy.matrix`` object: ``{"include": [{runner, shard, ...}]}``."""
    from ..select.shards import shard

    names = [r for r in (args.runners or "").split(",") if r] or list(taxonomy.runners)
    if args.shards < 1:
        raise _UserError("--shards must be at least 1")
    include = []
    empty = []
    for name, sel in _select_all(taxonomy, config, names, paths, args).items():
        _report(sel, args.quiet)
        if not sel.selected:
            empty.append(sel)
            continue
        parts = shard(sel.selected, args.shards)
        for i, part in enumerate(parts, 1):
            if not part:
                continue
            include.append(
                {
                    "runner": name,
                    "device": sel.runner.device,
                    "shard": i,
                    "shards": args.shards,
                    "classes": len(part),
                    "tests": sum(c.test_count for c in part),
                    "files": len({c.path for c in part}),
                }
            )
    for sel in empty:
        _report_empty(sel, None)
    print(json.dumps({"include": include}))
    return EXIT_OK if include else EXIT_EMPTY


def cmd_explain(args) -> int:
    from ..select.explain import explain
    from ..select.records import SelectionError

    path, sep, cls = args.target.partition("::")
    config, taxonomy = _setup(args, [path])
    if not sep or not cls:
        raise _UserError(f"expected PATH::Class, got {args.target!r}")
    if not os.path.exists(path):
        raise _UserError(f"{path}: no such file")
    try:
        lines = explain(taxonomy, args.runner, path, cls, args.backend, config.roots)
    except SelectionError as e:
        raise _UserError(str(e)) from None
    print("\n".join(lines))
    return EXIT_OK if lines[0].startswith("RUNS") else EXIT_EMPTY
