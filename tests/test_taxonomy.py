"""The taxonomy loader: the shipped files load, and every malformed file is a precise error."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint import keystore, lintrunner
from hwlint.keystore import KEY_FILE_ENV
from hwlint.roots import NONE_GIVEN
from hwlint.taxonomy import TaxonomyError, load_taxonomy, parse_taxonomy

from .conftest import DEFAULT_TAXONOMY, ROOT, STRICT_TAXONOMY, VENDOR_TAXONOMY, run_tool


def test_default_taxonomy_matches_the_upstream_rfc(taxonomy):
    assert list(taxonomy.classifications) == ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU"]
    runs = {name: (r.device, r.runs) for name, r in taxonomy.runners.items()}
    assert runs == {
        "cpu": ("cpu", ("GENERIC", "ACCELERATOR", "CPU")),
        "cuda": ("cuda", ("ACCELERATOR", "CUDA")),
        "rocm": ("cuda", ("ACCELERATOR", "CUDA")),
        "mps": ("mps", ("ACCELERATOR", "MPS")),
        "xpu": ("xpu", ("ACCELERATOR", "XPU")),
        "privateuse1": ("privateuse1", ("ACCELERATOR",)),
    }
    generic, accel, cuda = (taxonomy.classifications[k] for k in ("GENERIC", "ACCELERATOR", "CUDA"))
    assert (generic.instantiation, generic.device_param, generic.availability_checks) == (
        "forbidden",
        "forbidden",
        "forbidden",
    )
    assert (accel.instantiation, accel.device_param, accel.only_for) == ("required", "required", "forbidden")
    assert "onlyCUDA" in accel.forbidden_decorators and "onlyAccelerator" not in accel.forbidden_decorators
    # today's upstream linter: a device-specific class needs the declaration only
    assert (cuda.device, cuda.instantiation, cuda.device_param, cuda.only_for, cuda.except_for) == (
        "cuda",
        "either",
        "either",
        "either",
        "either",
    )


def test_strict_taxonomy_pins_device_classes(strict_taxonomy):
    for name in ("CPU", "CUDA", "MPS", "XPU"):
        c = strict_taxonomy.classifications[name]
        assert (c.instantiation, c.device_param, c.only_for, c.except_for) == (
            "required",
            "required",
            "device",
            "forbidden",
        )


def test_vendor_taxonomy_adds_a_classification_and_runner_without_code(vendor_taxonomy):
    npu = vendor_taxonomy.classifications["NPU"]
    assert npu.device == "privateuse1"
    runner = vendor_taxonomy.runners["npu"]
    assert (runner.device, runner.runs, runner.backends) == ("privateuse1", ("ACCELERATOR", "NPU"), ("npu",))
    assert vendor_taxonomy.device_aliases("privateuse1") == {"privateuse1", "npu"}


BAD = [
    ("", None, "", "taxonomy is empty"),
    ("classifications:\n  A: {x: 1\nrunners: {}\n", 3, "", "malformed YAML"),
    ("- a\n- b\n", 1, "", "top level must be a mapping"),
    ("classifications:\n  A: {}\n  A: {}\n", 3, "classifications.A", "duplicate key"),
    ("classifications:\n  A: {}\nbogus: 1\n", 3, "bogus", "unknown key"),
    (
        "classifications:\n  A:\n    instantiation: sometimes\n",
        3,
        "classifications.A.instantiation",
        "expected one of required, forbidden, either",
    ),
    ("classifications:\n  A:\n    device: tpu\n", 3, "classifications.A.device", "unknown device type 'tpu'"),
    (
        "classifications:\n  A: {device: cpu}\n  B: {device: cpu}\n",
        3,
        "classifications.B.device",
        "already belongs to A",
    ),
    (
        "classifications:\n  A:\n    only_for: device\n",
        3,
        "classifications.A.only_for",
        "needs the classification's device",
    ),
    (
        "classifications:\n  A: {}\nrunners:\n  r:\n    device: cpu\n    runs: [A, B]\n",
        6,
        "runners.r.runs[1]",
        "unknown classification 'B'",
    ),
    (
        "classifications:\n  A: {}\nrunners:\n  r:\n    runs: [A]\n",
        4,
        "runners.r",
        "missing required key 'device'",
    ),
    (
        "classifications:\n  A: {}\nrunners:\n  r: {device: cuda, backend: npu, runs: [A]}\n",
        4,
        "runners.r.backend",
        "only a privateuse1 runner",
    ),
    ("classifications: !!python/object:os.system {}\n", 1, "classifications", "unsupported YAML tag"),
    ("version: 2\nclassifications: {A: {}}\n", 1, "version", "unsupported taxonomy version 2"),
    ("inherit: maybe\nclassifications: {A: {}}\n", 1, "inherit", "expected true or false, got a string"),
    ("classifications: {}\n", 1, "classifications", "at least one classification"),
    (
        "device_params: [device, 3]\nclassifications: {A: {}}\n",
        1,
        "device_params[1]",
        "expected an identifier",
    ),
    (
        "accelerator_apis:\n  - torch.cuda\n  - torch\nclassifications: {A: {}}\n",
        3,
        "accelerator_apis[1]",
        "expected a module prefix such as torch.cuda, got a string 'torch'",
    ),
    ("accelerator_apis: torch.cuda\nclassifications: {A: {}}\n", 1, "accelerator_apis", "expected a list"),
    (
        "accelerator_apis: [torch..cuda]\nclassifications: {A: {}}\n",
        1,
        "accelerator_apis[0]",
        "expected a dotted name",
    ),
    (
        "device_neutral:\n  calls:\n    torch.cuda.synchronize: torch\nclassifications: {A: {}}\n",
        3,
        "device_neutral.calls.torch.cuda.synchronize",
        "expected a module prefix",
    ),
    (
        "device_neutral:\n  except_for: [tpu]\nclassifications: {A: {}}\n",
        2,
        "device_neutral.except_for[0]",
        "unknown device type 'tpu'",
    ),
    (
        "device_neutral:\n  opt_ins: [allow_tpu]\nclassifications: {A: {}}\n",
        2,
        "device_neutral.opt_ins[0]",
        "'allow_tpu' is no device's opt_in",
    ),
    (
        "device_neutral:\n  calls: []\nclassifications: {A: {}}\n",
        2,
        "device_neutral.calls",
        "expected a mapping",
    ),
    (
        "device_neutral:\n  spelling: x\nclassifications: {A: {}}\n",
        2,
        "device_neutral.spelling",
        "unknown key",
    ),
]


@pytest.mark.slow  # imports torch
def test_device_neutral_counterparts_exist_in_the_torch_installed(taxonomy):
    """Every device-neutral counterpart the default taxonomy names exists in torch, as does its source."""
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith(taxonomy.device_neutral.torch + "."):
        pytest.skip(f"the taxonomy names torch {taxonomy.device_neutral.torch}")
    assert taxonomy.device_neutral.calls[0] == ("torch.cuda.is_available", "torch.accelerator.is_available")

    def resolve(name: str):
        obj = torch
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    for source, target in taxonomy.device_neutral.calls:
        assert callable(resolve(source)) and callable(resolve(target)), (source, target)


def test_default_generic_rule_forbids_what_upstream_forbids(taxonomy):
    # upstream's TEST_LINTER: a `torch` call any of whose dotted parts is one of these names
    assert taxonomy.accelerator_modules == ("accelerator", "cuda", "hpu", "ipu", "mps", "mtia", "xla", "xpu")
    assert taxonomy.accelerator_apis == ()
    calls = {
        "torch.cuda.synchronize": True,
        "torch.cuda.is_available": True,
        "torch.xpu.empty_cache": True,
        "torch.mtia.device_count": True,
        "torch.backends.cuda.sdp_kernel": True,
        "torch.backends.cuda.matmul.allow_tf32_get": True,
        "torch.backends.mps.is_available": True,
        "torch.backends.cudnn.is_available": False,
        "torch._C._cuda_getDeviceCount": False,
        "torch.cudax.synchronize": False,
        "torch.testing._internal.common_cuda.tf32_on": False,
        "cuda.synchronize": False,
        "torchvision.cuda.x": False,
    }
    assert {name: taxonomy.is_accelerator_call(name) for name in calls} == calls


def test_accelerator_api_prefixes_still_match_under_them_only(tmp_path):
    prefixes = parse_taxonomy(
        "accelerator_apis: [torch.cuda, torch.backends.cuda]\nclassifications: {A: {}}\n"
    )
    calls = {
        "torch.cuda.synchronize": True,
        "torch.backends.cuda.sdp_kernel": True,
        "torch.backends.mps.is_available": False,
        "torch.cuda": False,
    }
    assert {name: prefixes.is_accelerator_call(name) for name in calls} == calls


def test_availability_only_variant_keeps_the_earlier_rule():
    variant = load_taxonomy(ROOT / "examples" / "taxonomy-availability-only.yaml")
    assert variant.accelerator_apis == ()
    assert variant.is_accelerator_call("torch.backends.cudnn.is_available")
    assert not variant.is_accelerator_call("torch.cuda.synchronize")


@pytest.mark.parametrize(("text", "line", "key", "message"), BAD, ids=[b[3] for b in BAD])
def test_malformed_taxonomy_is_a_precise_error(text, line, key, message):
    with pytest.raises(TaxonomyError) as info:
        parse_taxonomy(text, "bad.yaml")
    err = info.value
    assert (err.path, err.line, err.key) == ("bad.yaml", line, key)
    assert message in err.message


def test_unreadable_and_huge_files(tmp_path):
    with pytest.raises(TaxonomyError, match="cannot read taxonomy"):
        load_taxonomy(tmp_path / "missing.yaml")
    huge = tmp_path / "huge.yaml"
    huge.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(TaxonomyError, match="larger than"):
        load_taxonomy(huge)


def test_cli_taxonomy_check_reports_file_line_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("classifications:\n  A:\n    device: tpu\n")
    ok = run_tool(
        "hwlint", "taxonomy", "check", str(DEFAULT_TAXONOMY), str(STRICT_TAXONOMY), str(VENDOR_TAXONOMY)
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.count(": ok (") == 3
    res = run_tool("hwlint", "taxonomy", "check", str(bad))
    assert res.returncode == 2
    expected = f"{bad}:3: classifications.A.device: unknown device type 'tpu' (not under devices)"
    assert res.stderr == f"hwlint: error: {expected}\n"
    assert "Traceback" not in res.stderr


def test_cli_check_with_bad_taxonomy_exits_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("classifications: [\n")
    res = run_tool("hwlint", "check", "--taxonomy", str(bad), str(tmp_path))
    assert res.returncode == 2
    assert res.stderr.startswith(f"hwlint: error: {bad}:")


def test_taxonomy_show_round_trips(tmp_path):
    res = run_tool("hwlint", "taxonomy", "show", "--taxonomy", str(VENDOR_TAXONOMY))
    assert res.returncode == 0, res.stderr
    shown = tmp_path / "shown.yaml"
    shown.write_text(res.stdout)
    again = load_taxonomy(shown)
    original = load_taxonomy(VENDOR_TAXONOMY)
    assert again.classifications == original.classifications
    assert again.runners == original.runners


# -- hostile YAML: a taxonomy comes with a pull request too --------------------------------------

LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)
HOSTILE = {
    "billion-laughs": (LAUGHS, 2, "YAML aliases are not allowed in a taxonomy (*a)"),
    "recursive-alias": (
        "classifications: &c {A: *c}\n",
        1,
        "YAML aliases are not allowed in a taxonomy (*c)",
    ),
    "deep-nesting": (
        "classifications:\n  A: " + "[" * 40 + "]" * 40 + "\n",
        2,
        "nested deeper than 32 levels",
    ),
}


def _limited(*args: str) -> subprocess.CompletedProcess:
    """Run hwlint with 1 GB of address space and 20 s: a runaway expansion fails fast, not the host."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    exe = Path(sys.executable).parent / "hwlint"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=20, preexec_fn=limit)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_yaml_is_refused_with_file_and_line(name, tmp_path):
    text, line, message = HOSTILE[name]
    bad = tmp_path / f"{name}.yaml"
    bad.write_text(text)
    expected = f"hwlint: error: {bad}:{line}: {message}\n"
    for args in (["taxonomy", "check", str(bad)], ["check", "--taxonomy", str(bad), str(tmp_path)]):
        res = _limited(*args)
        assert (res.returncode, res.stderr) == (2, expected), args
    out = io.StringIO()
    assert lintrunner.run(["--taxonomy", str(bad), str(tmp_path / "test_x.py")], out) == 0
    [msg] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert msg["name"] == "configuration-error"
    assert msg["description"].endswith(f"{bad}:{line}: {message}")


