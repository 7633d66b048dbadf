"""Upstream's TEST_LINTER against ``hwlint check`` on one tree: the classes each reports (docs/fixes.md).

    python benchmarks/test_linter_parity.py --tree DIR --peer PATH/tools/linter/adapters/test_linter.py

DIR holds a ``test/`` tree (a copy of PyTorch 2.6.0's, fixed with ``hwlint check --fix
--unsafe-fixes --ignore-noqa``) and ``examples/pytorch/pyproject.toml`` at its root, as docs/fixes.md
lays it out. The peer is upstream's adapter (public in PyTorch's repository: fetch it yourself); it
finds the repository's root three directories above itself, so it is copied to
``DIR/tools/linter/adapters/`` and run there on every ``.py`` file under ``DIR/test`` (it keeps the
files of its own scope). hwlint runs as ``hwlint check --ignore-noqa --no-cache --output-format json
test`` from DIR. A finding belongs to the class its message names first (upstream: the first quoted
name, ``'TestFoo'`` or ``'TestFoo.test_x'``; hwlint: the first one in backticks); a file the peer
cannot parse counts as one "class" of its own. Printed as JSON: the classes each reports, and those
only the peer reports (issue 50 asks for none).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

PEER_NAME = re.compile(r"'(\w+)")
HWLINT_NAME = re.compile(r"`(\w+)")
HWLINT = [sys.executable, "-m", "hwlint"]


def peer_classes(tree: Path, peer: Path) -> set[tuple[str, str]]:
    """(path relative to *tree*, class) of each class the peer reports under ``tree/test``."""
    adapters = tree / "tools" / "linter" / "adapters"
    adapters.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(peer, adapters / "test_linter.py")
    listing = tree / "files.txt"
    listing.write_text("".join(f"{p}\n" for p in sorted((tree / "test").rglob("*.py"))))
    out = subprocess.run(
        [sys.executable, str(adapters / "test_linter.py"), f"@{listing}"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    found = set()
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("severity") != "error" or (m.get("line") is None and m.get("name") != "[parse_error]"):
            continue
        name = PEER_NAME.search(m.get("description") or "")
        path = str(Path(m["path"]).resolve().relative_to(tree.resolve()))
        found.add((path, name.group(1) if name and m["name"] != "[parse_error]" else "<file>"))
    return found


def hwlint_classes(tree: Path) -> tuple[set[tuple[str, str]], dict[str, int]]:
    """(path, class) of each class ``hwlint check`` reports an error in, and its errors per code."""
    out = subprocess.run(
        [*HWLINT, "check", "--ignore-noqa", "--no-cache", "--exit-zero", "--output-format", "json", "test"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found, codes = set(), {}
    for f in json.loads(out):
        if f["severity"] == "advice":
            continue
        codes[f["code"]] = codes.get(f["code"], 0) + 1
        name = HWLINT_NAME.search(f["message"])
        found.add((f["filename"], name.group(1) if name else "<file>"))
    return found, dict(sorted(codes.items(), key=lambda kv: -kv[1]))


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--tree", type=Path, required=True, help="a directory holding test/")
    parser.add_argument("--peer", type=Path, required=True, help="upstream's test_linter.py")
    args = parser.parse_args()
    peer = peer_classes(args.tree, args.peer)
    ours, codes = hwlint_classes(args.tree)
    only_peer = sorted(peer - ours)
    print(
        json.dumps(
            {
                "peer_classes": len(peer),
                "hwlint_classes": len(ours),
                "hwlint_errors": sum(codes.values()),
                "hwlint_errors_by_code": codes,
                "only_peer": len(only_peer),
                "only_peer_classes": [f"{p}::{c}" for p, c in only_peer],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
