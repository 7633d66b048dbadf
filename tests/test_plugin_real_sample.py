"""The ways to run a runner's share agree on real PyTorch files (issue 48; slow, opt-in).

    HWLINT_REAL_TREE=/work/pt/src/pytorch-v2.6.0/test \
        python -m pytest -m slow tests/test_plugin_real_sample.py

A few files of PyTorch 2.6.0's ``test/``, migrated (``hwlint check --fix --unsafe-fixes
--ignore-noqa``), collected with torch and 2.14.1's testing modules, each runner's device faked
(benchmarks/plugin_collection.py ``--check``, which the whole sample in docs/hwselect.md runs):
``pytest --hw-runner R`` collects exactly what ``pytest @ids.args`` collects, with a ``-k`` of the
user's each collects the intersection, and ``-k "$(hwselect R --format k)"`` collects the node
ids' items with and without ``PYTORCH_TESTING_DEVICE_ONLY_FOR`` (or ``--format k`` exits 2).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

TREE = os.environ.get("HWLINT_REAL_TREE", "")
OVERLAY = Path("/work/cache/t214/torch/testing/_internal")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.torch,
    pytest.mark.skipif(not TREE, reason="set HWLINT_REAL_TREE to a PyTorch test/ directory"),
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed"),
    pytest.mark.skipif(not (OVERLAY / "common_utils.py").exists(), reason="no torch 2.14.1 testing modules"),
]
FILES = [
    "test_view_ops.py",  # include_lazy=True: TestViewOpsLAZY without the device variable
    "nn/test_dropout.py",  # allow_mps / allow_xpu opt-ins
    "xpu/test_gemm.py",  # XPU classes
    "distributed/fsdp/test_shard_utils.py",  # PrivateUse1 naming by collection order
    "test_bundled_inputs.py",  # GENERIC only
]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    import plugin_collection

    out = tmp_path_factory.mktemp("sample")
    root = plugin_collection.prepare(Path(TREE), out)
    plugin_collection.migrate(root, FILES)
    return root


@pytest.mark.parametrize("runner", ["cpu", "cuda", "rocm", "mps", "xpu", "privateuse1"])
def test_the_plugin_the_argsfile_and_k_collect_the_same(migrated, runner):
    import plugin_collection

    result = plugin_collection.check(migrated, runner, FILES, "not float32", timeout=1800, jobs=2)
    assert result["collectable"] == len(FILES), result["failed"]
    assert result["items"]["ids"] > 0
    assert result["items"]["ids -k"] < result["items"]["ids"]  # the user's -k took something out
    assert result["disagreements"] == {}
    if runner == "privateuse1":  # a PrivateUse1 class is addressed through its file
        assert result["argsfile_plugin"]
