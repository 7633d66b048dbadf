"""Shards balanced by recorded times, measured on real tests (docs/hwselect.md, issue 27 item 3).

    python benchmarks/shard_times.py --tree /tmp/hws/test --out /tmp/hwd --shards 4 \\
        --files test_view_ops.py test_indexing.py ...

TREE is PyTorch's ``test/`` after ``hwlint check --fix --unsafe-fixes``; the run is on the CPU with
the installed torch and torch 2.14.1's testing modules laid over it (benchmarks/real_tree_k.py's
overlay plugin), in a patched copy (benchmarks/real_tree.py's ``prepare``). Steps:

1. record: ``pytest @all.args --junitxml record.xml``, where all.args is ``hwselect cpu FILES``;
2. predict: ``hwselect --format matrix --runners cpu --shards N --durations record.xml FILES``;
3. measure: each shard again, ``hwselect cpu FILES --shard I/N --durations record.xml --argsfile``
   then ``pytest @shard-I.args --junitxml shard-I.xml``: the shard's time is the sum of its test
   times (what the durations describe; the interpreter's start and the collection come on top,
   also reported as wall-clock seconds);
4. compare: the predicted and the measured longest shard, the bound ``max(total / N, largest
   class)`` from the measured times, and the longest shard of the split hwselect makes without
   durations (by item counts), timed with the same measured class times.

Results in OUT/shard-times.json. Test outcomes do not matter here, only their times.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_tree import prepare
from real_tree_k import OVERLAY, OVERLAY_PLUGIN


def hwselect(root: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "hwselect"
    proc = subprocess.run([str(exe), *args], cwd=root, capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"hwselect {' '.join(args)}: {proc.stderr}")
    return proc


def pytest_run(root: Path, argsfile: str, xml: str, timeout: int) -> float:
    """Run the tests of *argsfile* with --junitxml *xml*; wall-clock seconds."""
    env = {
        **os.environ,
        "PYTORCH_TESTING_DEVICE_ONLY_FOR": "cpu",
        "PYTEST_ADDOPTS": "-p _hw_overlay",
        "HW_TESTING_OVERLAY": OVERLAY,
        "PYTHONPATH": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"@{argsfile}",
        f"--junitxml={xml}",
    ]
    t0 = time.time()
    subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    return time.time() - t0


def class_times(xml: Path) -> dict[str, float]:
    """Seconds per ``module.Class`` (JUnit classname) in *xml*."""
    out: dict[str, float] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        key = case.get("classname") or ""
        out[key] = out.get(key, 0.0) + float(case.get("time") or 0)
    return out


def shard_classes(root: Path, files: list[str], i: int, n: int, durations: str | None) -> list[str]:
    """JUnit classnames (``dir.test_x.TestFoo``) of shard *i* of *n* (node-id lines only)."""
    args = ["cpu", *files, "--shard", f"{i}/{n}", "-q"]
    if durations:
        args += ["--durations", durations]
    out = []
    for line in hwselect(root, *args).stdout.splitlines():
        if "::" in line:
            path, cls = line.split("::")[:2]
            out.append(path.removesuffix(".py").replace("/", ".") + "." + cls)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--files", nargs="+", required=True)
    p.add_argument("--timeout", type=int, default=1200)
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = prepare(Path(args.tree), out)
    (root / "_hw_overlay.py").write_text(OVERLAY_PLUGIN)
    n, files = args.shards, args.files

    (root / "all.args").write_text(hwselect(root, "cpu", *files, "-q").stdout)
    record_wall = pytest_run(root, "all.args", "record.xml", args.timeout)
    recorded = class_times(root / "record.xml")

    matrix = json.loads(
        hwselect(
            root,
            "--format",
            "matrix",
            "--runners",
            "cpu",
            "--shards",
            str(n),
            "--durations",
            "record.xml",
            *files,
        ).stdout
    )
    predicted = [e["seconds"] for e in matrix["include"]]

    measured, wall, measured_classes = [], [], {}
    for i in range(1, n + 1):
        name = f"shard-{i}"
        hwselect(
            root,
            "cpu",
            *files,
            "--shard",
            f"{i}/{n}",
            "--durations",
            "record.xml",
            "--argsfile",
            f"{name}.args",
            "-q",
        )
        wall.append(round(pytest_run(root, f"{name}.args", f"{name}.xml", args.timeout), 1))
        times = class_times(root / f"{name}.xml")
        measured_classes.update(times)
        measured.append(round(sum(times.values()), 1))
    largest = max(measured_classes.values())
    bound = max(sum(measured_classes.values()) / n, largest)
    # the split without durations (item counts), timed with the measured class times
    by_items = []
    for i in range(1, n + 1):
        by_items.append(
            round(sum(measured_classes.get(c, 0.0) for c in shard_classes(root, files, i, n, None)), 1)
        )
    summary = {
        "files": files,
        "shards": n,
        "classes_recorded": len(recorded),
        "record_seconds_tests": round(sum(recorded.values()), 1),
        "record_seconds_wall": round(record_wall, 1),
        "predicted_seconds": predicted,
        "measured_seconds": measured,
        "measured_wall_seconds": wall,
        "measured_total": round(sum(measured_classes.values()), 1),
        "largest_class": round(largest, 1),
        "bound": round(bound, 1),
        "predicted_longest": max(predicted),
        "measured_longest": max(measured),
        "measured_longest_over_bound": round(max(measured) / bound, 3),
        "by_items_seconds": by_items,
        "by_items_longest_over_bound": round(max(by_items) / bound, 3),
    }
    (out / "shard-times.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
