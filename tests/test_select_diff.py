"""``hwselect diff``: planted upstream changes, each reported with its cause on each runner; renames
followed by expectations; a revision read without being checked out or running anything."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hwlint.cli.select import main

from .conftest import DEFAULT_TAXONOMY

HEADER = """\
from torch.testing._internal.common_utils import TestCase, HardwareClassification as HC
from torch.testing._internal.common_utils import parametrize, instantiate_parametrized_tests
from torch.testing._internal.common_device_type import instantiate_device_type_tests
"""

BASE = {
    "test/test_common.py": HEADER + "class HelperBase(TestCase):\n    hw_classification = HC.GENERIC\n",
    "test/test_inherit.py": HEADER
    + "from test_common import HelperBase\n\nclass TestInherit(HelperBase):\n    def test_h(self): pass\n",
    "test/test_acc.py": HEADER
    + """
class TestAcc(TestCase):
    hw_classification = HC.GENERIC
    def test_x(self): pass
""",
    "test/test_only.py": HEADER
    + """
class TestOnly(TestCase):
    hw_classification = HC.ACCELERATOR
    def test_o(self, device): pass
instantiate_device_type_tests(TestOnly, globals(), only_for=("cpu",))
""",
    "test/test_rename.py": HEADER
    + """
class TestOld(TestCase):
    hw_classification = HC.GENERIC
    def test_a(self): pass
    def test_b(self): pass
    def test_c(self): pass
""",
    "test/test_file.py": HEADER
    + """
class TestMoving(TestCase):
    hw_classification = HC.GENERIC
    def test_m1(self): pass
    def test_m2(self): pass
""",
    "test/test_param.py": HEADER
    + """
class TestParam(TestCase):
    hw_classification = HC.GENERIC
    @parametrize("x", [1, 2])
    def test_p(self, x): pass
