"""How ``--format k`` and ``--format json`` grow when class names contain each other (issue 47, 12).

    python benchmarks/k_growth.py [--sizes 250,500,1000,2000]

One file with N classes ``Ta``, ``Taa``, ... (each name holds every shorter one), every other one
classified CUDA and the rest GENERIC, selected for the cpu runner: every chosen class's term also
hits each longer name. The exact expression is quadratic in N (so past the one-argument limit) and
was built in cubic time; the build now stops at the limit. Prints each size's seconds for
``--format k`` and ``--format json`` and the ratio to the previous size: a ratio near the size
ratio (2) is linear, near 4 quadratic. The file itself grows with N squared (the names' letters),
so the ratios are against the input's size too.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n"


def write_tree(root: Path, n: int) -> Path:
    parts = [HEADER]
    for i in range(1, n + 1):
        member = "CUDA" if i % 2 else "GENERIC"
        parts.append(
            f"class T{'a' * i}(TestCase):\n    hw_classification = HardwareClassification.{member}\n\n"
            "    def test_x(self):\n        pass\n\n\n"
        )
    (root / "test_nest.py").write_text("".join(parts))
    return root


def timed(root: Path, fmt: str) -> tuple[float, int]:
    exe = Path(sys.executable).parent / "hwselect"
    start = time.perf_counter()
    proc = subprocess.run(
        [str(exe), "cpu", ".", "--format", fmt, "--no-cache", "-q"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    return time.perf_counter() - start, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="250,500,1000,2000")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    previous: dict[str, float] = {}
    print(f"{'classes':>8} {'file KB':>8} {'k s':>7} {'ratio':>6} {'json s':>7} {'ratio':>6}")
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="hwlint-kgrowth-") as tmp:
            root = write_tree(Path(tmp), n)
            size = (root / "test_nest.py").stat().st_size // 1024
            row = [f"{n:>8}", f"{size:>8}"]
            for fmt in ("k", "json"):
                seconds, rc = timed(root, fmt)
                ratio = seconds / previous[fmt] if fmt in previous else float("nan")
                previous[fmt] = seconds
                row += [f"{seconds:>7.2f}", f"{ratio:>6.2f}"]
                if fmt == "k" and rc not in (0, 2):
                    raise SystemExit(f"hwselect --format k exited {rc}")
            print(" ".join(row), flush=True)


if __name__ == "__main__":
    main()
