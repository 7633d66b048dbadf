"""Write a synthetic test tree with the shape of PyTorch 2.6.0's ``test/``, for benchmarking hwlint.

Measured on the real tree (1,080 files, 28.5 MB; see docs/performance.md), and kept here:

* file sizes are heavy-tailed: median 7.7 KB, 90th percentile 59 KB, 99th 383 KB, mean 26 KB
  (a log-normal with sigma 1.58 fits all three);
* 14% of files define no test class; the others 1 class at the median, 6 at the 90th percentile;
* a class holds 2 tests at the median, 17 at the 90th percentile (mean 8), and 1.6 helper methods;
* methods run 14 lines at the median, 45 at the 90th percentile, 115 at the 99th, with about one
  call per line, many of them to helpers (``self._helper(...)``, module-level functions);
* 0.4% of files hold non-ASCII text.

Classes carry decorators, ``hw_classification`` declarations (or not), instantiation calls and a
few mistakes; one file in 250 has a syntax error. Output is deterministic for a given seed.

    python benchmarks/generate.py OUT_DIR [--files 1080] [--size-kb 26] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import random
import textwrap
from pathlib import Path

SIZE_SIGMA = 1.58  # log-normal spread of file sizes, fitted to PyTorch 2.6.0's test/
MAX_FILE_BYTES = 620 * 1024  # the real tree's largest file is 600 KB
NO_CLASS_SHARE = 0.14
NON_ASCII_SHARE = 0.004

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

# Statements a method body is drawn from; {d} is the device keyword (", device=device" or "").
STATEMENTS = [
    "x = torch.randn({a}, {b}{d})",
    "y = self._make_input(({a}, {b}){d})",
    "expected = self._reference(x, y, scale={a})",
    "self.assertEqual(self._run_op(x, y), expected, atol=1e-{a}, rtol=0)",
    "for i, j in itertools.product(range({a}), range({b})):\n"
    "{i}    self.assertTrue(math.isclose(float(x[i][j]), float(x[i][j]), rel_tol=1e-4))",
    "out = _module_helper_{h}(x, y, {a})",
    "with self.subTest(size={a}):\n{i}    self.assertEqual(out.shape, x.shape)",
    "if x.numel() > {b}:\n{i}    x = x.reshape(-1)[:{b}]\n{i}else:\n{i}    x = torch.cat([x, x])",
    "grads = torch.autograd.grad(out.sum(), [x], allow_unused=True)",
    "self.assertIsNotNone(self._check_grad(grads, x, y, atol={a}))",
    "values = [self._sample(k, {b}) for k in range({a})]",
    "def local_{h}(t, scale={a}):\n{i}    return t * scale + {b}\n"
    "{i}self.assertEqual(local_{h}(x).shape, x.shape)",
    "n = {a} * {b}",
    "# the {a}x{b} case, as the reference computes it",
    "expected_shape = ({a}, {b})",
    "",
]
HELPERS = ["_make_input", "_reference", "_run_op", "_check_grad", "_sample"]


def _lognormal(rng: random.Random, median: float, sigma: float) -> float:
    return math.exp(math.log(median) + sigma * rng.gauss(0, 1))


def make_method(rng: random.Random, name: str, params: str, decorator: str, device_kw: str) -> str:
    """One method of about as many lines as the real tree's: median 14, long tail."""
    lines = min(160, max(2, int(_lognormal(rng, 10, 0.85))))
    body = [f'        """Check {name} against a reference implementation."""']
    while len(body) < lines:
        stmt = rng.choice(STATEMENTS).format(
            a=rng.randint(2, 9), b=rng.randint(2, 9), d=device_kw, h=rng.randint(0, 3), i="        "
        )
        body.append("        " + stmt)
    return f"    {decorator}def {name}(self{params}):\n" + "\n".join(body) + "\n\n"


