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
4. compare, for N and the counts of ``--also``: the predicted and the measured longest shard, the
   bound ``max(total / N, largest class)`` from the measured times, and the longest shard of the
   split hwselect makes without durations (by item counts). The measured class times come from
   step 3's runs; a split other than the one run is timed with them (a class's time does not
   depend on its shard-mates).

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
        "--continue-on-collection-errors",  # a module that fails to import must not stop the others
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


def shard_classes(root: Path, files: list[str], i: int, n: int, durations: str | None) -> list[str] | None:
    """JUnit classnames (``dir.test_x.TestFoo``) of shard *i* of *n*; None when the shard
    addresses a file whole (its classes are then not listed: the time of a split other than the
    one run cannot be told from them)."""
    args = ["cpu", *files, "--shard", f"{i}/{n}", "-q"]
    if durations:
        args += ["--durations", durations]
    out = []
    for line in hwselect(root, *args).stdout.splitlines():
        if "::" not in line:
            return None
        path, cls = line.split("::")[:2]
        out.append(path.removesuffix(".py").replace("/", ".") + "." + cls)
    return out


def _timed(classes: list[str] | None, measured: dict[str, float]) -> float | None:
    return None if classes is None else sum(measured.get(c, 0.0) for c in classes)


def _longest(times: list[float | None]) -> float | None:
    return None if any(x is None for x in times) else round(max(times), 1)  # type: ignore[type-var]


def predicted_seconds(root: Path, files: list[str], n: int) -> list[float]:
    """The matrix's predicted seconds per shard, from record.xml."""
    args = ["--format", "matrix", "--runners", "cpu", "--shards", str(n), "--durations", "record.xml", "-q"]
    return [e["seconds"] for e in json.loads(hwselect(root, *args, *files).stdout)["include"]]


def split_figures(
    root: Path, files: list[str], n: int, measured: dict[str, float], recorded: dict[str, float]
) -> dict:
    """For *n* shards: predicted longest, and the longest shard of the split made with and without
    durations, timed with the *measured* class times, against the bound from the same times."""
    with_d = [_timed(shard_classes(root, files, i, n, "record.xml"), measured) for i in range(1, n + 1)]
    by_items = [_timed(shard_classes(root, files, i, n, None), measured) for i in range(1, n + 1)]
    bound = max(sum(measured.values()) / n, max(measured.values()))
    predicted = predicted_seconds(root, files, n)
    predicted_bound = max(sum(recorded.values()) / n, max(recorded.values()))
    return {
        "shards": n,
        "predicted_longest": max(predicted),
        "predicted": predicted,
        "predicted_bound": round(predicted_bound, 1),
        "predicted_over_bound": round(max(predicted) / predicted_bound, 3),
        # None where a shard addresses a file whole: see the run's own times for the count run
        "measured_longest": _longest(with_d),
        "measured": [None if x is None else round(x, 1) for x in with_d],
        "bound": round(bound, 1),
        "largest_dominates": max(measured.values()) > 0.05 * sum(measured.values()) / n,
        "measured_over_bound": None if _longest(with_d) is None else round(_longest(with_d) / bound, 3),
        "by_items_longest": _longest(by_items),
        "by_items_over_bound": None if _longest(by_items) is None else round(_longest(by_items) / bound, 3),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--shards", type=int, default=4, help="the shards that are run")
    p.add_argument("--also", default="2,3,8", help="more shard counts, timed with the measured class times")
    p.add_argument("--files", nargs="+", required=True)
    p.add_argument("--timeout", type=int, default=1200)
    p.add_argument(
        "--reuse", action="store_true", help="reuse record.xml and the shards' XML of an earlier run"
    )
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = prepare(Path(args.tree), out)
    (root / "_hw_overlay.py").write_text(OVERLAY_PLUGIN)
    n, files = args.shards, args.files

    record_wall = None
    if not (args.reuse and (root / "record.xml").exists()):
        (root / "all.args").write_text(hwselect(root, "cpu", *files, "-q").stdout)
        record_wall = round(pytest_run(root, "all.args", "record.xml", args.timeout), 1)
    recorded = class_times(root / "record.xml")

    # run each shard of the split made with the recorded durations
    wall, run_seconds, measured = [], [], {}
    for i in range(1, n + 1):
        name = f"shard-{i}"
        if not (args.reuse and (root / f"{name}.xml").exists()):
            argsfile = ["--argsfile", f"{name}.args", "-q"]
            hwselect(root, "cpu", *files, "--shard", f"{i}/{n}", "--durations", "record.xml", *argsfile)
            wall.append(round(pytest_run(root, f"{name}.args", f"{name}.xml", args.timeout), 1))
        times = class_times(root / f"{name}.xml")
        measured.update(times)
        run_seconds.append(round(sum(times.values()), 1))
    counts = [n, *(int(x) for x in args.also.split(",") if x)]
    summary = {
        "files": files,
        "classes": len(recorded),
        "record_seconds_tests": round(sum(recorded.values()), 1),
        "record_seconds_wall": record_wall,
        "measured_seconds_tests": round(sum(measured.values()), 1),
        "largest_class_recorded": round(max(recorded.values()), 1),
        "largest_class_measured": round(max(measured.values()), 1),
        "run": {
            "shards": n,
            "seconds_tests": run_seconds,
            "seconds_wall": wall,
            "longest_over_bound": round(
                max(run_seconds) / max(sum(run_seconds) / n, max(measured.values())), 3
            ),
        },
        "splits": [split_figures(root, files, k, measured, recorded) for k in counts],
    }
    (out / "shard-times.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
