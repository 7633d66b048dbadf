"""Issue 47, names and sizes an attacker's pull request controls: file names that pytest would read
as an argument file, taxonomy names that forge log lines or shell words, test files a default
exclusion hides, a quadratic ``.test_durations`` and file names that are not UTF-8. Each test plants
the reproduction and checks the promised outcome (docs/guarantees.md names each test)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlint.select.durations import Durations, load_durations, module_components
from hwlint.select.records import SELECTED, Candidate
from hwlint.words import visible
from tests.conftest import DEFAULT_TAXONOMY, EXAMPLES, ROOT, property_examples, run_tool
from tests.select_suite import write_suite
from tests.test_select_collect import RUNS, collect

GEN = "hw_classification = HardwareClassification.GENERIC"
CUDA = "hw_classification = HardwareClassification.CUDA"


def cls(name: str, member: str, *tests: str) -> str:
    body = "".join(f"    def {t}(self):\n        pass\n\n" for t in tests)
    return f"\nclass {name}(TestCase):\n    {member}\n\n{body}"


# -- 2. a node id that starts with `@` is a pytest argument file -----------------------------------


def test_a_path_starting_with_an_at_sign_is_never_an_argument_file(tmp_path):
    write_suite(
        tmp_path,
        {
            "@x/test_a.py": cls("TestA", GEN, "test_a") + cls("TestACuda", CUDA, "test_c"),
            "@b_test.py": cls("TestB", GEN, "test_b"),
            "test_victim.py": cls("TestVictim", GEN, "test_v"),
        },
    )
    # What `pytest @ids` would read from the committed files if `@x/test_a.py::TestA` were an
    # argument: an option that drops the victim's test (and the run still exits 0).
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "test_a.py::TestA").write_text("--deselect=test_victim.py::TestVictim::test_v\n")
    (tmp_path / "b_test.py::TestB").write_text("--deselect=test_victim.py::TestVictim::test_v\n")
    expected = collect(tmp_path, "cpu", "--truth-runs", RUNS["cpu"], ".")
    assert {"@x/test_a.py::TestA::test_a", "test_victim.py::TestVictim::test_v"} <= expected
    for fmt in ("nodeids", "files"):
        res = run_tool("hwselect", "cpu", ".", "--format", fmt, cwd=tmp_path)
        out = res.stdout.splitlines()
        assert res.returncode == 0 and out, res.stderr
        assert not any(line.startswith(("@", "-")) and line != "-k" for line in out), out
        assert "./@x/test_a.py" in {line.split("::")[0] for line in out}
        (tmp_path / f"{fmt}.args").write_text(res.stdout)
        assert collect(tmp_path, "cpu", f"@{fmt}.args") >= expected, fmt
    for fmt in ("nodeids", "k"):  # --argsfile writes node ids for both
        res = run_tool(
            "hwselect", "cpu", ".", "--format", fmt, "--argsfile", f"{fmt}-file.args", cwd=tmp_path
        )
        assert res.stdout.strip() == f"@{fmt}-file.args", res.stderr
        lines = (tmp_path / f"{fmt}-file.args").read_text().splitlines()
        assert "./@x/test_a.py::TestA" in lines and "./@b_test.py::TestB" in lines
        assert collect(tmp_path, "cpu", f"@{fmt}-file.args") == expected
    data = json.loads(run_tool("hwselect", "cpu", ".", "--format", "json", cwd=tmp_path).stdout)
    assert {f["path"] for f in data["files"]} >= {"./@x/test_a.py", "./@b_test.py"}
    k = run_tool("hwselect", "cpu", ".", "--format", "k", cwd=tmp_path).stdout.strip()
    assert not k.startswith(("@", "-"))
    assert collect(tmp_path, "cpu", ".", "-k", k) == expected


# -- 4. runner, device, classification and backend names are names ---------------------------------

BAD_NAMES = ["cpu;$(id)", "cpu\n::error title=x::forged", "cpu\x1b[2K", "--argsfile=/tmp/x", "cp\u202eu", ""]


def _plant_name(where: str, name: str) -> str:
    """A taxonomy whose *where* holds *name*: the bundled one with the section replaced or extended."""
    import yaml

    base = yaml.safe_load(DEFAULT_TAXONOMY.read_text())
    if where == "runner":
        base["runners"][name] = {"device": "cpu", "runs": ["GENERIC"]}
    elif where == "device":
        base["devices"] = {"cpu": {}, "cuda": {}, name: {}}
    elif where == "classification":
        base["classifications"][name] = {}
    else:
        base["runners"]["openreg"] = {"device": "privateuse1", "backend": name, "runs": ["ACCELERATOR"]}
    return yaml.safe_dump(base, allow_unicode=True)


@pytest.mark.parametrize("name", BAD_NAMES, ids=["shell", "newline", "esc", "dash", "bidi", "empty"])
@pytest.mark.parametrize("where", ["runner", "device", "classification", "backend"])
def test_a_name_from_the_taxonomy_that_is_not_an_identifier_is_a_taxonomy_error(tmp_path, where, name):
    (tmp_path / "taxonomy.yaml").write_text(_plant_name(where, name), encoding="utf-8")
    (tmp_path / "test_a.py").write_text("from unittest import TestCase\n" + cls("TestA", GEN, "test_a"))
    section = {"runner": "runners", "device": "devices", "classification": "classifications"}.get(where)
    key = f"{section}.{name}" if section else "runners.openreg.backend"
    for cmd in (
        ("hwlint", "taxonomy", "check", "taxonomy.yaml"),
        ("hwselect", "--taxonomy", "taxonomy.yaml", "--format", "matrix", "."),
        ("hwselect", "--taxonomy", "taxonomy.yaml", "cpu", "."),
        ("hwlint", "check", "--no-cache", "--taxonomy", "taxonomy.yaml", "."),
    ):
        res = run_tool(*cmd, cwd=tmp_path)
        assert res.returncode == 2, (cmd, res.stdout, res.stderr)
        assert res.stdout == "", cmd  # no matrix, no node id
        assert "taxonomy.yaml:" in res.stderr and f": {visible(key)}: " in res.stderr, res.stderr
        lines = res.stderr.splitlines()
        assert len(lines) == 1 and lines[0].isprintable(), res.stderr


def test_names_of_the_bundled_and_example_taxonomies_are_still_valid():
    from hwlint.taxonomy import load_taxonomy

    for path in [DEFAULT_TAXONOMY, *sorted(EXAMPLES.glob("taxonomy*.yaml"))]:
        assert load_taxonomy(str(path), remember=False).runners, path


# -- 13. a committed .test_durations is read in linear time ----------------------------------------


def _brute_force(records: list[tuple[tuple[str, ...], str, float]], path: str, names: tuple[str, ...]):
    """What a class's recorded time is, by definition: per class name, the summed seconds of each
    module, and the first module (in the file's order) with the longest common tail; the first
    name on a tie."""
    mine = module_components(path)
    best = None
    for name in names:
        sums: dict[tuple[str, ...], float] = {}
        for comps, cls_name, seconds in records:
            if cls_name == name:
                sums[comps] = sums.get(comps, 0.0) + max(0.0, seconds)
        for comps, seconds in sums.items():
            common = 0
            while common < min(len(mine), len(comps)) and mine[-1 - common] == comps[-1 - common]:
                common += 1
            if common and (best is None or common > best[0]):
                best = (common, seconds)
    return None if best is None else best[1]


_PARTS = st.sampled_from(["test", "a", "b", "inductor", "test_foo", "test_bar"])


@settings(max_examples=property_examples(100), deadline=None)  # a loaded machine is no counterexample
@given(
    records=st.lists(
        st.tuples(
            st.lists(_PARTS, min_size=1, max_size=4).map(tuple),
            st.sampled_from(["TestA", "TestB"]),
            st.floats(-1, 10),
        ),
        max_size=30,
    ),
    path=st.lists(_PARTS, min_size=1, max_size=4).map(lambda p: "/".join(p) + ".py"),
    names=st.sampled_from([("TestA",), ("TestB",), ("TestA", "TestB"), ("TestB", "TestA"), ("TestC",)]),
)
def test_each_class_gets_the_record_with_the_longest_common_tail(records, path, names):
    durations = Durations()
    for comps, name, seconds in records:
        durations.add(comps, name, seconds)
    got = durations.recorded(Candidate(path, names, SELECTED, None, None, None))
    assert got == _brute_force(records, path, names)


def test_one_class_in_many_modules_is_matched_in_one_walk_per_class(tmp_path):
    """The attack's shape: every record names the same class, each in a module of its own, and the
    tree holds that class in every module. Growth is measured by benchmarks/durations_growth.py
    (ratios, not a timed test); here every class gets exactly its own module's record."""
    n = 3_000
    (tmp_path / ".test_durations").write_text(
        json.dumps({f"d{i}/test_m.py::TestA::test_{j}": float(i % 5) for i in range(n) for j in (1, 2)})
    )
    durations = load_durations([str(tmp_path / ".test_durations")])
    assert len(durations.by_class["TestA"]) == n
    got = [
        durations.recorded(Candidate(f"t/d{i}/test_m.py", ("TestA",), SELECTED, None, None, None))
        for i in range(n)
    ]
    assert got == [2.0 * (i % 5) for i in range(n)]


def test_the_durations_benchmark_prints_its_ratios():
    res = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "durations_growth.py"),
            "--sizes",
            "200",
            "400",
            "--rounds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert "400 / 200 records (2x): load x" in res.stdout
