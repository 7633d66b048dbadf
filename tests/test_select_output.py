"""What hwselect prints, through its real consumers: pytest's collection and its ``-k``.

* module names several files share, qualified by directory names (issue 27, item 1): ``-k`` and
  the node ids collect exactly the runtime's selection, on a tree shaped like PyTorch's
  (``jit/`` and ``distributed/test_data_parallel.py``, ``test_view_ops.py`` at the root and under
  ``distributed/_tensor/``, ``package/test_misc.py`` whose markers contain ``dynamo``);
* warnings one line per kind, every one with ``--verbose``, none with ``-q`` (item 2);
* a path that starts with ``-`` (issue 26, item 7), absurd shard counts (item 11), and explain of a
  class that does not exist (issue 28).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from hwlint.select.notices import Kind, Notice, group, plural
from tests.conftest import DEFAULT_TAXONOMY, run_tool
from tests.select_suite import write_suite
from tests.test_select_collect import RUNS, collect

GEN = "hw_classification = HardwareClassification.GENERIC"
CUDA = "hw_classification = HardwareClassification.CUDA"


def cls(name: str, member: str, *tests: str, deco: str = "") -> str:
    body = "".join(
        f"    {deco}\n    def {t}(self):\n        pass\n\n"
        if deco
        else f"    def {t}(self):\n        pass\n\n"
        for t in tests
    )
    return f"\nclass {name}(TestCase):\n    {member}\n\n{body}"


SKIP = "def skipIfTorchDynamo(fn):\n    return fn\n\n"

# Shaped like PyTorch's tree: the module names that defeated -k there (issue 27).
SHARED_NAMES = {
    "jit/test_data_parallel.py": cls("TestDataParallel", GEN, "test_replicate"),
    # a method name holding "jit": `test_data_parallel.py and jit` would not tell them apart
    "distributed/test_data_parallel.py": cls("TestDataParallel", CUDA, "test_jit_compat", "test_ddp"),
    "test_view_ops.py": cls("TestViewOps", GEN, "test_view") + cls("TestViewOpsCuda", CUDA, "test_v"),
    "distributed/_tensor/test_view_ops.py": cls("TestViewOps", CUDA, "test_dtensor_view"),
    # its marker-like decorator holds "dynamo"; dynamo/test_misc.py has a test named *package*
    "package/test_misc.py": SKIP + cls("TestMisc", GEN, "test_pickle", deco="@skipIfTorchDynamo"),
    "dynamo/test_misc.py": cls("MiscTests", GEN, "test_top_package_import")
    + cls("TestMiscCuda", CUDA, "test_m"),
    "jit/test_misc.py": cls("TestMisc", CUDA, "test_script"),
    "torch_np/test_basic.py": cls("TestMisc", CUDA, "test_np") + cls("TestBasic", GEN, "test_b"),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Path:
    root = write_suite(tmp_path_factory.mktemp("shared"), SHARED_NAMES)
    (root / "taxonomy.yaml").write_text(DEFAULT_TAXONOMY.read_text())
    for d in {Path(p).parent for p in SHARED_NAMES} - {Path(".")}:
        for pkg in (d, *d.parents[:-1]):
            (root / pkg / "__init__.py").touch()  # packages, as in PyTorch's tree: modules may share names
    return root


@pytest.mark.parametrize("runner", ["cpu", "cuda"])
def test_shared_module_names_get_one_exact_k(shared, runner):
    expected = collect(shared, runner, "--truth-runs", RUNS[runner])
    k = run_tool("hwselect", runner, ".", "--format", "k", cwd=shared)
    assert k.returncode == 0, k.stderr
    (expression,) = k.stdout.splitlines()
    assert collect(shared, runner, "-k", expression) == expected
    ids = run_tool("hwselect", runner, ".", cwd=shared)
    (shared / f"ids-{runner}.txt").write_text(ids.stdout)
    assert collect(shared, runner, f"@ids-{runner}.txt") == expected


def test_the_qualifiers_are_directory_names(shared):
    k = run_tool("hwselect", "cpu", ".", "--format", "k", cwd=shared).stdout
    assert "test_data_parallel.py and not distributed" in k  # jit's tests: "jit" is in a rival's test
    assert "test_view_ops.py and not _tensor" in k  # a root file: only the rival's directories
    assert "test_misc.py and package" in k  # "dynamo" is in its marker: only against TestMisc


def test_no_directory_qualifies_above_the_scanned_paths(shared):
    """Given one directory, pytest's rootdir may be that directory: its name is no keyword."""
    from hwlint.select.kexpr import _sure_dirs, scan_root

    root = scan_root([str(shared / "jit")])
    assert _sure_dirs(str(shared / "jit" / "test_misc.py"), root) == []
    assert _sure_dirs(str(shared / "jit" / "test_misc.py"), scan_root([str(shared)])) == ["jit"]