instantiate_parametrized_tests(TestParam)
""",
}


def _planted(files: dict[str, str]) -> dict[str, str]:
    """The upstream-like change: each planted edit on its own file."""
    out = dict(files)
    out["test/test_common.py"] = files["test/test_common.py"].replace("GENERIC", "ACCELERATOR")
    out["test/test_acc.py"] = (
        files["test/test_acc.py"].replace("GENERIC", "ACCELERATOR").replace("(self)", "(self, device)")
        + "instantiate_device_type_tests(TestAcc, globals())\n"
    )
    out["test/test_only.py"] = files["test/test_only.py"].replace('("cpu",)', '("cpu", "cuda")')
    out["test/test_rename.py"] = files["test/test_rename.py"].replace("TestOld", "TestNew")
    out["test/test_moved.py"] = out.pop("test/test_file.py")
    out["test/test_param.py"] = files["test/test_param.py"].replace("[1, 2]", "[1, 2, 3]")
    return out


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def write(root: Path, files: dict[str, str]) -> None:
    for path in [p for p in root.rglob("*.py")]:
        path.unlink()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, BASE)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    write(root, _planted(BASE))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "head")
    return root


def run(root: Path, monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(root)
    rc = main(["diff", "--taxonomy", str(DEFAULT_TAXONOMY), "--no-cache", "-j", "1", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def entries(doc: dict, runner: str, what: str) -> set[tuple[str, str]]:
    rd = next(r for r in doc["runners"] if r["runner"] == runner)
    return {(e["nodeid"], e["cause"]) for e in rd[what]}


def test_planted_changes_each_with_its_cause_on_each_runner(repo, monkeypatch, capsys):
    rc, out, _ = run(repo, monkeypatch, capsys, "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert rc == 0
    doc = json.loads(out)
    assert doc["format"] == "hwselect-diff/1"
    # cpu: the parametrize value enters, the renames are renames, nothing else moves (TestAcc's
    # test_x was GENERIC and is ACCELERATOR now: the same test on cpu, by the neutral key)
    assert entries(doc, "cpu", "added") == {("test/test_param.py::TestParam::test_p_x_3", "parameters")}
    assert entries(doc, "cpu", "removed") == set()
    assert {(e["old_nodeid"], e["nodeid"], e["cause"]) for e in doc["runners"][0]["renamed"]} == {
        ("test/test_rename.py::TestOld::test_a", "test/test_rename.py::TestNew::test_a", "class-renamed"),
        ("test/test_rename.py::TestOld::test_b", "test/test_rename.py::TestNew::test_b", "class-renamed"),
        ("test/test_rename.py::TestOld::test_c", "test/test_rename.py::TestNew::test_c", "class-renamed"),
        ("test/test_file.py::TestMoving::test_m1", "test/test_moved.py::TestMoving::test_m1", "file-renamed"),
        ("test/test_file.py::TestMoving::test_m2", "test/test_moved.py::TestMoving::test_m2", "file-renamed"),
    }
    # an accelerator runner: the class turned ACCELERATOR, only_for widened, the helper's base
    for runner in ("cuda", "rocm"):
        assert entries(doc, runner, "added") == {
            ("test/test_acc.py::TestAccCUDA::test_x_cuda", "reclassified"),
            ("test/test_only.py::TestOnlyCUDA::test_o_cuda", "instantiation"),
            ("test/test_inherit.py::TestInherit::test_h", "base-changed"),
        }, runner
        assert entries(doc, runner, "removed") == set()
    assert entries(doc, "privateuse1", "added") == {
        ("test/test_acc.py::TestAccPRIVATEUSE1::test_x_privateuse1", "reclassified"),
        ("test/test_inherit.py::TestInherit::test_h", "base-changed"),
    }
    # mps and xpu are opt-in devices: instantiation generates nothing for them
    assert entries(doc, "mps", "added") == {("test/test_inherit.py::TestInherit::test_h", "base-changed")}
    cuda = next(r for r in doc["runners"] if r["runner"] == "cuda")
    assert cuda["counts"] == {
        "before": 0,
        "after": 3,
        "added": 3,
        "removed": 0,
        "renamed": 0,
        "by_cause": {
            "reclassified": {"added": 1},
            "instantiation": {"added": 1},
            "base-changed": {"added": 1},
        },
    }
    assert {(r["old"], r["new"], r["cause"]) for r in doc["renames"]} == {
        ("test/test_rename.py::TestOld", "test/test_rename.py::TestNew", "class-renamed"),
        ("test/test_file.py::TestMoving", "test/test_moved.py::TestMoving", "file-renamed"),
    }


def test_reverse_diff_removes_with_the_same_causes(repo, monkeypatch, capsys):
    _, out, _ = run(
        repo, monkeypatch, capsys, "--base", "HEAD", "--head", "HEAD~1", "cuda", "--format", "json"
    )
    doc = json.loads(out)
    assert [r["runner"] for r in doc["runners"]] == ["cuda"]
    assert entries(doc, "cuda", "removed") == {
        ("test/test_acc.py::TestAccCUDA::test_x_cuda", "reclassified"),
        ("test/test_only.py::TestOnlyCUDA::test_o_cuda", "instantiation"),
        ("test/test_inherit.py::TestInherit::test_h", "base-changed"),
    }


def test_directory_trees_give_the_revisions_diff(repo, tmp_path, monkeypatch, capsys):
    base, head = tmp_path / "base", tmp_path / "head"
    for d, rev in ((base, "HEAD~1"), (head, "HEAD")):
        d.mkdir()
        git(repo, "worktree", "add", "-q", str(d / "w"), rev)
    _, by_git, _ = run(repo, monkeypatch, capsys, "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    _, by_dirs, _ = run(
        tmp_path, monkeypatch, capsys, "--base-tree", "base/w", "--head-tree", "head/w", "--format", "json"
    )
    assert json.loads(by_dirs)["runners"] == json.loads(by_git)["runners"]


def test_markdown_comment_is_short_and_text_groups_by_cause(repo, monkeypatch, capsys):
    _, md, _ = run(repo, monkeypatch, capsys, "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown")
    lines = md.splitlines()
    assert len(lines) < 30
    assert "| cuda | 0 | 3 | 3 | 0 | 0 |" in lines
    assert "- base-changed +1: `TestInherit` +1" in lines
    _, text, _ = run(repo, monkeypatch, capsys, "--base", "HEAD~1", "--head", "HEAD", "cpu")
    assert "  parameters: +1 (a test's @parametrize values changed)" in text.splitlines()


def test_markdown_summarises_a_big_change():
    from hwlint.select.diff import Change, Diff, RunnerDiff
    from hwlint.select.diffrender import MARKDOWN_LINES, markdown

    runners = []
    for r in range(8):
        rd = RunnerDiff(f"r{r}", "cpu", before=10, after=500)
        rd.added = [
            Change(f"t/test_{i}.py::T{i}::test", f"t/test_{i}.py::T{i}::test", cause)
            for i in range(200)
            for cause in ("class-added", "reclassified", "instantiation", "test-added")
        ]
        runners.append(rd)
    text = markdown(Diff("a", "b", runners, [], {}))
    assert len(text.splitlines()) <= MARKDOWN_LINES
    assert text.splitlines()[-1].startswith(
        "_Changes by cause over all runners: reclassified 1,600, instantiation 1,600, class-added 1,600"
    )


def test_expectations_follow_a_rename_and_fix_rewrites_them(repo, monkeypatch, capsys):
    exp = repo / "expect.yaml"
    exp.write_text(
        "# the NPU's\nexpectations:\n"
        "  - key: test/test_rename.py::TestOld::test_a\n    status: xfail\n    reason: slow\n"
        "    runners: [cpu]\n"
        "  - key: test/test_gone.py::TestGone::*\n    status: skip\n    reason: gone\n"
        "  - key: test/test_param.py::TestParam::test_p_x_1\n    status: skip\n    reason: x\n"
    )
    args = ("--base", "HEAD~1", "--head", "HEAD", "cpu", "--expectations", "expect.yaml", "--format", "json")
    rc, out, err = run(repo, monkeypatch, capsys, *args, "--check-expectations")
    assert rc == 1
    report = json.loads(out)["expectations"]
    assert report == [
        {
            "runner": "cpu",
            "stale": ["test/test_gone.py::TestGone::*"],
            "moved": [
                {
                    "key": "test/test_rename.py::TestOld::test_a",
                    "new_key": "test/test_rename.py::TestNew::test_a",
                }
            ],
            "uncovered": ["test/test_param.py::TestParam::test_p_x_3"],
        }
    ]
    assert "expect.yaml: entry 2: test/test_gone.py::TestGone::*: stale on cpu" in err
    rc, _, err = run(repo, monkeypatch, capsys, *args, "--fix")
    assert rc == 0 and "1 moved keys rewritten" in err
    text = exp.read_text()
    assert text.startswith("# the NPU's\n")  # the rest of the file as it was
    assert "key: test/test_rename.py::TestNew::test_a\n" in text and "TestOld" not in text


def test_revision_is_read_without_checkout_or_running_the_checkouts_config(
    repo, tmp_path, monkeypatch, capsys
):
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    git(repo, "config", "core.pager", str(hook))
    hooks = repo / ".git" / "hooks"
    for name in ("post-checkout", "pre-commit", "reference-transaction"):
        (hooks / name).write_text(hook.read_text())
        (hooks / name).chmod(0o755)
    (repo / "test" / "test_param.py").write_text("# being edited\n")
    status = git(repo, "-c", "core.fsmonitor=false", "status", "--porcelain")
    rc, _, _ = run(repo, monkeypatch, capsys, "--base", "HEAD~1", "--head", "HEAD", "cpu")
    assert rc == 0
    assert not marker.exists()
    assert (repo / "test" / "test_param.py").read_text() == "# being edited\n"
    assert git(repo, "-c", "core.fsmonitor=false", "status", "--porcelain") == status


def test_a_file_that_stops_parsing_says_so(repo, monkeypatch, capsys):
    (repo / "test" / "test_param.py").write_text(_planted(BASE)["test/test_param.py"] + "def broken(:\n")
    _, out, _ = run(repo, monkeypatch, capsys, "--base", "HEAD", "cpu", "--format", "json")
    doc = json.loads(out)
    assert entries(doc, "cpu", "removed") == {
        ("test/test_param.py::TestParam::test_p_x_1", "file-unparsable"),
        ("test/test_param.py::TestParam::test_p_x_2", "file-unparsable"),
        ("test/test_param.py::TestParam::test_p_x_3", "file-unparsable"),
    }


def test_unknown_revision_is_a_usage_error(repo, monkeypatch, capsys):
    rc, out, err = run(repo, monkeypatch, capsys, "--base", "no-such-rev")
    assert (rc, out) == (2, "")
    assert err.startswith("hwselect: error: ") and "no-such-rev" in err


def test_every_git_call_pins_the_checkouts_configuration_off(repo):
    from hwlint.select.revisions import git as pinned

    git(repo, "config", "core.hooksPath", "/tmp/evil")
    git(repo, "config", "core.fsmonitor", "/tmp/evil")
    assert pinned(["config", "--get", "core.hooksPath"], str(repo)) == b"/dev/null\n"
    assert pinned(["config", "--get", "core.fsmonitor"], str(repo)) == b"false\n"


def test_json_contract_is_the_documented_one(repo, monkeypatch, capsys):
    """docs/hwselect-diff.md is the contract: the keys at each level, and every cause in its table."""
    from hwlint.select.diff import CAUSES

    from .conftest import ROOT

    _, out, _ = run(repo, monkeypatch, capsys, "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    doc = json.loads(out)
    assert list(doc) == ["format", "base", "head", "renames", "runners"]
    assert all(list(r) == ["old", "new", "cause", "similarity"] for r in doc["renames"])
    for rd in doc["runners"]:
        assert list(rd) == ["runner", "device", "counts", "added", "removed", "renamed"]
        assert list(rd["counts"]) == ["before", "after", "added", "removed", "renamed", "by_cause"]
        for entry in rd["added"] + rd["removed"]:
            assert list(entry) == ["nodeid", "key", "cause", "detail"]
        for entry in rd["renamed"]:
            assert list(entry) == ["old_nodeid", "old_key", "nodeid", "key", "cause", "detail"]
    page = (ROOT / "docs" / "hwselect-diff.md").read_text()
    assert all(f"`{cause}`" in page for cause in CAUSES)
    assert '`"hwselect-diff/1"`' in page


def test_report_compare_against_a_revision_is_hwselect_diffs_count(repo, monkeypatch, capsys):
    """``hwlint report --compare REV`` and ``hwselect diff --base REV`` make one diff."""
    from hwlint.cli.check import main as hwlint

    git(repo, "checkout", "-q", "HEAD~1")
    write(repo, _planted(BASE))  # the change, uncommitted: --compare HEAD reads the revision
    _, out, _ = run(repo, monkeypatch, capsys, "--base", "HEAD", "test", "--format", "json")
    runners = {r["runner"]: r["counts"] for r in json.loads(out)["runners"]}
    assert hwlint(["report", "test", "--compare", "HEAD", "--format", "json", "--no-cache"]) == 0
    cmp = json.loads(capsys.readouterr().out)["compare"]
    assert {r.pop("runner"): r for r in cmp["tests"]} == runners
    assert cmp["renamed_classes"] == [
        {
            "old": "test/test_file.py::TestMoving",
            "new": "test/test_moved.py::TestMoving",
            "cause": "file-renamed",
        },
        {
            "old": "test/test_rename.py::TestOld",
            "new": "test/test_rename.py::TestNew",
            "cause": "class-renamed",
        },
    ]
    assert (cmp["new_classes"], cmp["removed_classes"]) == ([], [])
    assert hwlint(["report", "test", "--compare", "HEAD"]) == 0
    text = capsys.readouterr().out
    assert "tests on cuda: 0 → 3 (+3 -0 ~0 renamed; hwselect diff)" in text


@pytest.mark.parametrize(
    ("decorator", "ids"),
    [
        # as torch 2.13 names them (measured: instantiate_parametrized_tests / device instantiation)
        (
            '@parametrize("x", [1, 2.5, "ab", True, None, torch.float32])',
            ("x_1", "x_2_5", "x_ab", "x_True", "x4", "float32"),
        ),
        ('@parametrize("x", [subtest(1, name="one")])', ("one",)),
        ('@parametrize("a,b", [(1, 2), (3, 4)])', ("a_1_b_2", "a_3_b_4")),
        ('@parametrize("x", VALUES)', None),
        ('@parametrize("x", [1], name_fn=lambda x: "y")', None),
        ("@ops(op_db)", None),
        ("@optims(optim_db)", None),
        ("@_gradcheck_ops(op_db)", None),
    ],
)
def test_parametrize_ids_are_torchs(decorator, ids):
    from hwlint.model import build_model
    from hwlint.select.expansion import parameter_ids
    from hwlint.taxonomy import load_taxonomy

    src = f"class TestP:\n    {decorator}\n    def test_p(self, x):\n        pass\n"
    model = build_model(src.encode(), "test_p.py", load_taxonomy(DEFAULT_TAXONOMY), devices=False)
    assert parameter_ids(model.classes[0].methods[0]) == ids


def test_added_and_removed_classes_files_and_tests(tmp_path, monkeypatch, capsys):
    """Two directory trees: a file added, a class added to a file, a test and a class removed."""
    base, head = tmp_path / "base", tmp_path / "head"
    write(base, {k: BASE[k] for k in ("test/test_rename.py", "test/test_file.py")})
    write(
        head,
        {
            "test/test_rename.py": BASE["test/test_rename.py"].replace("    def test_c(self): pass\n", "")
            + "\nclass TestMore(TestCase):\n    hw_classification = HC.GENERIC\n    def test_z(self): pass\n",
            "test/test_new.py": BASE["test/test_file.py"]
            .replace("TestMoving", "TestFresh")
            .replace("_m", "_n"),
        },
    )
    _, out, _ = run(
        tmp_path, monkeypatch, capsys, "--base-tree", "base", "--head-tree", "head", "cpu", "--format", "json"
    )
    doc = json.loads(out)
    assert entries(doc, "cpu", "added") == {
        ("test/test_rename.py::TestMore::test_z", "class-added"),
        ("test/test_new.py::TestFresh::test_n1", "file-added"),
        ("test/test_new.py::TestFresh::test_n2", "file-added"),
    }
    assert entries(doc, "cpu", "removed") == {
        ("test/test_rename.py::TestOld::test_c", "test-removed"),
        ("test/test_file.py::TestMoving::test_m1", "file-removed"),
        ("test/test_file.py::TestMoving::test_m2", "file-removed"),
    }
    assert doc["renames"] == []  # TestFresh shares no test with TestMoving: not a rename


def test_rename_needs_half_of_the_tests_and_the_best_match_wins():
    from hwlint.select.identity import match_renames

    before = {("a.py", "TestA"): {"t1", "t2", "t3", "t4"}, ("a.py", "TestB"): {"u1", "u2"}}
    after = {
        ("a.py", "TestA2"): {"t1", "t2", "x1", "x2"},  # 2 of 4: 50%, a rename
        ("b.py", "TestA3"): {"t1", "t2", "t3", "x"},  # 3 of 4: the better match
        ("a.py", "TestB2"): {"u1", "v1", "v2"},  # 1 of 3: not a rename
    }
    assert match_renames(before, after) == {("a.py", "TestA"): (("b.py", "TestA3"), 0.75)}


RENAMING = (
    HEADER
    + """
