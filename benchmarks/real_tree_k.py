"""``-k`` against node ids on a real, classified PyTorch tree (docs/hwselect-real-tree.md, issue 27).

    python benchmarks/real_tree_k.py --tree /tmp/hws/test --out /tmp/rtk --runner cuda

TREE is PyTorch's ``test/`` after ``hwlint check --fix --unsafe-fixes`` (so classes are classified).
For one runner: ``hwselect RUNNER . --format k`` and ``hwselect RUNNER .`` (node ids) run in a copy
of the tree (benchmarks/real_tree.py's ``prepare``: conftest patched for pytest 9, its collection
plugin faking the runner's device); then pytest collects, with the runner's environment and
torch 2.14.1's testing modules laid over the installed torch (they define ``HardwareClassification``,
which the fixed files import), both ``pytest --collect-only -k EXPR FILES`` and ``pytest
--collect-only @ids.txt``; the two sets of collected items must be equal.

Both collections run in the same batches of files (real_tree's ``collect_batch``: one fresh
``pytest`` process per batch; a module calling ``sys.exit()`` on import ends its batch, so the files
it cut short are collected again one by one). A batch's ids are the lines of ids.txt for its files,
with ids.txt's own trailing ``-k`` when there is one. PrivateUse1 classes are named ``...PRIVATEUSE1``
or ``...OPENREG`` by collection order, which differs between the two collections (the node-id one
imports fewer modules), so both names count as one. Results go to OUT/k-summary-RUNNER.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_tree import RUNNERS, collect_batch, prepare, test_files

OVERLAY = "/work/cache/t214/torch/testing/_internal"
OVERLAY_PLUGIN = '''\
"""Lays torch 2.14.1's testing modules over the installed torch before anything imports them, and
notes that the session reached the end of its collection (a module's sys.exit() ends it earlier:
pytest then reports the items collected so far without -k's deselection)."""
import os

import pytest
import torch.testing._internal as _internal

_internal.__path__.insert(0, os.environ["HW_TESTING_OVERLAY"])


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    if "HW_COLLECT_OUT" in os.environ:
        with open(os.environ["HW_COLLECT_OUT"] + ".modified", "w") as f:
            f.write(str(len(items)))
'''


def hwselect(root: Path, runner: str, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "hwselect"
    cmd = [str(exe), runner, ".", *RUNNERS[runner]["args"], *args]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True)


def split_ids(lines: list[str]) -> tuple[list[str], str | None]:
    """ids.txt's node ids and paths, and its trailing -k expression (None without one)."""
    if len(lines) >= 2 and lines[-2] == "-k":
        return lines[:-2], lines[-1]
    return lines, None


def line_file(line: str) -> str:
    path = line.split("::")[0]
    return path[2:] if path.startswith("./") else path


_PU1 = re.compile(r"(::\w+?)(?:OPENREG|PRIVATEUSE1)(::)")


def normal(nodeid: str) -> str:
    """One spelling for a PrivateUse1 class's two names (and its tests' ``_openreg`` suffix stays)."""
    return _PU1.sub(r"\1PRIVATEUSE1\2", nodeid)


def run(root: Path, runner: str, out: Path, files: list[str], args_for, batch: int, timeout: int) -> dict:
    """Items collected per file, collecting *files* in batches with ``args_for(batch_files)`` as
    pytest's arguments (None: nothing to collect for them); files a sys.exit() cut short again alone."""
    done: dict[str, dict] = {}
    queue = [files[i : i + batch] for i in range(0, len(files), batch)]
    while queue:
        part = queue.pop(0)
        args = args_for(part)
        if args is None:
            for f in part:
                done[f] = {"items": [], "complete": True}
            continue
        data = collect_batch(root, args, runner, out, timeout)
        flag = out / f"collect-{runner}-{os.getpid()}.json.modified"
        if data is not None and not flag.exists():
            data = None  # cut short by a sys.exit(): -k never ran; split the batch
        flag.unlink(missing_ok=True)
        if data is None:
            if len(part) > 1:
                mid = len(part) // 2
                queue[:0] = [part[:mid], part[mid:]]
            else:
                done[part[0]] = {"error": "timeout, crash or sys.exit() during collection"}
            continue
        failed = {n.split("::")[0] for n in data["failed"]}
        reported = set(data.get("reported", ()))
        cut = []
        for f in part:
            items = [i for i in data["items"] if i.split("::")[0] == f]
            if f in failed:
                done[f] = {"error": "collection failed"}
            elif len(part) == 1 or items or f in reported:
                done[f] = {"items": items}
            else:
                cut.append(f)
        queue[:0] = [[f] for f in cut]
    return done


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", required=True, help="a classified copy of PyTorch's test/ (left unchanged)")
    p.add_argument("--out", required=True)
    p.add_argument("--runner", default="cpu", choices=sorted(RUNNERS))
    p.add_argument("--batch", type=int, default=40)
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--files", nargs="*", help="collect only these files (hwselect still scans the tree)")
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = prepare(Path(args.tree), out)
    (root / "_hw_overlay.py").write_text(OVERLAY_PLUGIN)
    # PYTEST_ADDOPTS comes before the command line: the overlay loads before the collection plugin
    os.environ["PYTEST_ADDOPTS"] = "-p _hw_overlay"
    os.environ["HW_TESTING_OVERLAY"] = OVERLAY
    runner = args.runner

    t0 = time.time()
    k = hwselect(root, runner, "--format", "k")
    ids = hwselect(root, runner)
    quiet = hwselect(root, runner, "-q")
    seconds = time.time() - t0
    if k.returncode != 0 or ids.returncode != 0:
        print(k.stderr, ids.stderr, file=sys.stderr)
        return 2
    expression = k.stdout.strip()
    id_lines, ids_k = split_ids(ids.stdout.splitlines())
    (out / f"k-{runner}.txt").write_text(expression + "\n")
    (out / f"ids-{runner}.txt").write_text(ids.stdout)
    by_file: dict[str, list[str]] = {}
    for line in id_lines:
        by_file.setdefault(line_file(line), []).append(line)

    files = args.files or test_files(root)

    def k_args(part: list[str]) -> list[str]:
        return [*part, "-k", expression]

    def id_args(part: list[str]) -> list[str] | None:
        lines = [line for f in part for line in by_file.get(f, ())]
        if not lines:
            return None
        return [*lines, *(["-k", ids_k] if ids_k else [])]

    t1 = time.time()
    with_k = run(root, runner, out, files, k_args, args.batch, args.timeout)
    t2 = time.time()
    with_ids = run(root, runner, out, files, id_args, args.batch, args.timeout)
    t3 = time.time()

    # a module that fails to collect in one run and not the other (batch-mates' imports): both again,
    # alone
    again = sorted(f for f in files if f in by_file and (("error" in with_k[f]) != ("error" in with_ids[f])))
    for f in again:
        with_k.update(run(root, runner, out, [f], k_args, 1, args.timeout))
        with_ids.update(run(root, runner, out, [f], id_args, 1, args.timeout))

    def items(done: dict) -> set[str]:
        return {normal(i) for r in done.values() for i in r.get("items", ())}

    k_items, id_items = items(with_k), items(with_ids)
    classes = {"::".join(i.split("::")[:2]) for i in k_items if i.count("::") >= 2}
    summary = {
        "runner": runner,
        "files": len(files),
        "files_failed_k": sorted(f for f, r in with_k.items() if "error" in r),
        "files_failed_ids": sorted(f for f, r in with_ids.items() if "error" in r),
        "files_collected_again_alone": again,
        "k_bytes": len(expression.encode()),
        "ids_lines": len(id_lines),
        "ids_k_bytes": len(ids_k or ""),
        "items_k": len(k_items),
        "items_ids": len(id_items),
        "classes_k": len(classes),
        "files_with_items": len({i.split("::")[0] for i in k_items}),
        "only_k": sorted(k_items - id_items),
        "only_ids": sorted(id_items - k_items),
        "stderr_lines_default": len(ids.stderr.splitlines()),
        "stderr_lines_k": len(k.stderr.splitlines()),
        "stderr_lines_quiet": len(quiet.stderr.splitlines()),
        "hwselect_seconds_3_runs": round(seconds, 1),
        "collect_seconds_k": round(t2 - t1),
        "collect_seconds_ids": round(t3 - t2),
    }
    (out / f"k-summary-{runner}.json").write_text(json.dumps(summary, indent=2))
    (out / f"k-stderr-{runner}.txt").write_text(ids.stderr + "----- --format k\n" + k.stderr)
    short = {key: (len(v) if isinstance(v, list) else v) for key, v in summary.items()}
    print(json.dumps(short, indent=2))
    return 1 if summary["only_k"] or summary["only_ids"] else 0


if __name__ == "__main__":
    sys.exit(main())
