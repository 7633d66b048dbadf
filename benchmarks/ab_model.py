"""Compare the model's cost (model + rules, after the parse) of a git revision with the working tree.

    python benchmarks/ab_model.py --tree pytorch-v2.6.0/test HEAD~1
    python benchmarks/ab_model.py --tree DIR e63e866 --rounds 3

On a shared machine two runs of the same command differ by 20 to 30%, far more than most changes to
the model are worth; this script measures both versions in one process, file by file, alternately
(the revision's package is imported under another name), and keeps each file's fastest round. It
prints the parse, each version's time as a multiple of it, and their ratio. CPU time, the cycle
collector off, as in hwlint's workers. Nothing is written outside a temporary directory.
"""

from __future__ import annotations

import argparse
import ast
import gc
import importlib
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def extract_revision(rev: str, where: Path) -> Path:
    """hwlint's package and taxonomy as of git revision *rev*, written into *where*."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "hwlint", "taxonomy.yaml"], capture_output=True, check=True
    ).stdout
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def import_revision(rev: str, where: Path):
    """hwlint as of *rev*, importable as the package ``hwlint_base`` (its relative imports hold)."""
    name = "hwlint_base"
    extract_revision(rev, where)
    (where / "hwlint").rename(where / name)
    sys.path.insert(0, str(where))
    package = where / name
    # the rules' runner moved from checker.py to rules/check.py with the package layout
    checker = "rules.check" if (package / "rules" / "check.py").exists() else "checker"
    return tuple(importlib.import_module(f"{name}.{m}") for m in ("model", checker, "taxonomy"))


def parsable_files(tree: Path, decode_source) -> list[tuple[str, str, str]]:
    """(path, text, encoding) of every Python file under *tree* that CPython parses."""
    files = []
    for path in sorted(tree.rglob("*.py")):
        try:
            source, encoding = decode_source(path.read_bytes())
            ast.parse(source)
        except (SyntaxError, ValueError, UnicodeDecodeError, LookupError):
            continue
        files.append((str(path), source, encoding))
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare with the working tree")
    parser.add_argument("--tree", type=Path, required=True, help="the test tree to model")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    import hwlint.model as new_model
    import hwlint.rules.check as new_checker
    import hwlint.taxonomy as new_taxonomy

    with tempfile.TemporaryDirectory() as tmp:
        old_model, old_checker, old_taxonomy = import_revision(args.rev, Path(tmp))
        versions = [
            (m, c, t.load_taxonomy(ROOT / "taxonomy.yaml"))
            for m, c, t in ((old_model, old_checker, old_taxonomy), (new_model, new_checker, new_taxonomy))
        ]
        files = parsable_files(args.tree, new_model.decode_source)
        gc.disable()
        warnings.simplefilter("ignore")
        best = [[float("inf")] * len(files) for _ in range(3)]  # old, new, parse
        for r in range(args.rounds):
            for i, (path, source, encoding) in enumerate(files):
                start = time.process_time()
                ast.parse(source, path)
                best[2][i] = min(best[2][i], time.process_time() - start)
                for k in (0, 1) if r % 2 == 0 else (1, 0):
                    model_mod, checker_mod, taxonomy = versions[k]
                    tree = ast.parse(source, path)
                    start = time.process_time()
                    model = model_mod.model_from_tree(tree, source, path, taxonomy, encoding)
                    checker_mod.run_rules(model, taxonomy, checker_mod.Selection())
                    best[k][i] = min(best[k][i], time.process_time() - start)
                    del tree, model
    old, new, parse = map(sum, best)
    print(f"{len(files)} files; parse {parse:.2f} s")
    print(f"{args.rev}: {old:.2f} s = {old / parse:.3f}x the parse")
    print(f"working tree: {new:.2f} s = {new / parse:.3f}x the parse")
    print(f"working tree / {args.rev}: {new / old:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
