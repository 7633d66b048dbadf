"""Issue 47, names and sizes an attacker's pull request controls: file names that pytest would read
as an argument file, taxonomy names that forge log lines or shell words, test files a default
exclusion hides, a quadratic ``.test_durations`` and file names that are not UTF-8. Each test plants
the reproduction and checks the promised outcome (docs/guarantees.md names each test)."""

from __future__ import annotations

import json

import pytest

from hwlint.words import visible
from tests.conftest import DEFAULT_TAXONOMY, EXAMPLES, run_tool
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
