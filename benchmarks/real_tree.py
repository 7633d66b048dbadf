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

Loaded with -p, before any conftest or test module imports torch's testing helpers, it first lays
other versions of torch's testing modules over the installed ones when HW_OVERLAY names their
directory (benchmarks/migration.py: torch 2.14.1's common_utils.py and common_device_type.py, which
define HardwareClassification and the run-time filter), then fakes the runner's device
(HW_FAKE_DEVICE) for collection only: what torch's device bases and the modules' import-time checks
ask of it answer as on a one-device machine; nothing can run.

HW_K_MATCH=EXPR also writes which collected items ``-k EXPR`` would keep (``k_matches``).
HW_RUNS=A,B,... applies the run-time classification filter (``--hw-classification A B``) to the
collected items exactly as torch does (below); HW_RECORDS=1 writes one row per collected item with
its class, its device-neutral name and its classification.
"""
import enum
import json
import os
import sys
import types

_FAILED = []
_ERRORS = {}
_FAKE = os.environ.get("HW_FAKE_DEVICE", "")
_OVERLAY = os.environ.get("HW_OVERLAY", "")
_RUNS = [r for r in os.environ.get("HW_RUNS", "").split(",") if r] if "HW_RUNS" in os.environ else None
_RECORDS = [] if os.environ.get("HW_RECORDS") else None

if _OVERLAY:
    if "torch.testing._internal.common_utils" in sys.modules:
        raise RuntimeError("HW_OVERLAY: torch.testing._internal.common_utils was imported before the plugin")
    import torch.testing._internal as _internal

    # a namespace-like search path: the overlay's modules win, every other one stays torch's own
    _internal.__path__.insert(0, _OVERLAY)


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
        # a test that runs (tests/torch_migration.py runs tests that touch no device) would check
        # the device's memory and streams around itself
        common_device_type.CUDATestBase._do_cuda_memory_leak_check = False
        common_device_type.CUDATestBase._do_cuda_non_default_stream = False
        from torch.testing._internal import common_cuda

        # its lazy check moves a tensor to the device: a fake runner has no cuDNN
        common_cuda.TEST_CUDNN, common_cuda.TEST_CUDNN_VERSION = False, 0

if os.environ.get("HW_ENUM_FALLBACK") and not _OVERLAY:
    from torch.testing._internal import common_utils as _cu

    # torch < 2.14 without the overlay: the enum a test file's own fallback would define, shared by
    # every file (the filter then compares member names, see _filter_by_name)
    if not hasattr(_cu, "HardwareClassification"):
        _names = "GENERIC ACCELERATOR CPU CUDA MPS XPU"
        _cu.HardwareClassification = enum.Enum("HardwareClassification", _names)


_REPORTED = []

if os.environ.get("HW_CATCH_EXIT"):
    import pytest

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(collector):
        """HW_CATCH_EXIT=1: a module that calls sys.exit() on import fails its own collection
        instead of ending the session (run_test.py runs each file in a process of its own), so
        one session over many files reaches them all."""
        try:
            return (yield)
        except SystemExit as e:
            from _pytest.reports import CollectReport

            return CollectReport(collector.nodeid, "failed", f"E   SystemExit: {e.code}", [])


def _first_error_line(report):
    """The first line of the exception a failed collection ends with ("NameError: name 'X' is not
    defined"): of chained exceptions, the last one raised."""
    import re

    text = report.longreprtext or ""
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    named = [line for line in lines if re.match(r"[A-Za-z_][\\w.]*: ", line)]
    if named:
        return named[-1]
    return lines[0] if lines else next((line for line in text.splitlines() if line.strip()), "")


def pytest_collectstart(collector):
    """Each module is collected as in a process of its own (run_test.py runs one file a process)
    as far as torch's device bases go: the primary device a base's setUpClass set while an earlier
    module was instantiated is forgotten, so a module whose first instantiation fails to set it
    (a generic class whose base is NoTest, without setUpClass) fails here as it would alone."""
    cdt = sys.modules.get("torch.testing._internal.common_device_type")
    if cdt is None or type(collector).__name__ != "Module":
        return
    todo = list(cdt.DeviceTypeTestBase.__subclasses__())
    while todo:
        base = todo.pop()
        todo += base.__subclasses__()
        if "primary_device" in vars(base) and base.__module__ == cdt.__name__:
            delattr(base, "primary_device")


def pytest_collectreport(report):
    _REPORTED.append(report.nodeid)
    if report.failed:
        _FAILED.append(report.nodeid)
        _ERRORS[report.nodeid] = _first_error_line(report)


def _classification(cls):
    value = getattr(cls, "hw_classification", None)
    return None if value is None else getattr(value, "name", repr(value))


def _neutral(item):
    """[class, generic class, device-neutral test name, dtype suffix, device] of *item*.

    A class instantiate_device_type_tests generates is type(generic.__name__ + DEVICE, (DeviceBase,
    generic), {}); its tests are named NAME + PARAM_SUFFIX + "_" + device + DTYPE_SUFFIX (torch's
    instantiate_test: the dtype suffix after the device, the device being the backend's name on
    PrivateUse1). The neutral name drops "_" + device only; the dtype suffix, read from the
    instantiated test's own param_kwargs, stays (and is also returned alone)."""
    cls = getattr(item, "cls", None)
    if cls is None:
        return ["", "", item.name, "", ""]
    cdt = sys.modules.get("torch.testing._internal.common_device_type")
    bases = cls.__bases__
    if cdt is None or len(bases) != 2 or not issubclass(bases[0], cdt.DeviceTypeTestBase):
        return [cls.__name__, cls.__name__, item.name, "", ""]
    pu1 = issubclass(bases[0], cdt.PrivateUse1TestBase)
    import torch

    device = torch._C._get_privateuse1_backend_name() if pu1 else cls.device_type
    fn = cls.__dict__.get(item.name)
    kwargs = (getattr(fn, "__defaults__", None) or [None])[0]
    dtypes = None
    if isinstance(kwargs, dict):
        dtypes = kwargs["dtypes"] if "dtypes" in kwargs else kwargs.get("dtype")
    dsuffix = cdt._dtype_test_suffix(dtypes)
    tail = "_" + device + dsuffix
    name = item.name
    if name.endswith(tail):
        neutral = name[: len(name) - len(tail)] + dsuffix
    else:  # not torch's instantiated test (a test added to the generated class later): the last one
        at = name.rfind("_" + device)
        neutral = name if at < 0 else name[:at] + name[at + len(device) + 1 :]
    return [cls.__name__, bases[1].__name__, neutral, dsuffix, "privateuse1" if pu1 else device]


def _filter_by_name(items, runs, get_class, on_match):
    """torch 2.14.1's filter_by_hw_classification for a torch without HardwareClassification (each
    test file then defines its own enum, so members are compared by name): a test runs when its
    class's classification (getattr, so inherited) is one of *runs*; classless and unclassified
    items are dropped; a value that is not an enum member raises TypeError."""
    for item in items:
        cls = get_class(item)
        if cls is None:
            continue
        value = getattr(cls, "hw_classification", None)
        if value is None:
            continue
        if not isinstance(value, enum.Enum):
            where = f"{cls.__module__}.{cls.__name__}"
            raise TypeError(f"{where}.hw_classification must be a HardwareClassification")
        if value.name in runs:
            on_match(item)


def _hw_filter(items):
    """The items torch's --hw-classification RUNS keeps: 2.14.1's conftest plugin passes pytest's
    items to common_utils.filter_by_hw_classification with get_class=item.cls. A TypeError there
    ends the session; here it fails that file only (as running the file alone would)."""
    from torch.testing._internal import common_utils as cu

    enum_cls = getattr(cu, "HardwareClassification", None)
    get_class = lambda item: getattr(item, "cls", None)  # noqa: E731 (torch's own lambda)
    if enum_cls is not None and hasattr(cu, "filter_by_hw_classification"):
        wanted = {enum_cls[name] for name in _RUNS}

        def run(group, on_match):
            cu.filter_by_hw_classification(group, wanted, get_class=get_class, on_match=on_match)
    else:

        def run(group, on_match):
            _filter_by_name(group, set(_RUNS), get_class, on_match)

    kept = []
    try:
        run(items, kept.append)
        return kept
    except TypeError:
        pass
    kept, files = [], {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    for path, group in files.items():
        part = []
        try:
            run(group, part.append)
        except TypeError as e:
            _FAILED.append(path)
            _ERRORS[path] = f"TypeError: {e}"
            continue
        kept += part
    return kept


def _layers(fn):
    """*fn* and the functions it wraps (functools.wraps' __wrapped__), outermost first."""
    fn = getattr(fn, "__func__", fn)
    seen = set()
    while fn is not None and id(fn) not in seen:
        seen.add(id(fn))
        yield fn
        fn = getattr(fn, "__wrapped__", None)


def _pin_skips(layer, device):
    """Whether torch's device decorator that made *layer* skips its test on *device* (None: the
    class has no device_type, so the decorator's own check fails before the test runs)."""
    qualname = getattr(layer, "__qualname__", "")
    owners = [c.cell_contents for c in (getattr(layer, "__closure__", None) or ()) if _filled(c)]
    for owner in owners:
        kind = type(owner).__name__
        if kind == "onlyOn" and qualname.startswith("onlyOn."):
            wanted = owner.device_type
            return device is None or device not in ([wanted] if isinstance(wanted, str) else wanted)
        if kind == "skipIf" and qualname.startswith("skipIf.") and isinstance(owner.dep, bool):
            where = owner.device_type
            if where is None or where == device or (not isinstance(where, str) and device in (where or ())):
                return owner.dep
    if qualname.startswith("onlyAccelerator."):
        return device in (None, "cpu", "meta")
    if qualname.startswith("onlyNativeDeviceTypes."):
        cdt = sys.modules.get("torch.testing._internal.common_device_type")
        return device is None or (cdt is not None and device not in cdt.NATIVE_DEVICES)
    return False


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _skipped_before_run(item):
    """Whether the runner skips *item* before its body runs: a pytest skip mark that applies, a
    unittest skip decorator on it or its class (``@skipIf(not TEST_CUDA)``, ``@requires_cuda``, a
    class-level skip: decided at import, with the runner's device faked), or a torch device
    decorator for another device (``@onlyCUDA``, ``skipCUDAIf(True)``, ``@onlyAccelerator`` on cpu)
    that raises SkipTest first thing. A test skipped every time on a runner does not run there."""
    from _pytest.skipping import evaluate_skip_marks

    try:
        if evaluate_skip_marks(item) is not None:
            return True
    except Exception:  # a mark's condition that fails to evaluate fails the test: it does not run
        return True
    cls = getattr(item, "cls", None)
    if cls is not None and getattr(cls, "__unittest_skip__", False):
        return True
    # on PrivateUse1 the backend's name, as the decorators compare it
    device = getattr(cls, "device_type", None) if cls is not None else None
    for layer in _layers(getattr(item, "obj", None)):
        if getattr(layer, "__unittest_skip__", False) or _pin_skips(layer, device):
            return True
    return False


def pytest_collection_modifyitems(session, config, items):
    kept = _hw_filter(items) if _RUNS is not None else items
    if _RECORDS is not None:
        ids = {id(i) for i in kept}
        for item in items:
            row = _neutral(item)
            cls = getattr(item, "cls", None)
            classification = _classification(cls) if cls else None
            _RECORDS.append([item.nodeid, *row, classification, id(item) in ids, _skipped_before_run(item)])
    items[:] = kept


_DATA = {}
_OUTCOMES = {}


def pytest_collection_finish(session):
    data = {"items": [i.nodeid for i in session.items], "failed": _FAILED, "reported": _REPORTED}
    data["errors"] = _ERRORS
    if _RECORDS is not None:
        data["records"] = _RECORDS
    if os.environ.get("HW_K_MATCH"):  # the collected items a -k EXPR would keep, as pytest decides
        from _pytest.mark import KeywordMatcher
        from _pytest.mark.expression import Expression

        expr = Expression.compile(os.environ["HW_K_MATCH"])
        data["k_matches"] = [i.nodeid for i in session.items if expr.evaluate(KeywordMatcher.from_item(i))]
    cu = sys.modules.get("torch.testing._internal.common_utils")
    data["common_utils"] = getattr(cu, "__file__", None)
    _DATA.update(data)
    with open(os.environ["HW_COLLECT_OUT"], "w") as f:
        json.dump(data, f)


def pytest_runtest_logreport(report):
    """When the tests run (no --collect-only): each one's outcome, and why it skipped or failed."""
    if report.when == "call" or (report.when == "setup" and not report.passed) or report.failed:
        why = ""
        if report.skipped and isinstance(report.longrepr, tuple):
            why = str(report.longrepr[2])
        elif report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            why = crash.message if crash is not None else str(report.longrepr)[-300:]
        outcome = "error" if report.failed and report.when != "call" else report.outcome
        _OUTCOMES[report.nodeid] = [outcome, why.splitlines()[0] if why else ""]


def pytest_sessionfinish(session):
    if _OUTCOMES and _DATA:
        _DATA["outcomes"] = _OUTCOMES
        with open(os.environ["HW_COLLECT_OUT"], "w") as f:
            json.dump(_DATA, f)
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


def collect_batch(
    root: Path, files: list[str], runner: str, out: Path, timeout: int, env: dict[str, str] | None = None
) -> dict | None:
    target = out / f"collect-{runner}-{os.getpid()}.json"
    env = {
        **os.environ,
        **RUNNERS[runner]["env"],
        **(env or {}),
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


def split_batch(data: dict, part: list[str]) -> tuple[dict[str, dict], list[str]]:
    """Per file of *part*, from one session's plugin output: {"items": [...]} (plus "records" and
    "outcomes" when the plugin wrote them) or {"error": its first line}; and the files the session
    never reached (a module before them called sys.exit() on import)."""
    failed = {n.split("::")[0] for n in data["failed"]}
    errors = {n.split("::")[0]: why for n, why in data.get("errors", {}).items()}
    reported = set(data.get("reported", ()))
    by_file: dict[str, dict[str, list]] = {}

    def bucket(nodeid: str) -> dict[str, list]:
        return by_file.setdefault(nodeid.split("::")[0], {"items": [], "records": [], "outcomes": []})

    for nodeid in data["items"]:
        bucket(nodeid)["items"].append(nodeid)
    for row in data.get("records", ()):
        bucket(row[0])["records"].append(row)
    for nodeid, outcome in data.get("outcomes", {}).items():
        bucket(nodeid)["outcomes"].append([nodeid, *outcome])
    results, cut = {}, []
    for f in part:
        if f in failed:
            results[f] = {"error": errors.get(f) or "collection failed"}
        else:
            results[f] = {"items": bucket(f)["items"]}
            for key in ("records", "outcomes"):
                if key in data:
                    results[f][key] = bucket(f)[key]
        if len(part) == 1 or results[f].get("items") or f in failed or f in reported:
            results[f]["complete"] = True
        else:
            cut.append(f)
    return results, cut


def _complete(result: dict) -> bool:
    """Whether *result*'s collection is known to have run to its end ("alone": older stores)."""
    return bool(result.get("complete") or result.get("alone"))


def collect(
    root: Path,
    files: list[str],
    runner: str,
    out: Path,
    batch: int,
    timeout: int,
    env: dict[str, str] | None = None,
    store: Path | None = None,
) -> dict:
    """Per file: {"items": [...]} or {"error": why} (plus "records" when the plugin writes them:
    HW_RECORDS in *env*). Resumable: results accumulate in *store* (default OUT/truth-RUNNER.json)."""
    store = store or out / f"truth-{runner}.json"
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
        data = collect_batch(root, part, runner, out, timeout, env)
        if data is None:
            if len(part) > 1:
                mid = len(part) // 2
                queue[:0] = [part[:mid], part[mid:]]
                continue
            done[part[0]] = {"error": "timeout or crash"}
        else:
            results, cut = split_batch(data, part)
            done.update(results)
            # A module that calls sys.exit() on import ends the whole session: pytest collects its
            # arguments in order, so the first file it never reported is that module, and the files
            # after it were never reached. Collect the one alone and the rest again as a batch.
            queue[:0] = [p for p in ([cut[0]], cut[1:]) if p] if cut else []
        store.write_text(json.dumps(done))
        print(
            f"collected {sum(f in done for f in files)}/{len(files)} files"
            f" ({time.time() - t0:.0f}s for {len(part)})",
            flush=True,
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