# -- quiet by default -------------------------------------------------------------------------

NOISY = {
    "test_noisy.py": cls("TestA", GEN, "test_a")
    + cls("TestB", GEN, "test_b")
    + "\nsetattr(TestA, 'test_x', lambda self: None)\nsetattr(TestA, 'test_y', lambda self: None)\n"
    + "setattr(TestB, 'test_z', lambda self: None)\n",
    "test_imports.py": "from elsewhere.module import TestImported  # noqa: F401\n"
    + cls("TestC", GEN, "test_c"),
}


@pytest.fixture(scope="module")
def noisy(tmp_path_factory) -> Path:
    return write_suite(tmp_path_factory.mktemp("noisy"), NOISY)


def test_one_line_per_kind_by_default(noisy):
    proc = run_tool("hwselect", "cpu", ".", "--format", "files", cwd=noisy)
    lines = proc.stderr.splitlines()
    # a kind with one warning prints it whole
    assert lines[0].startswith("hwselect: warning: test_imports.py: line ")
    assert lines[0].endswith(
        ": imports TestImported from elsewhere.module, which is not among the scanned files: if it is a "
        "test class pytest collects it here too, and hwselect lists this file in case"
    )
    assert lines[1].startswith(
        "hwselect: 3 setattr() calls on test classes (tests added this way are not counted), "
        "e.g. test_noisy.py: "
    )
    assert lines[1].endswith("; see --verbose")
    assert lines[2].startswith(
        # TestImported is selected in case: pytest collects it, and the runtime's filter decides
        "hwselect cpu (device cpu, runs [GENERIC, ACCELERATOR, CPU]): total=4, selected=4"
    )
    assert len(lines) == 3


def test_verbose_every_line_quiet_none(noisy):
    verbose = run_tool("hwselect", "cpu", ".", "--verbose", cwd=noisy).stderr.splitlines()
    # the 4 warnings (TestA and TestB have tests of their own: setattr() leaves their node ids sure),
    # and TestImported's file listed whole (pytest collects it there; hwlint does not see it)
    assert sum(line.startswith("hwselect: warning: ") for line in verbose) == 5
    quiet = run_tool("hwselect", "cpu", ".", "-q", cwd=noisy)
    assert quiet.returncode == 0 and quiet.stderr == ""
    both = run_tool("hwselect", "cpu", ".", "-q", "--verbose", cwd=noisy)
    assert both.returncode == 2  # one or the other


def test_json_lists_every_warning_and_its_kind(noisy):
    data = json.loads(run_tool("hwselect", "cpu", ".", "--format", "json", cwd=noisy).stdout)
    assert len(data["warnings"]) == 4
    assert [(k["kind"], k["count"]) for k in data["warning_kinds"]] == [("outside-import", 1), ("setattr", 3)]
    assert data["warning_kinds"][0]["description"] == "class imported from a file outside the scan"


@pytest.mark.parametrize(
    ("n", "one", "many", "text"),
    [
        (1, "class", "classes", "1 class"),
        (2, "class", "classes", "2 classes"),
        (1, "test method", None, "1 test method"),
        (0, "file", None, "0 files"),
    ],
)
def test_plural(n, one, many, text):
    assert plural(n, one, many) == text


def test_no_zero_clauses_and_plurals_in_the_summary(tmp_path):
    write_suite(tmp_path, {"test_one.py": cls("TestOne", GEN, "test_a")})
    err = run_tool("hwselect", "cpu", ".", cwd=tmp_path).stderr
    assert err.splitlines() == [
        "hwselect cpu (device cpu, runs [GENERIC, ACCELERATOR, CPU]): total=1, selected=1, unclassified=0, "
        "mismatched=0 classes; 1 test item in 1 file"
    ]


