"""Write a PyTorch-sized synthetic test tree for benchmarking hwlint.

The defaults give about 1,000 files and 25 MB, close to PyTorch's `test/` (1,100 files, 29 MB): many
classes per file, many test methods per class, decorators, instantiation calls, nested helpers and
long method bodies, and a few files with syntax errors. Output is deterministic for a given seed.

    python benchmarks/generate.py OUT_DIR [--files 1000] [--size-kb 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

HEADER = """\
# Owner(s): ["module: {module}"]
import itertools
import math
import unittest

import torch
from torch.testing._internal.common_device_type import (
    dtypes,
    instantiate_device_type_tests,
    onlyAccelerator,
    onlyCUDA,
)
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests

DEVICES = ("cuda", "xpu")
"""

METHOD = '''\
    {decorator}def test_{name}(self{params}):
        """Check {name} against a reference implementation."""
        x = torch.randn({a}, {b}{device_kw})
        y = torch.randn({b}, {a}{device_kw})
        expected = [[sum(x[i][k] * y[k][j] for k in range({b})) for j in range({a})] for i in range({a})]
        for i, j in itertools.product(range({a}), range({a})):
            self.assertTrue(math.isclose(float((x @ y)[i][j]), float(expected[i][j]), rel_tol=1e-4))

        def helper(t, scale={a}):
            return t * scale + {b}

        self.assertEqual(helper(x).shape, x.shape)
'''


def make_file(rng: random.Random, index: int, target_bytes: int) -> str:
    parts = [HEADER.format(module=f"area{index % 37}")]
    instantiate = []
    c = 0
    while sum(map(len, parts)) < target_bytes:
        kind = rng.choices(["GENERIC", "ACCELERATOR", "CUDA", None], weights=[4, 5, 1, 1])[0]
        name = f"Test{index}Area{c}"
        c += 1
        lines = [f"\n\nclass {name}(TestCase):\n"]
        if kind:
            lines.append(f"    hw_classification = HardwareClassification.{kind}\n\n")
        accel = kind in ("ACCELERATOR", "CUDA")
        for m in range(rng.randint(8, 30)):
            decorator = ""
            if accel and m % 5 == 0:
                decorator = "@dtypes(torch.float32, torch.float64)\n    "
            elif accel and m % 7 == 0:
                decorator = "@onlyAccelerator\n    "
            elif kind == "ACCELERATOR" and m % 13 == 12:  # the mistakes a real tree has too
                decorator = "@onlyCUDA\n    "
            params = ", device" if accel or (kind == "GENERIC" and m % 17 == 16) else ""
            if decorator.startswith("@dtypes"):
                params += ", dtype"
            lines.append(
                METHOD.format(
                    decorator=decorator,
                    name=f"case_{m}",
                    params=params,
                    a=rng.randint(2, 9),
                    b=rng.randint(2, 9),
                    device_kw=", device=device" if accel else "",
                )
            )
        parts.append("".join(lines))
        if accel:
            only = ', only_for="cuda"' if kind == "CUDA" else ""
            instantiate.append(f"instantiate_device_type_tests({name}, globals(){only})\n")
    parts.append("\n\n" + "".join(instantiate))
    parts.append('\n\nif __name__ == "__main__":\n    run_tests()\n')
    text = "".join(parts)
    if index % 250 == 249:  # a few broken files, as any large tree has
        text = text.replace("(TestCase):", "(TestCase)", 1)
    return text


def generate(out: Path, files: int = 1000, size_kb: int = 20, seed: int = 0) -> list[Path]:
    """Write *files* test files of about *size_kb* KB each under *out*, spread over subdirectories."""
    rng = random.Random(seed)
    written = []
    for i in range(files):
        sub = out / f"area{i % 23}" / ("nested" if i % 3 == 0 else "")
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"test_module_{i}.py"
        size = int(size_kb * 1024 * rng.uniform(0.5, 1.5))
        path.write_text(make_file(rng, i, size))
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--size-kb", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    paths = generate(args.out, args.files, args.size_kb, args.seed)
    total = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} files, {total / 1e6:.1f} MB under {args.out}")


if __name__ == "__main__":
    main()