class TestKeep(TestCase):
    hw_classification = HC.ACCELERATOR

    def test_stays(self, device):
        self.assertEqual(1, 1)

    @parametrize("n", [1, 2])
    def test_old_name(self, device, n):
        x = torch.ones(n, device=device)
        self.assertEqual(x.sum().item(), n)

    def test_dropped(self, device):
        self.assertTrue(torch.zeros(3, device=device).eq(0).all())

instantiate_parametrized_tests(TestKeep)
instantiate_device_type_tests(TestKeep, globals())
"""
)


def test_a_test_renamed_in_its_class_is_a_rename_and_its_expectations_follow(repo, monkeypatch, capsys):
    """test_old_name becomes test_new_name (its body kept, one line edited: still a rename, its
    @parametrize variants with it); test_dropped goes and an unlike test_added comes: a removal and
    an addition, not a rename."""
    write(repo, {**BASE, "test/test_keep.py": RENAMING})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "keep")
    head = (
        RENAMING.replace("test_old_name", "test_new_name")
        .replace("x.sum().item(), n", "x.sum().item(), float(n)")
        .replace("def test_dropped(", "def test_added(")
        .replace(
            "self.assertTrue(torch.zeros(3, device=device).eq(0).all())",
            "with self.assertRaises(RuntimeError):\n            raise RuntimeError",
        )
    )
    write(repo, {**BASE, "test/test_keep.py": head})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rename a test")
    (repo / "expect.yaml").write_text(
        "expectations:\n"
        "  - key: test/test_keep.py::TestKeep::test_old_name_n_2\n    status: xfail\n    reason: r\n"
    )
    args = ("--base", "HEAD~1", "--head", "HEAD", "cpu", "--format", "json", "--expectations", "expect.yaml")
    rc, out, _ = run(repo, monkeypatch, capsys, *args)
    assert rc == 0
    doc = json.loads(out)
    rd = next(r for r in doc["runners"] if r["runner"] == "cpu")
    assert {(e["old_nodeid"], e["nodeid"], e["cause"]) for e in rd["renamed"]} == {
        (
            f"test/test_keep.py::TestKeepCPU::test_old_name_n_{n}_cpu",
            f"test/test_keep.py::TestKeepCPU::test_new_name_n_{n}_cpu",
            "test-renamed",
        )
        for n in (1, 2)
    }
    keep = "test/test_keep.py::TestKeepCPU"
    assert entries(doc, "cpu", "added") == {(f"{keep}::test_added_cpu", "test-added")}
    assert entries(doc, "cpu", "removed") == {(f"{keep}::test_dropped_cpu", "test-removed")}
    assert doc["expectations"] == [
        {
            "runner": "cpu",
            "stale": [],
            "moved": [
                {
                    "key": "test/test_keep.py::TestKeep::test_old_name_n_2",
                    "new_key": "test/test_keep.py::TestKeep::test_new_name_n_2",
                }
            ],
            "uncovered": ["test/test_keep.py::TestKeep::test_added"],
        }
    ]


def test_a_test_renamed_in_a_renamed_class_follows_both_renames(tmp_path, monkeypatch, capsys):
    """Two directory trees: TestOld becomes TestNew, and its test_c becomes test_c2 on the way."""
    base, head = tmp_path / "base", tmp_path / "head"
    body = "def test_c(self):\n        x = 1\n        assert x"
    old = BASE["test/test_rename.py"].replace("def test_c(self): pass", body)
    write(base, {"test/test_rename.py": old})
    write(head, {"test/test_rename.py": old.replace("TestOld", "TestNew").replace("test_c(", "test_c2(")})
    _, out, _ = run(
        tmp_path, monkeypatch, capsys, "--base-tree", "base", "--head-tree", "head", "cpu", "--format", "json"
    )
    rd = json.loads(out)["runners"][0]
    assert {(e["old_nodeid"], e["nodeid"], e["cause"]) for e in rd["renamed"]} == {
        ("test/test_rename.py::TestOld::test_a", "test/test_rename.py::TestNew::test_a", "class-renamed"),
        ("test/test_rename.py::TestOld::test_b", "test/test_rename.py::TestNew::test_b", "class-renamed"),
        ("test/test_rename.py::TestOld::test_c", "test/test_rename.py::TestNew::test_c2", "test-renamed"),
    }
    assert rd["added"] == rd["removed"] == []