def test_the_json_kinds_are_the_kinds_the_notices_were_made_with(tmp_path):
    """The generated suite and the noisy files: each warning of the JSON contract is counted under
    the kind its notice was made with where the fact was found (never sorted by its words)."""
    from hwlint.pipeline.config import Config
    from hwlint.pipeline.session import RunOptions, Session
    from hwlint.select.runners import select_all
    from hwlint.taxonomy import load_taxonomy
    from tests.select_suite import MODULES

    root = write_suite(tmp_path, {**MODULES, **NOISY})
    files = sorted(str(p) for p in root.rglob("test_*.py"))
    session = Session.from_config(Config(), RunOptions(1, no_cache=True), load_taxonomy())
    kinds: Counter[Kind] = Counter()
    for runner in ("cpu", "cuda", "privateuse1"):
        cli = json.loads(run_tool("hwselect", runner, ".", "--format", "json", cwd=root).stdout)
        sel = select_all(session, files, runners=[session.taxonomy.runners[runner]])[runner]
        assert all(isinstance(w, Notice) for w in sel.warnings)
        made = Counter(w.kind.key for w in {str(w): w for w in sel.warnings}.values())
        assert {k["kind"]: k["count"] for k in cli["warning_kinds"]} == made
        kinds.update(g.kind for g in group(sel.warnings))
    assert set(kinds) == {Kind.OUTSIDE_IMPORT, Kind.SETATTR, Kind.REPLACED, Kind.PRIVATEUSE1_BACKEND}


# -- paths that look like options (issue 26, item 7) --------------------------------------------


def test_a_path_starting_with_a_dash_is_never_an_option(tmp_path):
    write_suite(
        tmp_path,
        {
            "--deselect=victim_test.py": cls("TestAttacker", GEN, "test_a"),
            "victim_test.py": cls("TestVictim", GEN, "test_v"),
            "-x_test.py": cls("TestDash", GEN, "test_d") + cls("TestDashCuda", CUDA, "test_c"),
        },
    )
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\naddopts = -p no:cacheprovider\npython_files = *_test.py\n"
    )
    expected = collect(tmp_path, "cpu", "--truth-runs", RUNS["cpu"], ".")
    assert any("TestVictim" in i for i in expected) and any("TestAttacker" in i for i in expected)
    for fmt in ("nodeids", "files"):
        out = run_tool("hwselect", "cpu", ".", "--format", fmt, cwd=tmp_path).stdout.splitlines()
        assert out and not any(line.startswith("-") and line != "-k" for line in out), out
        assert "./--deselect=victim_test.py" in {line.split("::")[0] for line in out}
        (tmp_path / f"{fmt}.args").write_text("\n".join(out) + "\n")
        got = collect(tmp_path, "cpu", f"@{fmt}.args")
        assert got >= expected, fmt  # nothing deselected (files lists whole files: more is fine)
    data = json.loads(run_tool("hwselect", "cpu", ".", "--format", "json", cwd=tmp_path).stdout)
    assert not any(f["path"].startswith("-") for f in data["files"])
    k = run_tool("hwselect", "cpu", ".", "--format", "k", cwd=tmp_path).stdout.strip()
    assert not k.startswith("-")
    assert collect(tmp_path, "cpu", ".", "-k", k) == expected


def test_an_expression_that_would_start_with_a_dash_is_parenthesised(tmp_path):
    write_suite(tmp_path, {"-x_test.py": cls("TestDash", GEN, "test_d")})
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\naddopts = -p no:cacheprovider\npython_files = *_test.py\n"
    )
    k = run_tool("hwselect", "cpu", ".", "--format", "k", cwd=tmp_path).stdout.strip()
    assert k == "(-x_test.py)"
    assert collect(tmp_path, "cpu", ".", "-k", k) == {"-x_test.py::TestDash::test_d"}


# -- absurd shard counts (issue 26, item 11) ----------------------------------------------------


