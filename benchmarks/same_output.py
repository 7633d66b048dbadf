"""Check that the working tree gives the same results as a git revision on a real tree.

    python benchmarks/same_output.py --tree pytorch-v2.6.0/test HEAD
    python benchmarks/same_output.py --tree DIR 3e278ca --skip-fix --skip-select

A change meant to make hwlint faster must not change what it says. This compares, for every file
of the tree and each bundled taxonomy (taxonomy.yaml, examples/taxonomy-vendor.yaml,
examples/taxonomy-strict.yaml): the findings and the model (as plain data: a record is the tuple
of its fields, an enum its value) of the revision and of the working tree; then the bytes and the
output of a whole-tree ``hwlint check --fix --unsafe-fixes`` (each on a fresh copy of the tree);
then hwselect's output for every runner (nodeids, -k and json, with --include-unclassified). It
prints what differs and exits 1 when anything does. Nothing is written outside a temporary directory.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAXONOMIES = ("taxonomy.yaml", "examples/taxonomy-vendor.yaml", "examples/taxonomy-strict.yaml")


def export(rev: str, where: Path) -> Path:
    """hwlint as of *rev*, importable from the returned directory."""
    command = ["git", "-C", str(ROOT), "archive", rev, "hwlint", "taxonomy.yaml"]
    archive = subprocess.run(command, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
    return where


def models_and_findings(source: Path, tree: Path, out: Path, models: bool) -> None:
    """Write, for each taxonomy and file, the repr of its findings (and model) to *out*."""
    code = f"""
import dataclasses, enum, sys, warnings
from pathlib import Path
sys.path.insert(0, {str(source)!r})
import importlib


def first(attr, *modules):
    # the revision and the working tree may keep a function in different modules
    for name in modules:
        try:
            return getattr(importlib.import_module(name), attr)
        except (ImportError, AttributeError):
            continue
    raise ImportError(attr)


Selection = first("Selection", "hwlint.rules.check", "hwlint.checker")
run_rules = first("run_rules", "hwlint.rules.check", "hwlint.checker")
build_model = first("build_model", "hwlint.model", "hwlint.model.build")
load_taxonomy = first("load_taxonomy", "hwlint.taxonomy")


def shown(f):
    # a finding as it is reported: its fix as its applicability (a revision may carry a Fix record)
    fix = getattr(f.fix, "applicability", f.fix)
    fix = None if fix == "none" else plain(fix)
    return (f.path, f.line, f.col, f.code, f.message, f.end_line, f.end_col, fix)


def plain(v):
    # a value as plain data: a record is the tuple of its compared fields, an enum its value, so
    # that a record retyped with the same data (a tuple become a NamedTuple, a string an enum) is
    # the same
    if isinstance(v, enum.Enum):
        return v.value
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return tuple(plain(getattr(v, f.name)) for f in dataclasses.fields(v) if f.compare)
    if isinstance(v, (list, tuple)):
        return tuple(plain(x) for x in v)
    if isinstance(v, dict):
        return {{k: plain(x) for k, x in v.items()}}
    return v


warnings.simplefilter("ignore")
tree = Path({str(tree)!r})
with open({str(out)!r}, "w") as out:
    for name in {TAXONOMIES!r}:
        taxonomy = load_taxonomy(Path({str(ROOT)!r}) / name)
        for path in sorted(tree.rglob("*.py")):
            model = build_model(path.read_bytes(), str(path.relative_to(tree)), taxonomy)
            findings = [shown(f) for f in run_rules(model, taxonomy, Selection())]
            out.write(f"{{name}}\\t{{path.relative_to(tree)}}\\t{{findings!r}}\\n")
            if {models!r}:
                out.write(f"{{name}}\\t{{path.relative_to(tree)}}\\tmodel\\t{{plain(model)!r}}\\n")
"""
    subprocess.run([sys.executable, "-c", code], check=True)


def run(source: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python ARGS`` in *cwd* with hwlint from *source* (neither run writes a cache)."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    env.pop("CI", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True)


def compare_lines(name: str, old: Path, new: Path) -> int:
    a, b = old.read_text().splitlines(), new.read_text().splitlines()
    differ = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
    if len(a) != len(b) or differ:
        print(f"  {name}: {len(differ)} of {len(a)} lines differ (and {len(a)} vs {len(b)} lines)")
        for x, _ in differ[:3]:
            print(f"    first: {x[:200]}")
        return 1
    print(f"  {name}: the same ({len(a)} lines)")
    return 0


def compare_trees(old: Path, new: Path) -> int:
    diff = filecmp.dircmp(old, new)
    todo, bad = [diff], []
    while todo:
        d = todo.pop()
        bad += [f"{d.left}/{n}" for n in (*d.diff_files, *d.left_only, *d.right_only)]
        todo += d.subdirs.values()
    if bad:
        print(f"  fixed trees: {len(bad)} files differ, first {bad[0]}")
        return 1
    print("  fixed trees: byte for byte the same")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare the working tree with")
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--no-models", action="store_true", help="compare findings only, not models")
    parser.add_argument("--skip-fix", action="store_true")
    parser.add_argument("--skip-select", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    tree = args.tree.resolve()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "old").mkdir()
        sources = {"old": export(args.rev, work / "old"), "new": ROOT}
        print(f"{args.rev} against the working tree, on {tree}")
        for side, source in sources.items():
            models_and_findings(source, tree, work / f"{side}.txt", not args.no_models)
        what = "findings" if args.no_models else "findings and models"
        failed += compare_lines(what, work / "old.txt", work / "new.txt")
        if not args.skip_fix:
            for side, source in sources.items():
                copy = work / f"fix-{side}"
                shutil.copytree(tree, copy)
                check = ["-m", "hwlint", "check", "--no-cache", "--exit-zero", "--fix", "--unsafe-fixes", "."]
                done = run(source, check, copy)
                (work / f"fix-{side}.txt").write_text(done.stdout + done.stderr)
            failed += compare_trees(work / "fix-old", work / "fix-new")
            failed += compare_lines("--fix output", work / "fix-old.txt", work / "fix-new.txt")
        if not args.skip_select:
            select = (
                "import sys\ntry:\n    from hwlint.cli.select import main\n"
                "except ImportError:\n    from hwlint.select_cli import main\nsys.exit(main())"
            )
            runners = ("cpu", "cuda", "rocm", "mps", "xpu", "privateuse1")
            for side, source in sources.items():
                with open(work / f"select-{side}.txt", "w") as out:
                    for runner in runners:
                        for fmt in ("nodeids", "k", "json"):
                            argv = ["-c", select, runner, ".", "--no-cache", "--include-unclassified"]
                            done = run(source, [*argv, "--format", fmt], tree)
                            out.write(f"{runner} {fmt} exit {done.returncode}\n{done.stdout}{done.stderr}\n")
            failed += compare_lines("hwselect output", work / "select-old.txt", work / "select-new.txt")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
