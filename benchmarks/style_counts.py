"""The style checkers' findings on the files a fix changed, per code, before and after (docs/fixes.md).

    python benchmarks/style_counts.py --before PRISTINE/test --after FIXED/test [--select E,W,I,F401]

BEFORE is an untouched copy of a tree, AFTER the same tree fixed (``hwlint check --fix --unsafe-fixes
--ignore-noqa --no-cache test``). A file is changed when its bytes differ. ``ruff check --isolated``
(its defaults otherwise: 88 columns) runs on the changed files of each tree. Printed: one line per
code (before, after, difference), the total, and per code the files holding more after than before
(``--files``), the places to look for what a fix wrote. ``--json`` writes every count.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

RUFF = ["ruff", "check", "--isolated", "--output-format", "json", "--exit-zero"]


def changed_files(before: Path, after: Path) -> list[str]:
    """The ``.py`` files under *after* (relative paths) whose bytes differ from *before*'s, or new."""
    out = []
    for path in sorted(after.rglob("*.py")):
        rel = path.relative_to(after)
        old = before / rel
        if not old.is_file() or not filecmp.cmp(path, old, shallow=False):
            out.append(str(rel))
    return out


def ruff_counts(root: Path, files: list[str], select: str) -> Counter:
    """(file, code) -> findings of ``ruff check --isolated --select SELECT`` on *files* of *root*."""
    counts: Counter = Counter()
    for i in range(0, len(files), 500):  # argv stays far below the kernel's limit
        out = subprocess.run(
            [*RUFF, "--select", select, *files[i : i + 500]],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        )
        for d in json.loads(out.stdout):
            counts[(str(Path(d["filename"]).relative_to(root.resolve())), d["code"])] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--select", default="E,W,I,F401")
    parser.add_argument("--files", action="store_true", help="the files holding more of a code after")
    parser.add_argument("--json", type=Path, help="write every count here")
    args = parser.parse_args(argv)
    files = changed_files(args.before, args.after)
    before = ruff_counts(args.before, files, args.select)
    after = ruff_counts(args.after, files, args.select)
    by_code_before: Counter = Counter()
    by_code_after: Counter = Counter()
    for (_, code), n in before.items():
        by_code_before[code] += n
    for (_, code), n in after.items():
        by_code_after[code] += n
    print(f"{len(files)} files changed")
    for code in sorted(set(by_code_before) | set(by_code_after)):
        b, a = by_code_before[code], by_code_after[code]
        print(f"{code:6} {b:8,} {a:8,} {a - b:+6,}")
    print(f"{'all':6} {sum(by_code_before.values()):8,} {sum(by_code_after.values()):8,}")
    worse = sorted((key, before[key], n) for key, n in after.items() if n > before[key])
    if args.files:
        for (path, code), b, a in worse:
            print(f"  {code} {path}: {b} -> {a}")
    if args.json is not None:
        rows = [
            {"file": f, "code": c, "before": before[(f, c)], "after": after[(f, c)]}
            for f, c in before | after
        ]
        args.json.write_text(json.dumps({"changed": files, "counts": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
