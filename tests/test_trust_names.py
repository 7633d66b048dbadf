"""Issue 47, names and sizes an attacker's pull request controls: file names that pytest would read
as an argument file, taxonomy names that forge log lines or shell words, test files a default
exclusion hides, a quadratic ``.test_durations`` and file names that are not UTF-8. Each test plants
the reproduction and checks the promised outcome (docs/guarantees.md names each test)."""

from __future__ import annotations

import json

from tests.conftest import run_tool
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
