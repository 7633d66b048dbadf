"""Shards per test, by time, measured on real tests (docs/hwselect.md, issue 48 item 4).

    python benchmarks/shard_times.py --tree /tmp/shards-mig/test --out /tmp/shards-bench \\
        --shards 2,4,8 --files-from benchmarks/shard_sample.txt --repeats 3

TREE is PyTorch's ``test/`` after ``hwlint check --fix --unsafe-fixes`` (the files listed, at
least); the runs are on the CPU with the installed torch and torch 2.14.1's testing modules laid
over it (benchmarks/real_tree_k.py's overlay plugin), in a patched copy (benchmarks/real_tree.py's
``prepare``), each a fresh ``nice -n 10 pytest FILES --hw-runner cpu``. Steps:

1. record: the files once with ``--junitxml record.xml``; a small plugin also writes each item's
   CPU seconds (``time.process_time`` over setup, call and teardown) as a pytest-split
   ``record-cpu.json`` (node id -> seconds), a record the machine's load moves less (not nothing:
   on a crowded machine the same items take more CPU seconds too);
2. predict, for each N: ``hwselect --format matrix --runners cpu --shards N --durations record.xml
   FILES``: each entry's ``seconds``; the bound is ``max(total / N, longest single test)`` from the
   same record (total counts the estimates of unrecorded tests too);
3. measure: every shard of every N for real, ``pytest FILES --hw-runner cpu --hw-shard I/N
   --hw-durations record.xml --junitxml shard-N-I.xml`` (the matrix entry's own ``pytest``
   arguments): a shard's time is the sum of its items' times (what the record describes; the
   interpreter's start and the collection come on top, reported as wall-clock seconds). The CPU
   figures put the same shards' recorded CPU seconds against the CPU seconds they took;
4. check that the shards partition what the unsharded run ran (every item once).

``--plan-on cpu`` plans from the CPU record instead (``--durations record-cpu.json``, and the
shards run with ``--hw-durations record-cpu.json``): predicted and measured are then CPU seconds,
the comparison a crowded machine distorts least.

``--repeats R`` does steps 1 to 4 R times, each with its own record (a record and the shards it
predicts run minutes apart, under like load), and sums up each ratio over the repeats (median,
least, most). Every run notes the machine's 1-minute load average at its start and end
(``os.getloadavg``, what ``uptime`` prints): on a shared machine the load, not the plan, is most of
the spread. ``balance_measured_over_predicted`` divides each side by its mean shard (the longest
shard's share, measured against predicted), which a machine slower or faster for every shard alike
does not move. Results in OUT/shard-times.json. Test outcomes do not matter here, only their times.
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

CPU_PLUGIN = '''\
"""Writes each item's CPU seconds (setup, call and teardown) to HW_CPU_DURATIONS as node id -> s."""
import json
import os
import time

import pytest

_SECONDS = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = time.process_time()
    yield
    _SECONDS[item.nodeid] = time.process_time() - start


def pytest_sessionfinish(session):
    if os.environ.get("HW_CPU_DURATIONS"):
        with open(os.environ["HW_CPU_DURATIONS"], "w") as f:
            json.dump(_SECONDS, f)
