"""Compare hwselect with pytest's own collection on a real PyTorch test tree (docs/hwselect-real-tree.md).

    python benchmarks/real_tree.py --tree /work/pt/src/pytorch-v2.6.0/test --out /tmp/rt
    python benchmarks/real_tree.py --tree ... --out /tmp/rt --sample 60     # a seeded random subset
    python benchmarks/real_tree.py --out /tmp/rt --runner mps --sample 150 --files nn/test_dropout.py
    python benchmarks/real_tree.py --out /tmp/rt --compare-only             # re-run hwselect only

Steps: copy the tree (the original is never written), patch PyTorch 2.6's ``conftest.py`` for current
pytest (its ``pytest_pycollect_makemodule`` still takes the removed ``path`` argument), collect every
test file with the installed torch in batches of fresh ``pytest --collect-only`` processes (the
runner's ``PYTORCH_TESTING_DEVICE_ONLY_FOR``, its device faked for collection by the plugin below, a
PrivateUse1 backend registered as tests/test_select_torch.py does; no classification filter: the tree
is unclassified, so the generation logic itself is compared), then run ``hwselect RUNNER
--include-unclassified`` on the same copy and compare class by class:

* agreement: classes pytest collects that hwselect selects by an exact node id or through its file;
* missed: classes pytest collects that hwselect neither selects nor names in a warning (the target is 0);
* missing node ids: printed ``path::Class`` lines pytest does not collect (must be 0: one aborts a run).

Only files whose collection succeeded are compared (a module that fails to import under the installed
torch collects nothing, and hwselect cannot know that). Results go to OUT/summary-RUNNER.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

# Per runner: the environment its collection runs in (CI's device filter, and which fake the plugin
# installs: HW_FAKE_DEVICE) and hwselect's extra arguments. torch 2.13's CPU build has no other device,
# so the plugin fakes the runner's device for collection only (HW_FAKE_DEVICE in PLUGIN).
RUNNERS: dict[str, dict] = {
    "cpu": {"env": {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "cpu"}, "args": []},
    "privateuse1": {
        "env": {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "privateuse1", "HW_FAKE_DEVICE": "openreg"},
        "args": ["--backend", "openreg"],
    },
    "cuda": {"env": {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "cuda", "HW_FAKE_DEVICE": "cuda"}, "args": []},
    # ROCm reports device type "cuda": the same classes are generated, with torch.version.hip set
    "rocm": {
        "env": {
            "PYTORCH_TESTING_DEVICE_ONLY_FOR": "cuda",
            "HW_FAKE_DEVICE": "rocm",
            "PYTORCH_TEST_WITH_ROCM": "1",
        },
        "args": [],
    },
    "mps": {"env": {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "mps", "HW_FAKE_DEVICE": "mps"}, "args": []},
    "xpu": {"env": {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "xpu", "HW_FAKE_DEVICE": "xpu"}, "args": []},
}
CONFTEST_HOOK = "def pytest_pycollect_makemodule(module_path, path, parent)"
PLUGIN = '''\
"""Writes what pytest collected: item node ids and the modules whose collection failed.