def _limited(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """*cmd* with 2 GB of address space and 60 s: an allocation per shard would not fit."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60, preexec_fn=limit)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cpu", "--shard", "1/100000000000000000000"], "--shard expects I/N with 1 <= I <= N"),
        (["cpu", "--shard", "1/99999999999"], "--shard 1/99999999999: at most 10,000 shards"),
        (["cpu", "--shard", "0/3"], "--shard expects I/N with 1 <= I <= N"),
        (
            ["--format", "matrix", "--shards", "99999999999999"],
            "expected a number of shards from 1 to 10,000",
        ),
        (["--format", "matrix", "--shards", "0"], "expected a number of shards from 1 to 10,000"),
    ],
)
def test_huge_shard_counts_are_usage_errors(tmp_path, args, message):
    write_suite(tmp_path, {"test_one.py": cls("TestOne", GEN, "test_a")})
    exe = str(Path(sys.executable).parent / "hwselect")
    proc = _limited([exe, *args], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr


def test_the_largest_shard_count_works(tmp_path):
    write_suite(tmp_path, {"test_one.py": cls("TestOne", GEN, "test_a") + cls("TestTwo", GEN, "test_b")})
    exe = str(Path(sys.executable).parent / "hwselect")
    proc = _limited([exe, "--format", "matrix", "--runners", "cpu", "--shards", "10000"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [e["shard"] for e in json.loads(proc.stdout)["include"]] == [1, 2]  # empty shards left out
    last = _limited([exe, "cpu", "--shard", "10000/10000"], tmp_path)
    assert last.returncode == 3 and "shard 10000/10000 of runner cpu is empty" in last.stderr


# -- explain of a class that does not exist (issue 28) ------------------------------------------


def test_explain_of_a_missing_class_is_an_error(tmp_path):
    write_suite(
        tmp_path,
        {
            "test_ops.py": cls("TestReal", CUDA, "test_r")
            + "\nclass TestAcc(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def test_a(self, device):\n        pass\n\n\n"
            "instantiate_device_type_tests(TestAcc, globals())\n"
        },
    )
    missing = run_tool("hwselect", "explain", "cuda", "test_ops.py::NoSuchClass", cwd=tmp_path)
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == "hwselect: error: test_ops.py defines no class NoSuchClass and generates none.\n"
    real = run_tool("hwselect", "explain", "cpu", "test_ops.py::TestReal", cwd=tmp_path)
    assert real.returncode == 3 and real.stdout.startswith("NOT RUN: test_ops.py::TestReal")
    other = run_tool("hwselect", "explain", "cuda", "test_ops.py::TestAccCPU", cwd=tmp_path)
    assert other.returncode == 3
    assert "generates for another device; on runner cuda it generates TestAccCUDA" in other.stdout
    assert os.path.exists(tmp_path / "test_ops.py")


def test_a_select_format_is_one_writer_and_one_registry_entry(monkeypatch, tmp_path, capsys):
    """issue 24: a format registered once is among hwselect's `--format` choices and prints the
    runner's selection; `--argsfile` applies to it when the entry says so."""
    from hwlint.cli import select as cli

    def count(sel, chosen, root, args):
        return [f"{len(chosen)} classes"], []

    monkeypatch.setitem(cli.FORMATS, "count", cli.SelectFormat(count, argsfile=True))
    (tmp_path / "test_a.py").write_text(
        "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n"
        + cls("TestA", GEN, "test_x")
        + cls("TestB", GEN, "test_y")
    )
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "--format {k,nodeids,files,json,count,matrix}" in capsys.readouterr().out
    assert cli.main(["cpu", str(tmp_path), "--no-cache", "--format", "count"]) == 0
    assert capsys.readouterr().out == "2 classes\n"
    args = tmp_path / "sel.args"
    assert cli.main(["cpu", str(tmp_path), "--no-cache", "--format", "count", "--argsfile", str(args)]) == 0
    assert (capsys.readouterr().out, args.read_text()) == (f"@{args}\n", "2 classes\n")


def test_k_leaves_out_an_imported_test_function(tmp_path):
    """PyTorch's quantization tests import `test_only_eval_fn` from a helper module: pytest
    collects the imported function as a test of the importing module, the runtime's filter drops
    it (no class), so `-k` must not select it (the cpu runner's whole-tree -k had 10 such items)."""
    root = write_suite(
        tmp_path,
        {
            "quantization/test_q.py": "from helpers_q import test_only_eval_fn\n"
            + cls("TestQ", GEN, "test_a"),
            "test_plain.py": cls("TestPlain", GEN, "test_b"),
        },
    )
    (root / "helpers_q.py").write_text("def test_only_eval_fn(model=None):\n    return model\n")
    (root / "taxonomy.yaml").write_text(DEFAULT_TAXONOMY.read_text())
    expected = collect(root, "cpu", "--truth-runs", RUNS["cpu"])
    assert expected == {"quantization/test_q.py::TestQ::test_a", "test_plain.py::TestPlain::test_b"}
    assert "quantization/test_q.py::test_only_eval_fn" in collect(root, "cpu")  # pytest's own
    k = run_tool("hwselect", "cpu", ".", "--format", "k", cwd=root)
    assert k.returncode == 0, k.stderr
    assert collect(root, "cpu", "-k", k.stdout.strip()) == expected