def make_class(rng: random.Random, name: str, kind: str | None) -> tuple[str, bool]:
    lines = [f"\n\nclass {name}(TestCase):\n"]
    if kind:
        lines.append(f"    hw_classification = HardwareClassification.{kind}\n\n")
    accel = kind in ("ACCELERATOR", "CUDA")
    tests = min(300, max(1, int(_lognormal(rng, 2.5, 1.65))))
    helpers = rng.choices([0, 1, 2, 3, 5, 9], weights=[40, 25, 15, 10, 7, 3])[0]
    device_kw = ", device=device" if accel else ""
    for h in range(helpers):
        helper = HELPERS[h % len(HELPERS)] + ("" if h < len(HELPERS) else f"_{h}")
        lines.append(make_method(rng, helper, ", *args, **kwargs", "", ""))
    for m in range(tests):
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
        lines.append(make_method(rng, f"test_case_{m}", params, decorator, device_kw))
    return "".join(lines), accel


MODULE_HELPERS = "".join(
    f"\n\ndef _module_helper_{h}(x, y, scale):\n    return (x * scale + y.sum()).clamp(min=-{h + 1})\n"
    for h in range(4)
)


def make_file(rng: random.Random, index: int, target_bytes: int) -> str:
    parts = [HEADER.format(module=f"area{index % 37}"), MODULE_HELPERS]
    if rng.random() < NON_ASCII_SHARE:
        parts.append('\n\nEXPECTED_REPR = "tensor(α=1.0, β=2.0) — ok"  # non-ASCII, as in a few real files\n')
    size = sum(map(len, parts))
    instantiate = []
    with_classes = rng.random() >= NO_CLASS_SHARE
    while not with_classes and size < target_bytes:  # module-level tests and helpers only
        method = make_method(rng, f"test_function_{len(parts)}", "", "", "")
        parts.append("\n\n" + textwrap.dedent(method).replace("(self):", "():", 1))
        size += len(parts[-1])
    c = 0
    while with_classes and (size < target_bytes or c == 0):
        kind = rng.choices(["GENERIC", "ACCELERATOR", "CUDA", None], weights=[4, 5, 1, 1])[0]
        name = f"Test{index}Area{c}"
        c += 1
        text, accel = make_class(rng, name, kind)
        if c > 1 and size + len(text) > target_bytes:  # overshooting would skew the sizes upwards
            break
        parts.append(text)
        size += len(text)
        if accel:
            only = ', only_for="cuda"' if kind == "CUDA" else ""
            instantiate.append(f"instantiate_device_type_tests({name}, globals(){only})\n")
    parts.append("\n\n" + "".join(instantiate))
    parts.append('\n\nif __name__ == "__main__":\n    run_tests()\n')
    text = "".join(parts)
    if index % 250 == 249:  # a few broken files
        text = text.replace("(TestCase):", "(TestCase)", 1)
    return text


def generate(out: Path, files: int = 1080, size_kb: int = 26, seed: int = 0) -> list[Path]:
    """Write *files* test files under *out*, spread over subdirectories, whose sizes follow the real
    tree's log-normal distribution with a mean of *size_kb* KB."""
    rng = random.Random(seed)
    median = size_kb * 1024 * math.exp(-(SIZE_SIGMA**2) / 2)  # a log-normal's mean is median * e^(s²/2)
    cap = max(MAX_FILE_BYTES, 4 * size_kb * 1024)
    written = []
    for i in range(files):
        sub = out / f"area{i % 23}" / ("nested" if i % 3 == 0 else "")
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"test_module_{i}.py"
        size = int(min(cap, _lognormal(rng, median, SIZE_SIGMA)))
        path.write_text(make_file(rng, i, size), encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=1080)
    parser.add_argument("--size-kb", type=int, default=26, help="mean file size")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    paths = generate(args.out, args.files, args.size_kb, args.seed)
    total = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} files, {total / 1e6:.1f} MB under {args.out}")


if __name__ == "__main__":
    main()
