"""hwselect against pytest's collection of a real PyTorch test tree (slow; opt-in).

    HWLINT_REAL_TREE=/work/pt/src/pytorch-v2.6.0/test python -m pytest -m slow tests/test_select_real_tree.py

Runs benchmarks/real_tree.py, for every runner whose device the harness fakes on torch's CPU build,
on a few files that exercise the hard cases (a module that calls sys.exit() on import, tests added
with setattr, imported test classes, PrivateUse1 naming, the allow_mps / allow_xpu opt-ins) and
asserts the property: no printed node id is missing from the collection, and every collected class
is selected (by node id or through its file) or named in a warning. The whole tree: see
docs/hwselect-real-tree.md.
"""

from __future__ import annotations

import json
import os

import pytest

TREE = os.environ.get("HWLINT_REAL_TREE", "")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.torch,
    pytest.mark.skipif(not TREE, reason="set HWLINT_REAL_TREE to a PyTorch test/ directory"),
]
FILES = [
    "distributed/test_c10d_nccl.py",  # sys.exit(0) on import without NCCL
    "test_spectral_ops.py",  # setattr adds the doc tests, then instantiation
    "test_quantization.py",  # imports test classes from quantization/...
    "quantization/core/test_quantized_op.py",
    "test_type_promotion.py",
]
# per runner: files whose classes that runner's device generates
RUNNER_FILES = {
    "cpu": FILES,
    # the first PrivateUse1 class of a process is ...PRIVATEUSE1, later ones ...OPENREG
    "privateuse1": [*FILES, "distributed/fsdp/test_shard_utils.py"],
    "cuda": [*FILES, "test_view_ops.py"],
    "rocm": ["test_type_promotion.py", "test_view_ops.py"],
    "mps": ["nn/test_dropout.py", "test_view_ops.py", "test_type_promotion.py"],  # allow_mps=True
    "xpu": ["xpu/test_gemm.py", "nn/test_dropout.py", "test_type_promotion.py"],  # allow_xpu=True
}


@pytest.mark.parametrize("runner", sorted(RUNNER_FILES))
def test_real_tree_sample(tmp_path, runner):
    pytest.importorskip("torch.testing._internal.common_device_type")
    import real_tree

    files = RUNNER_FILES[runner]
    argv = ["--tree", TREE, "--out", str(tmp_path), "--runner", runner, "--files", *files, "--batch", "2"]
    rc = real_tree.main(argv)

    summary = json.loads((tmp_path / f"summary-{runner}.json").read_text())
    assert summary["classes_generated"] > 0  # the fake device gets its classes from torch
    assert summary["missing_nodeids"] == []
    assert summary["missed"] == []
    assert summary["classes_collected"] > 0
    assert rc == 0
