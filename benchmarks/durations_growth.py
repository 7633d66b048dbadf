"""How reading a ``.test_durations`` file and matching its records grows (issue 47, item 13).

    python benchmarks/durations_growth.py                 # 10k, 20k, 40k records
    python benchmarks/durations_growth.py --sizes 10000 20000 40000 80000

A pull request commits the durations file, so its shape is the attacker's: every record names the
same class in a module of its own (``d123/test_m.py::TestA::test_a``), and the tree holds one such
class per module, so that every record is a candidate for every class. For each size N this times,
in this process, the two steps hwselect runs with ``--durations``: loading the file
(:func:`hwlint.select.durations.load_durations`) and looking up the recorded time of N classes
(:func:`hwlint.select.shards.plan_shards`, one shard), best of ``--rounds``, with the cycle collector off
as hwselect runs. Linear growth doubles the time
when N doubles: the ratios printed are t(2N)/t(N), about 2 when linear, 4 when quadratic.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hwlint.select.durations import load_durations
from hwlint.select.records import SELECTED, Candidate
from hwlint.select.shards import plan_shards


def write_records(path: Path, n: int) -> None:
    path.write_text(json.dumps({f"d{i}/test_m.py::TestA::test_a": 0.5 + i % 7 for i in range(n)}))


def candidates(n: int) -> list[Candidate]:
    return [Candidate(f"d{i}/test_m.py", ("TestA",), SELECTED, "GENERIC", "TestA", None) for i in range(n)]


def measure(n: int, rounds: int, work: Path) -> tuple[float, float]:
    """Best seconds of loading N records, and of looking up N classes in them."""
    path = work / f"durations-{n}.json"
    write_records(path, n)
    cands = candidates(n)
    load = match = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        durations = load_durations([str(path)])
        t1 = time.perf_counter()
        plan = plan_shards(cands, 1, durations)
        t2 = time.perf_counter()
        assert plan.recorded == n and len(plan.placements) == n
        load, match = min(load, t1 - t0), min(match, t2 - t1)
    return load, match


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    gc.disable()  # as in hwselect, whose run has the cycle collector off (hwlint.cli.common.guarded)
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            load, match = measure(n, args.rounds, Path(tmp))
            rows.append((n, load, match))
            print(f"{n:>7,} records: load {load:.3f} s, match {n:,} classes {match:.3f} s", flush=True)
    for (n0, l0, m0), (n1, l1, m1) in itertools.pairwise(rows):
        print(
            f"{n1:,} / {n0:,} records ({n1 / n0:.0f}x): load x{l1 / l0:.2f}, match x{m1 / m0:.2f}, "
            f"total x{(l1 + m1) / (l0 + m0):.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