# -- the remembered parse: a taxonomy read once is validated again without PyYAML --------------

REMEMBERED = (
    "import json, sys\n"
    "from hwlint.taxonomy import load_taxonomy\n"
    "t = load_taxonomy(sys.argv[1])\n"
    "print(json.dumps(['yaml' in sys.modules, repr(t), t.raw]))\n"
)


@pytest.mark.parametrize("path", [DEFAULT_TAXONOMY, VENDOR_TAXONOMY, STRICT_TAXONOMY], ids=lambda p: p.name)
def test_a_remembered_taxonomy_loads_without_pyyaml_to_the_same_taxonomy(path, tmp_path):
    # (one hash seed: a frozenset's repr follows it)
    env = {**os.environ, KEY_FILE_ENV: str(tmp_path / "key"), "PYTHONHASHSEED": "0"}
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", REMEMBERED, str(path)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for _ in range(2)
    ]
    assert [run[0] for run in runs] == [True, False]  # PyYAML imported the first time only
    assert runs[0][1:] == runs[1][1:]


def test_a_remembered_taxonomy_not_signed_with_the_users_key_or_of_another_shape_is_ignored(
    tmp_path, monkeypatch
):
    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / "key"))
    text = DEFAULT_TAXONOMY.read_text()
    first = parse_taxonomy(text, "t.yaml", remember=True)
    [kept] = tmp_path.glob("taxonomy-*.json")
    name = kept.name.removesuffix(".json")
    forged = json.loads(kept.read_bytes().partition(b"\n")[2])
    del forged["raw"]["runners"]["cuda"]
    kept.write_bytes(b"hwlint-cache-4 " + b"0" * 64 + b"\n" + json.dumps(forged).encode())
    assert parse_taxonomy(text, "t.yaml", remember=True) == first
    assert "cuda" in first.runners
    for malformed in ({"raw": [], "lines": {}}, {"raw": {}, "lines": {"version": "1"}}, ["raw", "lines"]):
        keystore.remember(name, malformed, NONE_GIVEN)
        assert parse_taxonomy(text, "t.yaml", remember=True) == first


def test_no_cache_remembers_no_taxonomy(tmp_path, monkeypatch):
    keys, tree = tmp_path / "keys", tmp_path / "tree"  # a key inside the checked tree is refused
    keys.mkdir()
    tree.mkdir()
    monkeypatch.setenv(KEY_FILE_ENV, str(keys / "key"))
    (tree / "test_a.py").write_text("x = 1\n")
    for no_cache, remembered in ((["--no-cache"], []), ([], ["taxonomy"])):
        taxonomy = tmp_path / f"taxonomy-{len(no_cache)}.yaml"  # a path no earlier load has seen
        taxonomy.write_text(DEFAULT_TAXONOMY.read_text())
        res = run_tool("hwlint", "check", *no_cache, "--taxonomy", str(taxonomy), str(tree / "test_a.py"))
        assert res.returncode == 0, res.stderr
        assert [p.name.split("-")[0] for p in keys.glob("taxonomy-*.json")] == remembered