Loaded with -p, before any conftest or test module imports torch's testing helpers, it first fakes
the runner's device (HW_FAKE_DEVICE) for collection only: what torch's device bases and the
modules' import-time checks ask of it answer as on a one-device machine; nothing can run.
"""
import json
import os
import types

_FAILED = []
_FAKE = os.environ.get("HW_FAKE_DEVICE", "")


def _fake_module(mod, props):
    mod.is_available = lambda: True
    mod.device_count = lambda: 1
    mod.current_device = lambda: 0
    mod.get_device_capability = lambda device=None: (props.major, props.minor)
    mod.get_device_name = lambda device=None: props.name
    mod.get_device_properties = lambda device=None: props


if _FAKE:
    import torch

    _props = types.SimpleNamespace(
        name="fake", major=8, minor=0, total_memory=80 << 30, multi_processor_count=108,
        gcnArchName="gfx942" if _FAKE == "rocm" else "", warp_size=32, is_integrated=False,
        L2_cache_size=40 << 20, max_threads_per_multi_processor=2048, uuid="0",
    )
    if _FAKE == "openreg":
        # as tests/test_select_torch.py: a PrivateUse1 backend torch's PrivateUse1TestBase generates for
        torch.utils.rename_privateuse1_backend("openreg")
        _mod = types.ModuleType("openreg")
        _fake_module(_mod, _props)
        torch._register_device_module("openreg", _mod)
        import torch.distributed as dist

        # a real backend registers its process-group backend too (DTensor's helpers look it up)
        if dist.is_available():
            dist.Backend.default_device_backend_map.setdefault("openreg", "gloo")
    elif _FAKE in ("cuda", "rocm"):
        _fake_module(torch.cuda, _props)
        torch.cuda.is_bf16_supported = lambda *a, **k: True
        torch.cuda.get_arch_list = lambda: ["gfx942"] if _FAKE == "rocm" else ["sm_80"]
        torch.backends.cudnn.is_acceptable = lambda t: False
        if not hasattr(torch._C, "_cuda_getCompiledVersion"):  # jit_utils reads it at import
            torch._C._cuda_getCompiledVersion = lambda: 12080
        if _FAKE == "rocm":
            torch.version.hip = "6.2.0"
    elif _FAKE == "mps":
        torch.backends.mps.is_available = lambda: True
        torch.backends.mps.is_built = lambda: True
        torch.backends.mps.is_macos_or_newer = lambda major, minor: True
        torch.mps.device_count = lambda: 1
    elif _FAKE == "xpu":
        _fake_module(torch.xpu, _props)
        torch.version.xpu = "20250101"  # a SYCL/oneAPI version string, as an XPU build has
    if _FAKE in ("cuda", "rocm", "mps", "xpu"):
        _type = "cuda" if _FAKE == "rocm" else _FAKE
        torch.accelerator.is_available = lambda: True
        torch.accelerator.current_accelerator = lambda check_available=False: torch.device(_type)
        torch.accelerator.device_count = lambda: 1
        torch.accelerator.current_device_index = lambda: 0
    if _FAKE in ("cuda", "rocm"):
        from torch.testing._internal import common_device_type

        # CUDATestBase.setUpClass (called when a test is instantiated) moves a tensor to the device
        @classmethod
        def _set_up(cls):
            cls.no_magma, cls.no_cudnn, cls.cudnn_version = True, True, None
            cls.primary_device = "cuda:0"

        common_device_type.CUDATestBase.setUpClass = _set_up
        from torch.testing._internal import common_cuda

        # its lazy check moves a tensor to the device: a fake runner has no cuDNN
        common_cuda.TEST_CUDNN, common_cuda.TEST_CUDNN_VERSION = False, 0


_REPORTED = []


def pytest_collectreport(report):
    _REPORTED.append(report.nodeid)
    if report.failed:
        _FAILED.append(report.nodeid)


def pytest_collection_finish(session):
    with open(os.environ["HW_COLLECT_OUT"], "w") as f:
        json.dump({"items": [i.nodeid for i in session.items], "failed": _FAILED, "reported": _REPORTED}, f)
'''


def device_suffixes(runner: str) -> tuple[str, ...]:
    """How the names of the classes torch generates for *runner*'s device end: ``CPU``, ``CUDA``...;
    PrivateUse1's are ``PRIVATEUSE1`` or the backend's name (hwselect's ``--backend``)."""
    spec = RUNNERS[runner]
    args = spec["args"]
    backends = [args[i + 1].upper() for i, a in enumerate(args[:-1]) if a == "--backend"]
    return (spec["env"]["PYTORCH_TESTING_DEVICE_ONLY_FOR"].upper(), *backends)


def prepare(tree: Path, out: Path) -> Path:
    """A patched copy of *tree* under *out* (reused when present)."""
    copy = out / "test"
    if copy.exists():  # the current plugin, in a reused copy (atomic: another run may be collecting)
        (copy / "_hw_collect_plugin.tmp").write_text(PLUGIN)
        os.replace(copy / "_hw_collect_plugin.tmp", copy / "_hw_collect_plugin.py")
        return copy
    shutil.copytree(tree, copy, symlinks=True)
    conftest = copy / "conftest.py"
    text = conftest.read_text()
    if CONFTEST_HOOK in text:
        conftest.write_text(
            text.replace(CONFTEST_HOOK, "def pytest_pycollect_makemodule(module_path, parent)")
        )
    (copy / "_hw_collect_plugin.py").write_text(PLUGIN)
    (copy / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return copy


def test_files(root: Path) -> list[str]:
    """Files pytest's default python_files pattern collects, root-relative, sorted."""
    out = []
    for p in root.rglob("*.py"):
        if p.name.startswith("test_") or p.name.endswith("_test.py"):
            out.append(p.relative_to(root).as_posix())
    return sorted(out)


def collect_batch(root: Path, files: list[str], runner: str, out: Path, timeout: int) -> dict | None:
    target = out / f"collect-{runner}-{os.getpid()}.json"
    env = {
        **os.environ,
        **RUNNERS[runner]["env"],
        "HW_COLLECT_OUT": str(target),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(root),
    }
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "--continue-on-collection-errors"]
    cmd += ["-p", "_hw_collect_plugin", *files]
    try:
        subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if not target.exists():
        return None
    data = json.loads(target.read_text())
    target.unlink()
    return data


def _complete(result: dict) -> bool:
    """Whether *result*'s collection is known to have run to its end ("alone": older stores)."""
    return bool(result.get("complete") or result.get("alone"))


def collect(root: Path, files: list[str], runner: str, out: Path, batch: int, timeout: int) -> dict:
    """Per file: {"items": [...]} or {"error": why}. Resumable: results accumulate in OUT."""
    store = out / f"truth-{runner}.json"
    done: dict = json.loads(store.read_text()) if store.exists() else {}
    todo = [f for f in files if f not in done]
    queue = [todo[i : i + batch] for i in range(0, len(todo), batch)]
    while True:
        if not queue:  # files a batch cut short in an earlier, interrupted run
            again = [f for f in files if done.get(f, {}).get("items") == [] and not _complete(done[f])]
            queue = [again[i : i + batch] for i in range(0, len(again), batch)]
        if not queue:
            break
        part = queue.pop(0)
        t0 = time.time()
        data = collect_batch(root, part, runner, out, timeout)
        if data is None:
            if len(part) > 1:
                mid = len(part) // 2
                queue[:0] = [part[:mid], part[mid:]]
                continue
            done[part[0]] = {"error": "timeout or crash"}
        else:
            failed = {n.split("::")[0] for n in data["failed"]}
            reported = set(data.get("reported", ()))
            cut = []
            for f in part:
                items = [i for i in data["items"] if i.split("::")[0] == f]
                done[f] = {"error": "collection failed"} if f in failed else {"items": items}
                if len(part) == 1 or items or f in failed or f in reported:
                    done[f]["complete"] = True
                else:
                    cut.append(f)
            # A module that calls sys.exit() on import ends the whole session: pytest collects its
            # arguments in order, so the first file it never reported is that module, and the files
            # after it were never reached. Collect the one alone and the rest again as a batch.
            queue[:0] = [p for p in ([cut[0]], cut[1:]) if p] if cut else []
        store.write_text(json.dumps(done))
        print(
            f"collected {len(done)}/{len(files)} files ({time.time() - t0:.0f}s for {len(part)})", flush=True
        )
    return done


def hwselect(root: Path, runner: str, files: list[str]) -> tuple[list[str], str, float]:
    exe = Path(sys.executable).parent / "hwselect"
    t0 = time.time()
    proc = subprocess.run(
        [
            str(exe),
            runner,
            "--include-unclassified",
            "--no-cache",
            "--verbose",
            *RUNNERS[runner]["args"],
            *files,
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    return proc.stdout.splitlines(), proc.stderr, time.time() - t0


def compare(root: Path, runner: str, truth: dict, out: Path, scan: list[str]) -> dict:
    """Class-level agreement on the files that collected; hwselect runs on *scan* (the whole tree, as
    a user would, unless only --files were given: imported classes resolve only among scanned files)."""
    ok_files = sorted(f for f, r in truth.items() if "items" in r)
    collected: dict[str, int] = {}
    for f in ok_files:
        for item in truth[f]["items"]:
            parts = item.split("::")
            if len(parts) >= 3:
                key = "::".join(parts[:2])
                collected[key] = collected.get(key, 0) + 1
    lines, stderr, seconds = hwselect(root, runner, scan)
    ids, whole, k = set(), set(), None
    it = iter(lines)
    for line in it:
        if line == "-k":
            k = next(it, "")
        elif "::" in line:
            ids.add(line)
        elif line.strip():
            whole.add(line)
    ok = set(ok_files)
    checkable = {i for i in ids if i.split("::")[0] in ok}
    missing = sorted(i for i in checkable if i not in collected)
    # warnings by file: "hwselect: warning: PATH[::Class]: text"
    warned: dict[str, list[str]] = {}
    for w in stderr.splitlines():
        if w.startswith("hwselect: warning: "):
            head, _, text = w[len("hwselect: warning: ") :].partition(": ")
            warned.setdefault(head.split("::")[0], []).append(head + ": " + text)
    exact = {c for c in collected if c in ids}
    via_file = {c for c in collected if c not in ids and c.split("::")[0] in whole}
    rest = set(collected) - exact - via_file
    named = {c for c in rest if any(c.split("::")[1] in w for w in warned.get(c.split("::")[0], []))}
    file_warned = {c for c in rest - named if c.split("::")[0] in warned}
    missed = sorted(rest - named - file_warned)
    summary = {
        "runner": runner,
        "files_total": len(truth),
        "files_collected": len(ok_files),
        "files_failed": sorted(f for f, r in truth.items() if "items" not in r),
        "classes_collected": len(collected),
        "classes_generated": sum(c.endswith(device_suffixes(runner)) for c in collected),
        "selected_exact": len(exact),
        "selected_via_file": len(via_file),
        "named_in_warning": sorted(named),
        "in_warned_file": sorted(file_warned),
        "missed": missed,
        "printed_nodeids": len(ids),
        "printed_nodeids_checkable": len(checkable),
        "missing_nodeids": missing,
        "files_listed_whole": len(whole),
        "k_expression_bytes": len(k or ""),
        "hwselect_seconds": round(seconds, 2),
    }
    (out / f"summary-{runner}.json").write_text(json.dumps(summary, indent=2))
    (out / f"hwselect-{runner}.stderr").write_text(stderr)
    (out / f"hwselect-{runner}.stdout").write_text("\n".join(lines))
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", default="/work/pt/src/pytorch-v2.6.0/test")
    p.add_argument("--out", required=True)
    p.add_argument("--runner", default="cpu", choices=sorted(RUNNERS))
    p.add_argument("--sample", type=int, default=0, help="a seeded random subset of N files (plus --files)")
    p.add_argument("--files", nargs="*", help="these files only (root-relative)")
    p.add_argument("--batch", type=int, default=40)
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--compare-only", action="store_true")
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = prepare(Path(args.tree), out)
    files = test_files(root)
    if args.sample:  # with --files: those files plus the sample
        files = sorted({*random.Random(15).sample(files, min(args.sample, len(files))), *(args.files or ())})
    elif args.files:
        files = args.files
    if not args.compare_only:
        truth = collect(root, files, args.runner, out, args.batch, args.timeout)
    else:
        truth = json.loads((out / f"truth-{args.runner}.json").read_text())
    truth = {f: truth[f] for f in files if f in truth}
    scan = sorted(truth) if args.files and not args.sample else test_files(root)
    summary = compare(root, args.runner, truth, out, scan)
    short = {k: (len(v) if isinstance(v, list) else v) for k, v in summary.items()}
    print(json.dumps(short, indent=2))
    return 1 if summary["missing_nodeids"] or summary["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