'''


#: hwselect and the pytest plugin run from this checkout, whatever hwlint is installed, or from
#: HWLINT_CHECKOUT (a copy that does not change while the shards run: each run recomputes the split).
CHECKOUT = os.environ.get("HWLINT_CHECKOUT") or str(Path(__file__).resolve().parents[1])


def hwselect(root: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", "from hwlint.cli.select import console; console()", *args]
    env = {**os.environ, "PYTHONPATH": CHECKOUT}
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"hwselect {' '.join(args)}: {proc.stderr}")
    return proc


def pytest_run(root: Path, args: list[str], xml: str, cpu: str, timeout: int, loads: list) -> float:
    """``nice -n 10 pytest ARGS --junitxml XML`` (CPU seconds per item to *cpu*); wall-clock seconds.
    The 1-minute load average at its start and end goes to *loads*."""
    env = {
        **os.environ,
        "PYTEST_ADDOPTS": "-p _hw_overlay -p _hw_cputime",
        "HW_TESTING_OVERLAY": OVERLAY,
        "HW_CPU_DURATIONS": cpu,
        "PYTHONPATH": os.pathsep.join([CHECKOUT, str(root)]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
    }
    env.pop("PYTORCH_TESTING_DEVICE_ONLY_FOR", None)  # the plugin sets it for the runner
    cmd = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    cmd += [f"--junitxml={xml}", "--continue-on-collection-errors"]
    loads.append(round(os.getloadavg()[0], 1))
    t0 = time.time()
    subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    loads.append(round(os.getloadavg()[0], 1))
    return time.time() - t0


def item_times(xml: Path) -> dict[str, float]:
    """Seconds per item (``classname::name``) in a JUnit file."""
    out = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        out[f"{case.get('classname')}::{case.get('name')}"] = float(case.get("time") or 0)
    return out


def junit_key(nodeid: str) -> str:
    """A node id as :func:`item_times` keys it (``dir.test_x.TestFoo::test_a``)."""
    path, cls, name = nodeid.split("::", 2)
    return f"{path.removesuffix('.py').replace('/', '.')}.{cls}::{name}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--shards", default="2,4,8", help="the shard counts, each run shard by shard")
    p.add_argument("--files", nargs="*", default=[])
    p.add_argument("--files-from", help="test file paths, one a line, TREE-relative (# starts a comment)")
    p.add_argument("--timeout", type=int, default=3600)
    p.add_argument("--reuse", action="store_true", help="reuse the XML and JSON of an earlier run")
    p.add_argument("--repeats", type=int, default=1, help="record and shards, this many times")
    p.add_argument(
        "--plan-on",
        choices=("wall", "cpu"),
        default="wall",
        help="plan from the JUnit record (wall) or from the CPU record (cpu: predicted and measured "
        "are CPU seconds, which the machine's load moves less)",
    )
    args = p.parse_args(argv)
    files = list(args.files)
    if args.files_from:
        lines = Path(args.files_from).read_text().splitlines()
        files += [x.strip() for x in lines if x.strip() and not x.startswith("#")]
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = prepare(Path(args.tree), out)
    (root / "_hw_overlay.py").write_text(OVERLAY_PLUGIN)
    (root / "_hw_cputime.py").write_text(CPU_PLUGIN)
    repeats: list[dict] = []
    for r in range(args.repeats):  # the summary so far after each repeat: a long run can be cut short
        repeats.append(measure(root, files, args, f"r{r}-" if args.repeats > 1 else ""))
        summary = {
            "files": len(files),
            "plan_on": args.plan_on,
            "repeats": repeats,
            "over_repeats": over_repeats(repeats),
        }
        (out / "shard-times.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({**summary, "repeats": [strip(r) for r in repeats]}, indent=2))
    return 0


RATIOS = (
    "predicted_over_bound",
    "measured_over_predicted",
    "cpu_measured_over_predicted",
    "balance_measured_over_predicted",
)


def over_repeats(repeats: list[dict]) -> list[dict]:
    """Each N's ratios over the repeats: median, least, most."""
    import statistics

    out = []
    for n in sorted({s["shards"] for r in repeats for s in r["splits"]}):
        row: dict = {"shards": n}
        for ratio in RATIOS:
            values = [s[ratio] for r in repeats for s in r["splits"] if s["shards"] == n]
            row[ratio] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
        out.append(row)
    return out


def strip(repeat: dict) -> dict:
    """A repeat without its per-shard detail (for the printed summary)."""
    return {
        **repeat,
        "splits": [{k: v for k, v in s.items() if k != "shards_detail"} for s in repeat["splits"]],
    }


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def measure(root: Path, files: list[str], args, prefix: str) -> dict:
    """One record and every shard of every N (steps 1 to 4), its files named PREFIX*."""
    plugin = ["--hw-runner", "cpu"]
    loads: list[float] = []

    def run(name: str, extra: list[str]) -> float | None:
        """One pytest run (its wall-clock seconds), or, with --reuse, the earlier one's."""
        name = prefix + name
        if not (args.reuse and (root / f"{name}.xml").exists()):
            mine: list[float] = []
            wall = pytest_run(
                root, [*files, *plugin, *extra], f"{name}.xml", f"{name}-cpu.json", args.timeout, mine
            )
            (root / f"{name}-run.json").write_text(json.dumps({"wall": round(wall, 1), "loads": mine}))
        done = json.loads((root / f"{name}-run.json").read_text())
        loads.extend(done["loads"])
        return done["wall"]

    record_wall = run("record", [])
    recorded = item_times(root / f"{prefix}record.xml")
    recorded_cpu = {
        junit_key(k): v for k, v in json.loads((root / f"{prefix}record-cpu.json").read_text()).items()
    }
    summary: dict = {
        "files": len(files),
        "items": len(recorded),
        "record_seconds_tests": round(sum(recorded.values()), 1),
        "record_seconds_cpu": round(sum(recorded_cpu.values()), 1),
        "record_seconds_wall": record_wall,
        "longest_test": round(max(recorded.values()), 2),
        "splits": [],
    }
    for n in (int(x) for x in args.shards.split(",") if x):
        matrix = hwselect(
            root,
            "--format",
            "matrix",
            "--runners",
            "cpu",
            "--shards",
            str(n),
            "--durations",
            f"{prefix}record.xml" if args.plan_on == "wall" else f"{prefix}record-cpu.json",
            *files,
        )
        include = json.loads(matrix.stdout)["include"]
        predicted = {e["shard"]: e["seconds"] for e in include}
        total = sum(predicted.values())
        basis = recorded if args.plan_on == "wall" else recorded_cpu
        bound = max(total / n, max(basis.values()))
        shards, wall = [], []
        for i in range(1, n + 1):
            entry = next((e for e in include if e["shard"] == i), None)
            if entry is None:
                continue
            extra = entry["pytest"][len(files) + len(plugin) :]  # --hw-shard I/N --hw-durations record.xml
            wall.append(run(f"shard-{n}-{i}", extra))
            times = item_times(root / f"{prefix}shard-{n}-{i}.xml")
            cpu = {
                junit_key(k): v
                for k, v in json.loads((root / f"{prefix}shard-{n}-{i}-cpu.json").read_text()).items()
            }
            shards.append(
                {
                    "shard": i,
                    "items": len(times),
                    "predicted": predicted[i],
                    "first_use": entry["first_use_seconds"],
                    # what the plan predicts: the items' test time, or with --plan-on cpu their CPU time
                    "measured": round(sum((times if args.plan_on == "wall" else cpu).values()), 1),
                    "predicted_cpu": round(sum(recorded_cpu.get(k, 0.0) for k in cpu), 1),
                    "measured_cpu": round(sum(cpu.values()), 1),
                    "classes": entry["classes"],
                    "split_classes": entry["split_classes"],
                    "estimated_items": entry["estimated_items"],
                    "_keys": sorted(times),
                }
            )
        keys = [k for s in shards for k in s.pop("_keys")]
        longest = max(shards, key=lambda s: s["predicted"])
        measured_longest = max(shards, key=lambda s: s["measured"])
        cpu_longest = max(shards, key=lambda s: s["predicted_cpu"])
        summary["splits"].append(
            {
                "shards": n,
                "bound": round(bound, 1),
                "predicted_longest": longest["predicted"],
                "predicted_over_bound": round(longest["predicted"] / bound, 3),
                "measured_longest": measured_longest["measured"],
                "measured_over_predicted": round(measured_longest["measured"] / longest["predicted"], 3),
                # the same, each side over its mean shard: the balance, whatever the machine's speed
                "balance_measured_over_predicted": round(
                    (measured_longest["measured"] / mean([s["measured"] for s in shards]))
                    / (longest["predicted"] / mean([s["predicted"] for s in shards])),
                    3,
                ),
                # of the predicted longest, the first-use costs paid again (the rest: its items)
                "predicted_first_use": longest["first_use"],
                "cpu_predicted_longest": cpu_longest["predicted_cpu"],
                "cpu_measured_longest": max(s["measured_cpu"] for s in shards),
                "cpu_measured_over_predicted": round(
                    max(s["measured_cpu"] for s in shards) / cpu_longest["predicted_cpu"], 3
                ),
                "partition": sorted(keys) == sorted(recorded) and len(keys) == len(set(keys)),
                "items_outside_record": len(set(keys) - set(recorded)),
                "classes_spread": sum(s["split_classes"] for s in shards),
                "wall": wall,
                "shards_detail": shards,
            }
        )
    summary["load_average"] = {
        "min": min(loads, default=None),
        "max": max(loads, default=None),
        "runs": loads,
    }
    return summary


if __name__ == "__main__":
    sys.exit(main())
