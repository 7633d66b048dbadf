"""Hostile and broken input: every bad file is reported, none passes silently, nothing crashes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hwlint.pipeline.check import check_paths
from hwlint.rules.check import check_path
from hwlint.rules.registry import RULES

from .conftest import run_tool

UNDECLARED = "class TestA(TestCase):\n    def test_x(self):\n        pass\n"


def codes(findings):
    return [(f.line, f.code) for f in findings]


@pytest.mark.parametrize(
    ("data", "expected", "message"),
    [
        (b"class TestA(TestCase)\n    pass\n", [(1, "HWC901")], "SyntaxError: expected ':'"),
        (
            b"x = '\xff\xfe'\n" + UNDECLARED.encode(),
            [(1, "HWC901")],
            "cannot decode file: not valid utf-8 (byte 0xff at offset 5)",
        ),
        (b"x = 1\x00\n", [(1, "HWC901")], "source code string cannot contain null bytes"),
        (b"", [], None),
        (b"# -*- coding: klingon -*-\nx = 1\n", [(1, "HWC901")], "cannot decode file"),
        (b"(" * 300 + b")" * 300 + b"\n", [(1, "HWC901")], "too many nested parentheses"),
        (b"x = " + b"+".join([b"'a'"] * 60000) + b"\n", [(1, "HWC901")], "nested too deeply"),
        (b"x = " + b"-" * 100000 + b"1\n", [(1, "HWC901")], "nested too deeply"),
    ],
    ids=["syntax", "non-utf8", "nul", "empty", "bad-cookie", "parens", "deep-binop", "deep-unary"],
)
def test_bad_files_are_reported(data, expected, message, taxonomy):
    found = check_path("test_x.py", data, taxonomy)[0]
    assert codes(found) == expected
    if message:
        assert message in found[0].message


@pytest.mark.parametrize(
    "data",
    [
        "\ufeff" + UNDECLARED,  # UTF-8 BOM
        UNDECLARED.replace("\n", "\r\n"),  # CRLF
        UNDECLARED.replace("\n", "\r"),  # old Mac CR
        UNDECLARED.replace("    ", "\t"),  # tabs
    ],
    ids=["bom", "crlf", "cr", "tabs"],
)
def test_unusual_but_valid_files_are_checked(data, taxonomy):
    assert codes(check_path("test_x.py", data.encode("utf-8"), taxonomy)[0]) == [(1, "HWC001")]


def test_pep263_latin1_file_keeps_character_columns(taxonomy):
    src = (
        "# -*- coding: latin-1 -*-\nclass TestÄ(TestCase):\n    def test_ü(self, device='é'):\n        pass\n"
    )
    found = check_path("test_x.py", src.encode("latin-1"), taxonomy)[0]
    assert codes(found) == [(2, "HWC001")]
    assert "TestÄ" in found[0].message
    src = (
        "# coding: latin-1\n"
        "from torch.testing._internal.common_utils import HardwareClassification as HC\n"
        "class TestÄ(TestCase):\n    hw_classification = HC.GENERIC\n"
        "    def test_ü(self, é='é', *, device):\n        pass\n"
    )
    (f,) = check_path("t.py", src.encode("latin-1"), taxonomy)[0]
    line = src.splitlines()[4]
    assert (f.code, f.line, f.col) == ("HWC201", 5, line.index("device"))  # characters, not bytes


@pytest.mark.slow
def test_huge_file(taxonomy):
    body = "".join(f"    x{i} = {i}\n" for i in range(100_000))
    src = "class TestBig(TestCase):\n" + body + "    def test_last(self):\n        pass\n"
    assert src.count("\n") == 100_003
    assert codes(check_path("test_big.py", src, taxonomy)[0]) == [(1, "HWC001")]


def test_an_internal_error_in_one_rule_is_hwc900_and_others_still_run(monkeypatch, taxonomy):
    def broken(ctx):
        raise ZeroDivisionError("boom")
        yield  # pragma: no cover

    monkeypatch.setitem(
        RULES, "HWC204", RULES["HWC204"].__class__(**{**RULES["HWC204"].__dict__, "check": broken})
    )
    found = check_path("test_x.py", UNDECLARED, taxonomy)[0]
    assert codes(found) == [(1, "HWC001"), (1, "HWC900")]
    assert found[1].message == "Internal error in rule HWC204: ZeroDivisionError: boom."


def test_an_internal_error_while_modelling_is_hwc900(monkeypatch, taxonomy):
    import hwlint.model.build

    def explode(*args, **kwargs):
        raise KeyError("x")

    monkeypatch.setattr(hwlint.model.build, "parse_file", explode)
    (f,) = check_path("test_x.py", UNDECLARED, taxonomy)[0]
    assert (f.code, f.message) == ("HWC900", "Internal error in rule model: KeyError: 'x'.")


def test_unreadable_file_is_reported_and_others_still_checked(tmp_path, monkeypatch, taxonomy):
    good = tmp_path / "test_good.py"
    good.write_text(UNDECLARED)
    secret = tmp_path / "test_secret.py"
    secret.write_text(UNDECLARED)
    real_open = os.open  # the reader opens with os.open (O_NONBLOCK: a FIFO must not hang it)

    def guarded_open(path, *args, **kwargs):
        if os.fspath(path) == str(secret):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("os.open", guarded_open)
    results = check_paths([str(secret), str(good)], taxonomy, jobs=1)
    assert [(f.code, f.message) for f in results[0]] == [("HWC901", "Cannot check file: Permission denied.")]
    assert codes(results[1]) == [(1, "HWC001")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_through_the_cli(tmp_path):
    secret = tmp_path / "test_secret.py"
    secret.write_text(UNDECLARED)
    secret.chmod(0)
    res = run_tool("hwlint", "check", str(secret))
    assert res.returncode == 1 and "HWC901 Cannot check file: Permission denied." in res.stdout


def test_symlinks_missing_paths_and_noise(tmp_path):
    (tmp_path / "test_good.py").write_text(UNDECLARED)
    (tmp_path / "test_dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "test_loop.py").symlink_to(tmp_path / "test_loop.py")
    noise = tmp_path / "data"
    noise.mkdir()
    for i in range(3000):
        (noise / f"blob_{i}.bin").write_bytes(b"\0\1")
    res = run_tool(
        "hwlint", "check", "--no-cache", "--output-format", "json", ".", "missing_dir/test_x.py", cwd=tmp_path
    )
    assert res.returncode == 1, res.stderr
    found = sorted((f["filename"], f["code"], f["message"]) for f in json.loads(res.stdout))
    assert found == [
        ("missing_dir/test_x.py", "HWC901", "Cannot check file: No such file or directory."),
        ("test_dangling.py", "HWC901", "Cannot check file: No such file or directory."),
        ("test_good.py", "HWC001", "Test class `TestA` does not declare `hw_classification`."),
        ("test_loop.py", "HWC901", "Cannot check file: Too many levels of symbolic links."),
    ]


def test_directory_named_like_a_test_file(tmp_path):
    (tmp_path / "test_dir.py").mkdir()
    res = run_tool("hwlint", "check", "--no-cache", str(tmp_path / "test_dir.py"))
    assert res.returncode == 0 and res.stdout == "All checks passed!\n"


def test_many_files_in_parallel_with_one_bad_one(tmp_path):
    for i in range(40):
        (tmp_path / f"test_{i}.py").write_text(UNDECLARED)
    (tmp_path / "test_bad.py").write_bytes(b"\xff\xfe garbage\n")
    res = run_tool("hwlint", "check", "--no-cache", "--jobs", "2", "--statistics", str(tmp_path))
    assert res.returncode == 1
    assert res.stdout.splitlines()[:2] == [
        "40\tHWC001\t[*] missing-hw-classification",
        " 1\tHWC901\t    unparsable-file",
    ]


def test_noqa_cannot_hide_a_broken_file_from_the_exit_code(tmp_path):
    (tmp_path / "test_a.py").write_text(
        textwrap.dedent("class TestA(TestCase):  # noqa\n    def test_x(self)\n")
    )
    res = run_tool("hwlint", "check", "--no-cache", str(tmp_path))
    assert res.returncode == 1 and "HWC901" in res.stdout


def test_oversized_file_is_reported_not_parsed(tmp_path):
    big = tmp_path / "test_big.py"
    big.write_bytes(b"# padding\n" * 220_000)  # 2.2 MB
    small = tmp_path / "test_small.py"
    small.write_text(UNDECLARED)
    res = run_tool("hwlint", "check", "--no-cache", "--max-file-size", "2", str(tmp_path))
    assert res.returncode == 1
    assert res.stdout.splitlines()[0] == (
        f"{big}:1:1: HWC901 Cannot check file: the file is larger than the 2 MB limit (--max-file-size)."
    )
    assert f"{small}:1:1: HWC001" in res.stdout
    assert run_tool("hwlint", "check", "--no-cache", str(big)).returncode == 0


@pytest.mark.slow
def test_ten_thousand_files_in_bounded_memory(tmp_path):
    for i in range(10_000):
        (tmp_path / f"test_{i}.py").write_text(UNDECLARED if i % 1000 == 0 else "x = 1\n")
    script = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(r.returncode, r.stdout.count('HWC001'), peak)\n"
    )
    hwlint = str(Path(sys.executable).parent / "hwlint")
    out = subprocess.run(
        [sys.executable, "-c", script, hwlint, "check", "--no-cache", str(tmp_path)],
        capture_output=True,
        text=True,
    ).stdout.split()
    code, found, peak_kb = map(int, out)
    assert (code, found) == (1, 10)
    assert peak_kb < 150 * 1024


def test_flake8_plugin_turns_an_internal_error_into_hwc900(monkeypatch, taxonomy):
    import ast

    import hwlint.flake8_plugin as plugin

    def explode(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(plugin, "model_from_tree", explode)
    monkeypatch.setattr(plugin.HWLintPlugin, "taxonomy", taxonomy)
    found = list(plugin.HWLintPlugin(ast.parse(UNDECLARED), "test_x.py", UNDECLARED.splitlines(True)).run())
    assert [(line, col, text) for line, col, text, _ in found] == [
        (0, 0, "HWC900 Internal error in rule model: RecursionError: maximum recursion depth exceeded.")
    ]


def _chains(n: int, depth: int) -> dict[str, str]:
    """Files whose depth of calls, of inheritance or of a sum the author controls, each with a noqa
    on line 1."""
    head = "import torch  # noqa\nfrom torch.testing._internal.common_utils import TestCase\n\n"
    helpers = "".join(f"    def _h{i}(self):\n        return self._h{i + 1}()\n" for i in range(n))
    helpers += f"    def _h{n}(self):\n        return torch.cuda.is_available()\n"
    cycle = "".join(
        f"    def test_c{i}(self):\n        return self.test_c{(i + 1) % n}()\n" for i in range(n)
    )
    bases = "".join(f"class C{i}(C{i - 1}):\n    pass\n\n" for i in range(1, depth))
    helpers += "    def test_x(self):\n        self._h0()\n"
    cycle += "    def test_z(self):\n        torch.cuda.x()\n"
    terms = "+".join(["('cuda',)"] * 2500)  # CPython parses it: a tree 2,500 deep
    sums = (
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        f"X = ()\nX += {terms}\nclass TestSum(TestCase):\n    def test_a(self, device):\n        pass\n"
        f"instantiate_device_type_tests(TestSum, globals(), only_for={terms})\n"
    )
    return {
        "test_sums.py": head + sums,
        "test_helpers.py": head + f"class TestChain(TestCase):\n{helpers}",
        "test_cycle.py": head + f"class TestCycle(TestCase):\n{cycle}",
        "test_bases.py": head + "class C0(TestCase):\n    def test_a(self):\n        pass\n\n" + bases,
    }


@pytest.mark.slow  # thousands of chained calls and bases, each depth checked
def test_deep_chains_of_calls_and_bases_are_checked_not_hidden(tmp_path):
    # 1,500 helpers calling each other in turn once exhausted the recursion limit: flake8 got one
    # HWC900 on line 1, which the line's noqa comment hid, and `hwlint check` said "nested too deeply"
    n, depth = 1500, 1100  # past the recursion limit (1,000)
    for name, text in _chains(n, depth).items():
        (tmp_path / name).write_text(text)
    res = run_tool("hwlint", "check", "--no-cache", "--output-format", "json", str(tmp_path))
    found = {(Path(f["filename"]).name, f["code"], f["location"]["row"]) for f in json.loads(res.stdout)}
    assert {f for f in found if f[0] != "test_bases.py"} == {
        ("test_sums.py", "HWC001", 7),
        ("test_helpers.py", "HWC001", 4),
        ("test_helpers.py", "HWC004", 4),  # the use at the end of the chain is found
        ("test_cycle.py", "HWC001", 4),
        ("test_cycle.py", "HWC004", 4),
    }
    # every class of the chain inherits C0's test, down to the last
    assert {code for name, code, _ in found if name == "test_bases.py"} == {"HWC001", "HWC005"}
    assert ("test_bases.py", "HWC005", 5 + 3 * (depth - 1)) in found  # the last class
    # through flake8, the helpers' chain and cycle (pyflakes, which flake8 runs first, itself
    # exceeds the recursion limit on the 2,500-term sum)
    flake = run_tool(
        "flake8", "--isolated", "--select", "HWC", "test_helpers.py", "test_cycle.py", cwd=tmp_path
    )
    lines = flake.stdout.splitlines()
    assert not [x for x in lines if "HWC90" in x], lines
    assert sum(x.startswith("test_helpers.py:4:1: HWC004") for x in lines) == 1


def test_an_internal_error_is_reported_where_no_line_noqa_hides_it(monkeypatch, taxonomy, tmp_path):
    def broken(ctx):
        raise ZeroDivisionError("boom")
        yield  # pragma: no cover

    monkeypatch.setitem(
        RULES, "HWC204", RULES["HWC204"].__class__(**{**RULES["HWC204"].__dict__, "check": broken})
    )
    source = "import torch  # noqa\n" + UNDECLARED
    assert codes(check_path("test_x.py", source, taxonomy)[0]) == [(1, "HWC900"), (2, "HWC001")]
    assert codes(check_path("test_x.py", source.replace("# noqa", "# noqa: HWC900"), taxonomy)[0]) == [
        (1, "HWC900"),
        (2, "HWC001"),
    ]
    # flake8 reads a noqa from the line a finding is on: the plugin says line 0, as flake8's E902
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text('[tool.hwlint]\nselect = ["NOPE"]\n')
    (tmp_path / "sub" / "test_x.py").write_text(source)
    res = run_tool("flake8", "--isolated", "--select", "HWC", ".", cwd=tmp_path)
    assert res.stdout.startswith("./sub/test_x.py:0:1: HWC900 Internal error in rule configuration: "), res


def _peak(args: list[str], cwd) -> tuple[int, str, int]:
    """(exit code, stdout, peak resident KB of the process and its workers) of *args*."""
    script = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + '\\n' + r.stdout)\n"
        "sys.exit(r.returncode)\n"
    )
    res = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=cwd)
    peak, _, out = res.stdout.partition("\n")
    return res.returncode, out, int(peak)


def test_every_line_end_and_token_counts_toward_the_parse_cost(tmp_path):
    # the estimate counted only \n: 10 MB of `1\r` passed as clean after 7.8 GB and 69 s per
    # worker, and one 8 MB line of `a<a<a...` took 3.4 GB
    (tmp_path / "test_cr.py").write_bytes(b"1\r" * 5_000_000)
    (tmp_path / "test_lt.py").write_bytes(b"x = " + b"<".join([b"a"] * 4_000_000) + b"\n")
    (tmp_path / "test_and.py").write_bytes(b"x = " + b" and ".join([b"a"] * 1_500_000) + b"\n")
    (tmp_path / "test_ok.py").write_text(UNDECLARED)
    hwlint = str(Path(sys.executable).parent / "hwlint")
    code, out, peak_kb = _peak([hwlint, "check", "--no-cache", "-j", "2", "."], tmp_path)
    assert code == 1
    assert out.splitlines()[:4] == [
        "test_and.py:1:1: HWC901 Cannot check file: the file is too large to parse safely "
        "(3,000,004 syntax units, more than 2,000,000).",
        "test_cr.py:1:1: HWC901 Cannot check file: the file is too large to parse safely "
        "(20,000,000 syntax units, more than 2,000,000).",
        "test_lt.py:1:1: HWC901 Cannot check file: the file is too large to parse safely "
        "(8,000,004 syntax units, more than 2,000,000).",
        "test_ok.py:1:1: HWC001 [*] Test class `TestA` does not declare `hw_classification`.",
    ]
    assert peak_kb < 400 * 1024


@pytest.mark.slow  # a worker grows to its memory cap
def test_a_worker_that_runs_out_of_memory_reports_the_file_and_the_run_goes_on(tmp_path):
    # under the parse-cost cap, but more than a worker may take (the cap lowered to 150 MB here;
    # 3 GB in a run): a MemoryError is HWC901 for that file, every other file is checked
    (tmp_path / "test_big.py").write_text("x = [" + ", ".join(["a"] * 400_000) + "]\n")
    for i in range(8):
        (tmp_path / f"test_ok{i}.py").write_text(UNDECLARED)
    script = (
        "import sys\n"
        "from hwlint.cli.check import main\n"
        "from hwlint.pipeline import engine\n"
        "engine.WORKER_MEMORY = 150 * 2**20\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", script, "check", "--no-cache", "-j", "2", "."],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    lines = res.stdout.splitlines()
    assert (res.returncode, lines[0]) == (
        1,
        "test_big.py:1:1: HWC901 Cannot check file: the file is nested too deeply or too large to parse "
        "(the parser ran out of memory).",
    ), res.stderr
    assert sum(": HWC001 " in x for x in lines) == 8
    # the same file within the limit is checked like any other
    res = run_tool("hwlint", "check", "--no-cache", "-j", "2", "test_big.py", cwd=tmp_path)
    assert "HWC901" not in res.stdout
