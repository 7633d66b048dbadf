"""``hwselect diff`` and ``hwselect expectations``: what a change does to each runner, and a
vendor's expectations kept against it. A thin front end over :mod:`hwlint.select.diff`,
:mod:`hwlint.select.trees` and :mod:`hwlint.select.expectations`.

Exit codes (diff): 0 the diff was made (whatever it holds); 1 with ``--check-expectations``, an
expectation is stale or moved (after ``--fix``: one is still stale); 2 usage, configuration, git or
input error.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .common import Parser, UserError, add_engine_options, options_of, run_options
from .run import config_and_taxonomy

if TYPE_CHECKING:
    from ..pipeline.session import RunOptions

EXIT_OK, EXIT_STALE, EXIT_ERROR = 0, 1, 2


def build_diff_parser() -> Parser:
    p = Parser(
        prog="hwselect diff",
        description="The tests that enter and leave each runner's selection between two revisions "
        "(or two directory trees), grouped by cause.",
        epilog="RUNNER and PATH may be mixed: a taxonomy runner's name that is not a path is a runner. "
        "Exit codes: 0 done, 1 stale or moved expectations (--check-expectations), 2 error.",
    )
    p.add_argument(
        "args", nargs="*", metavar="RUNNER|PATH", help="runners (default: all) and paths (default: .)"
    )
    side = p.add_argument_group("the two sides (a revision is read from git, never checked out)")
    side.add_argument("--base", metavar="REV", help="the revision before the change")
    side.add_argument("--head", metavar="REV", help="the revision after it (default: the files on disk)")
    side.add_argument("--base-tree", metavar="DIR", help="the tree before the change, as a directory")
    side.add_argument("--head-tree", metavar="DIR", help="the tree after it, as a directory")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument("-v", "--verbose", action="store_true", help="text: every test, not only per class")
    p.add_argument(
        "--expectations", metavar="FILE", help="report stale and moved entries and uncovered tests"
    )
    p.add_argument("--fix", action="store_true", help="with --expectations: rewrite the keys a rename moved")
    p.add_argument("--check-expectations", action="store_true", help="exit 1 on a stale or moved entry")
    _shared(p)
    add_engine_options(p)
    return p


def build_expectations_parser() -> Parser:
    p = Parser(
        prog="hwselect expectations import",
        description="Turn a node-id list (JSON Lines objects holding a node id, or one node id a line) "
        "into an expectations file keyed by the test identity.",
    )
    p.add_argument("verb", choices=("import",))
    p.add_argument("source", metavar="LIST", help="the node-id list (- for stdin)")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the expectations file (.yaml or .jsonl)"
    )
    p.add_argument("--runner", action="append", default=[], metavar="NAME", help="the runners it is for")
    p.add_argument("--status", choices=("skip", "xfail"), default="skip")
    p.add_argument(
        "--reason", default="imported from a node-id list", help="the reason of entries without one"
    )
    _shared(p)
    return p


@dataclass(frozen=True)
class DiffOptions:
    """What the arguments of ``hwselect diff`` (or ``hwselect expectations import``) ask, typed:
    read once from the parsed arguments (:meth:`of`; an option a command lacks has its default),
    the command then reads these, never the arguments. *run*: the session's options."""

    items: tuple[str, ...] = ()  # runners and paths, mixed
    base: str | None = None
    head: str | None = None
    base_tree: str | None = None
    head_tree: str | None = None
    format: str = "text"
    verbose: bool = False
    expectations: str | None = None
    fix: bool = False
    check_expectations: bool = False
    taxonomy: str | None = None
    config: str | None = None
    backend: tuple[str, ...] = ()
    include_unclassified: bool = False
    # expectations import
    source: str = "-"
    output: str = ""
    runner: tuple[str, ...] = ()
    status: str = "skip"
    reason: str = ""
    run: RunOptions | None = None

    @classmethod
    def of(cls, args) -> DiffOptions:
        return options_of(cls, args, items=getattr(args, "args", ()), run=run_options(args))


def _shared(p: Parser) -> None:
    p.add_argument("--taxonomy", metavar="FILE", help="taxonomy YAML (default: [tool.hwlint] or bundled)")
    p.add_argument("--config", metavar="FILE", help="pyproject.toml to read [tool.hwlint] from")
    p.add_argument("--backend", action="append", default=[], metavar="NAME", help="PrivateUse1 backend name")
    p.add_argument("--include-unclassified", action="store_true", help="select unclassified classes too")


def cmd_diff(options) -> int:
    from ..select.diffrender import markdown, text_lines
    from ..select.revisions import RevisionError
    from ..select.trees import diff_directories, diff_revisions

    if bool(options.base_tree) != bool(options.head_tree):
        raise UserError("--base-tree and --head-tree go together")
    if options.base_tree and (options.base or options.head):
        raise UserError("give --base/--head (revisions) or --base-tree/--head-tree (directories), not both")
    if not options.base_tree and not options.base:
        raise UserError("give --base REV (and --head REV), or --base-tree DIR --head-tree DIR")
    if options.fix and not options.expectations:
        raise UserError("--fix rewrites an expectations file: give it with --expectations FILE")
    for d in (options.base_tree, options.head_tree):
        if d and not os.path.isdir(d):
            raise UserError(f"{d}: not a directory")
    probe = options.head_tree or "."
    config, taxonomy = config_and_taxonomy(options.config, options.taxonomy, options.run, [probe])
    runners, paths = _split(options.items, taxonomy, options.head_tree)
    entries = _expectations(options.expectations)
    request = _request(options, config, taxonomy, runners, probe)
    try:
        if options.base_tree:
            diff = diff_directories(request, options.base_tree, options.head_tree, paths)
        else:
            diff = diff_revisions(request, options.base, options.head, paths)
    except RevisionError as e:
        raise UserError(str(e)) from None
    audits = _audits(entries, diff) if entries is not None else []
    if options.format == "json":
        doc = diff.as_json()
        if entries is not None:
            doc["expectations"] = [a.as_json() for a in audits]
        print(json.dumps(doc, indent=2))
    elif options.format == "markdown":
        sys.stdout.write(markdown(diff))
    else:
        print("\n".join(text_lines(diff, options.verbose)))
    for a in audits:
        for line in a.lines():
            print(f"hwselect: {line}", file=sys.stderr)
    return _finish_expectations(options, audits)


def _finish_expectations(options, audits) -> int:
    from ..select.expectations import rewrite

    moves = [(e.key, new) for a in audits for e, new in a.moved]
    if options.fix and moves:
        try:
            done = rewrite(options.expectations, moves)
        except OSError as e:
            raise UserError(f"{options.expectations}: cannot write: {e.strerror or e}") from None
        print(f"hwselect: {options.expectations}: {done} moved keys rewritten", file=sys.stderr)
        moves = []
    stale = any(a.stale for a in audits)
    return EXIT_STALE if options.check_expectations and (stale or moves) else EXIT_OK


def _split(items: Sequence[str], taxonomy, root: str | None) -> tuple[list[str], list[str]]:
    """Runners and paths of the positional arguments: a runner's name that is no path is a runner."""
    runners, paths = [], []
    for item in items:
        exists = os.path.lexists(os.path.join(root, item) if root else item)
        (runners if item in taxonomy.runners and not exists else paths).append(item)
    return runners, paths


def _request(options, config, taxonomy, names: Sequence[str], probe: str):
    from ..pipeline.session import Session
    from ..select.records import SelectionError
    from ..select.runners import get_runner
    from ..select.trees import Request

    try:
        runners = [get_runner(taxonomy, n) for n in names] or list(taxonomy.runners.values())
    except SelectionError as e:
        raise UserError(str(e)) from None
    session = Session.from_config(config, options.run, taxonomy, paths=[probe])
    return Request(session, config, runners, tuple(options.backend), options.include_unclassified)


def _expectations(path: str | None):
    from ..select.expectations import ExpectationsError, load_expectations

    if path is None:
        return None
    try:
        return load_expectations(path)
    except ExpectationsError as e:
        raise UserError(str(e)) from None


def _audits(entries, diff):
    from ..select.expectations import audit

    out = []
    for rd in diff.runners:
        selected = diff.head_tests.get(rd.runner, {})
        added = [c.key for c in rd.added]
        out.append(audit(entries, rd.runner, selected, diff.renamed_map, added, diff.test_renames))
    return out


def cmd_expectations(options) -> int:
    from ..collection import all_suffixes
    from ..select.expectations import dump, import_nodeids

    _, taxonomy = config_and_taxonomy(options.config, options.taxonomy, options.run, ["."])
    try:
        if options.source == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(options.source, encoding="utf-8") as f:
                lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"{options.source}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    unknown = [r for r in options.runner if r not in taxonomy.runners and not any(c in r for c in "*?[")]
    if unknown:
        raise UserError(
            f"unknown runner {unknown[0]!r} (the taxonomy defines: {', '.join(taxonomy.runners)})"
        )
    suffixes = all_suffixes(taxonomy, tuple(options.backend))
    entries, rejected = import_nodeids(lines, suffixes, options.runner, options.status, options.reason)
    for line in rejected:
        print(f"hwselect: {options.source}: not a test in a class, left out: {line[:200]}", file=sys.stderr)
    try:
        dump(entries, options.output)
    except OSError as e:
        raise UserError(f"{options.output}: cannot write: {e.strerror or e}") from None
    print(f"hwselect: {options.output}: {len(entries):,} entries", file=sys.stderr)
    return EXIT_OK
