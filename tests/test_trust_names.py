"""Issue 47, names and sizes an attacker's pull request controls: file names that pytest would read
as an argument file, taxonomy names that forge log lines or shell words, test files a default
exclusion hides, a quadratic ``.test_durations`` and file names that are not UTF-8. Each test plants
the reproduction and checks the promised outcome (docs/guarantees.md names each test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hwlint.select.durations import Durations, load_durations, module_components
from hwlint.select.records import SELECTED, Candidate
from hwlint.words import printable, visible
from tests.conftest import DEFAULT_TAXONOMY, EXAMPLES, ROOT, property_examples, run_tool
from tests.pytest_server import pytest_env
from tests.select_suite import write_suite
from tests.test_select_collect import RUNS, collect

GEN = "hw_classification = HardwareClassification.GENERIC"
CUDA = "hw_classification = HardwareClassification.CUDA"


def cls(name: str, member: str, *tests: str) -> str:
    body = "".join(f"    def {t}(self):\n        pass\n\n" for t in tests)
    return f"\nclass {name}(TestCase):\n    {member}\n\n{body}"


# -- 2. a node id that starts with `@` is a pytest argument file -----------------------------------


@pytest.mark.slow  # real pytest collections
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


# -- every output: no control character, no leading @ or - from a name (the generalisation) ----------

# Characters a pull request can put in a file name: controls (a newline, CR, ESC, BEL, DEL, C1 and
# the Unicode line separators), a bidirectional override, a zero-width space, a byte that is not
# UTF-8 (a surrogate, as os.fsdecode gives it), and the leading characters pytest reads as an
# option or an argument file.
_HOSTILE = ["\n", "\r", "\x1b", "\x07", "\x7f", "\x85", "\u2028", "\u202e", "\u200b", "\udcff", "@", "-"]
_NAME_CHARS = st.sampled_from(["a", "_", ".", " ", ":", "é", *_HOSTILE])
_NAMES = st.text(_NAME_CHARS, min_size=1, max_size=5).filter(lambda n: n not in (".", ".."))

SOURCE = (
    "from unittest import TestCase\n"
    "from torch.testing._internal.common_utils import HardwareClassification\n"
    + cls("TestGen", GEN, "test_g")
    + "\n\nclass TestBare(TestCase):\n    def test_b(self):\n        pass\n"
)


def _strict_run(name: str, argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """*name argv* in this process as under a UTF-8 locale: stdout strict (a name that is not UTF-8
    cannot be written by accident), stderr with backslash escapes, as Python sets them."""
    import contextlib
    import importlib
    import io

    main = importlib.import_module({"hwlint": "hwlint.cli.check", "hwselect": "hwlint.cli.select"}[name]).main
    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", errors="strict", newline="\n")
    err = io.TextIOWrapper(err_b, encoding="utf-8", errors="backslashreplace", newline="\n")
    saved = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 2
            out.flush()
            err.flush()
    finally:
        os.chdir(saved)
    return rc, out_b.getvalue().decode("utf-8"), err_b.getvalue().decode("utf-8")


def _controls(text: str, every: bool = True) -> set[str]:
    """Control characters (*every*: and invisible ones) other than the line feed and tab hwlint
    writes itself; a surrogate could not even be written (the streams are strict UTF-8)."""
    shown = visible if every else printable
    return {c for c in text if c not in "\n\t" and shown(c) != c}


#: hwselect's refusal of a path that cannot be one line of an argument list (exit 2, by design)
REFUSED = "cannot be written one per line"

SELECT_FORMATS = [["--format", f] for f in ("nodeids", "files", "k", "json")]
CHECK_FORMATS = [["--output-format", f] for f in ("concise", "full", "github", "json", "sarif")]


@settings(max_examples=property_examples(1), deadline=None)
@given(directory=_NAMES, stem=_NAMES, flat=_NAMES)
@example(directory="\udcff\x1b@", stem="\u2028x", flat="@\n")  # the attacks, always run
@example(directory="-a", stem="\x85", flat="-\u202e\r")
def test_no_output_carries_a_control_character_or_a_leading_at_or_dash_from_a_name(directory, stem, flat):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.makedirs(os.fsencode(root / directory), exist_ok=True)
        for rel in (f"{directory}/test_{stem}.py", f"{flat}_test.py", "test_plain.py"):
            with open(os.fsencode(root / rel), "w", encoding="utf-8") as f:
                f.write(SOURCE)
        runs = [
            ("hwselect", ["cpu", ".", "--include-unclassified", "--no-cache", *f]) for f in SELECT_FORMATS
        ]
        runs += [("hwselect", ["--format", "matrix", ".", "--no-cache"])]
        runs += [("hwselect", ["cpu", ".", "--no-cache", "--argsfile", "sel.args"])]
        runs += [("hwselect", ["explain", "cpu", f"./{directory}/test_{stem}.py::TestGen"])]
        runs += [("hwlint", ["check", ".", "--no-cache", *f]) for f in CHECK_FORMATS]
        runs += [
            ("hwlint", ["check", ".", "--no-cache", a]) for a in ("--statistics", "--show-files", "--diff")
        ]
        runs += [
            ("hwlint", ["report", ".", "--no-cache", "--format", f]) for f in ("table", "markdown", "json")
        ]
        for name, argv in runs:
            rc, out, err = _strict_run(name, argv, root)
            what = f"{name} {' '.join(argv)}"
            assert "internal error" not in err, (what, err)
            assert rc in (0, 1, 3) or (rc == 2 and REFUSED in err), (what, rc, err)
            # a selection's paths are the file's own names (pytest must find them): only controls and
            # bytes that are not UTF-8 are refused there; every text for people escapes the rest too
            arguments = name == "hwselect" and not {"json", "matrix"} & set(argv)
            assert not (_controls(out, every=not arguments) or _controls(err)), (what, out, err)
            if argv[0] == "explain":
                assert rc == 0 and out.startswith("RUNS: "), (what, out, err)
            if name == "hwselect" and "--argsfile" in argv and rc == 0:
                out = (root / "sel.args").read_text(encoding="utf-8")
            if (
                name == "hwselect"
                and "--format" in argv
                and argv[argv.index("--format") + 1] in ("json", "matrix")
            ):
                strings = _json_strings(json.loads(out)) if out else []
                # hwselect's own options (the matrix's `pytest` arguments) are no name
                named = [s for s in strings if s.startswith(("@", "-")) and not s.startswith("--hw-")]
                assert not named, (what, out)
                continue
            if name == "hwselect" or (
                "--output-format" in argv and argv[-1] in ("concise", "full", "github")
            ):
                starts = [line for line in out.splitlines() if line.startswith(("@", "-")) and line != "-k"]
                if "--diff" not in argv:
                    assert not starts, (what, out)


def _json_strings(doc) -> list[str]:
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for k, v in doc.items() for s in (*_json_strings(k), *_json_strings(v))]
    if isinstance(doc, list):
        return [s for v in doc for s in _json_strings(v)]
    return []


# -- 14. a file name that is not UTF-8 --------------------------------------------------------------

NOT_UTF8 = os.fsdecode(b"test_\xff.py")  # "test_\udcff.py": the byte, as the file system's name decodes


def _plant_not_utf8(root: Path) -> None:
    (root / NOT_UTF8).write_text(SOURCE)
    (root / "test_plain.py").write_text(SOURCE)


def test_a_name_that_is_not_utf8_is_shown_escaped_by_every_command_and_format(tmp_path):
    _plant_not_utf8(tmp_path)
    escaped = "test_\\udcff.py"  # how every text for people shows it
    for fmt in ("table", "markdown", "json", "html"):
        rc, out, err = _strict_run("hwlint", ["report", ".", "--no-cache", "--format", fmt], tmp_path)
        assert rc == 0 and "error" not in err, (fmt, err)
        assert escaped in out, fmt  # JSON writes the escape, the others show it so
        rc, out, err = _strict_run(
            "hwlint", ["report", ".", "--no-cache", "--format", fmt, "-o", f"r.{fmt}"], tmp_path
        )
        assert rc == 0 and escaped in (tmp_path / f"r.{fmt}").read_text(encoding="utf-8"), (fmt, err)
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'href="test_%FF.py#L' in html  # the link is the byte's URL
    for fmt in ("concise", "full", "github", "json", "json-lines", "sarif"):
        rc, out, err = _strict_run("hwlint", ["check", ".", "--no-cache", "--output-format", fmt], tmp_path)
        assert rc == 1 and escaped in out and "error:" not in err, (fmt, out, err)
    for extra in ("--statistics", "--show-files", "--show-settings", "--diff"):
        rc, out, err = _strict_run("hwlint", ["check", ".", "--no-cache", extra], tmp_path)
        assert rc in (0, 1) and "error:" not in err, (extra, err)
        assert extra in ("--statistics", "--show-settings") or escaped in out + err, extra
    rc, out, err = _strict_run(
        "hwlint", ["check", ".", "--no-cache", "--output-format", "json", "-o", "f.json"], tmp_path
    )
    assert rc == 1 and {f["filename"] for f in json.loads((tmp_path / "f.json").read_text())} == {
        "test_plain.py",
        NOT_UTF8,  # JSON's \udcff escape: the name, byte for byte, for a program
    }
    for fmt in ("k", "json"):
        rc, out, err = _strict_run("hwselect", ["cpu", ".", "--no-cache", "--format", fmt], tmp_path)
        assert rc == 0 and "error" not in err, (fmt, err)
    rc, out, err = _strict_run("hwselect", ["--format", "matrix", "--no-cache", "."], tmp_path)
    assert rc == 0 and json.loads(out)["include"], err
    # a pytest argument must be the name itself, which no text line holds: refused, naming it escaped
    for argv in (["--format", "nodeids"], ["--format", "files"], ["--argsfile", "sel.args"]):
        rc, out, err = _strict_run("hwselect", ["cpu", ".", "--no-cache", *argv], tmp_path)
        assert (rc, out) == (2, ""), (argv, err)
        assert f"\nhwselect: error: {escaped}" in err, err
        assert REFUSED in err and not (tmp_path / "sel.args").exists()


def test_a_name_that_is_not_utf8_does_not_crash_a_real_report_process(tmp_path):
    """The console script under a strict UTF-8 locale, as a CI job may run it (the crash was here)."""
    _plant_not_utf8(tmp_path)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "NO_COLOR": "1"}
    res = subprocess.run(
        [sys.executable, "-m", "hwlint", "report", ".", "--no-cache", "--format", "html"],
        cwd=tmp_path,
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert b"test_\\udcff.py" in res.stdout and b"\xff" not in res.stdout


# -- 10. test files pytest collects that a default exclusion or a directory symlink hides ------------

HIDDEN_TEST = (
    "from unittest import TestCase\n\n\nclass TestHidden(TestCase):\n    def test_h(self):\n        pass\n"
)


@pytest.mark.slow  # real pytest collections
def test_a_default_exclusion_or_a_directory_link_that_hides_collectable_tests_is_named(tmp_path):
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "test_out.py").write_text(HIDDEN_TEST)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "weights.txt").write_text("1\n")
    tree = tmp_path / "repo"
    t = tree / "t"
    for rel in (
        "site-packages/pkg/test_sp.py",
        "site-packages/pkg/test_sp2.py",
        "__pypackages__/x/test_pp.py",
    ):
        (t / rel).parent.mkdir(parents=True, exist_ok=True)
        (t / rel).write_text(HIDDEN_TEST)
    (t / "test_ok.py").write_text(HIDDEN_TEST)
    (t / "__pycache__").mkdir()
    (t / "linked").symlink_to(outside, target_is_directory=True)  # pytest follows it
    (t / "data").symlink_to(tmp_path / "data", target_is_directory=True)  # no test file behind it
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    subprocess.run(["git", "-C", str(tree), "add", "t"], check=True)
    (t / "__pycache__" / "test_untracked.py").write_text(HIDDEN_TEST)  # not the checkout's: not named
    # what pytest collects: the tracked files under the default exclusions, and through the link
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "t"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        env=pytest_env(),
    )
    collected = {line.split("::")[0] for line in res.stdout.splitlines() if "::" in line}
    hidden = {"t/site-packages/pkg/test_sp.py", "t/__pypackages__/x/test_pp.py", "t/linked/deep/test_out.py"}
    assert hidden <= collected, res.stdout + res.stderr
    named = {
        "t/site-packages": "excluded by default (site-packages)",
        "t/__pypackages__": "excluded by default (__pypackages__)",
        "t/linked": "a directory symlink hwlint does not follow",
    }
    for cmd in (
        ("hwlint", "check", "--no-cache", "t"),
        ("hwlint", "report", "--no-cache", "t"),
        ("hwselect", "cpu", "t", "--no-cache", "--verbose"),
        ("hwselect", "--format", "matrix", "t", "--no-cache", "--verbose"),
    ):
        res = run_tool(*cmd, cwd=tree)
        warnings = [line for line in res.stderr.splitlines() if ": warning: " in line]
        for path, why in named.items():
            lines = [w for w in warnings if f"warning: {path}: {why}" in w]
            assert len(lines) == 1, (cmd, path, res.stderr)  # one line per directory, not per file
        assert not any("t/data" in w or "__pycache__" in w for w in warnings), (cmd, res.stderr)
    # the default stays: nothing behind a link or an exclusion is checked (the link may lead out)
    out = run_tool("hwlint", "check", "--no-cache", "--output-format", "concise", "t", cwd=tree).stdout
    assert {line.split(":")[0] for line in out.splitlines() if ": HWC" in line} == {"t/test_ok.py"}
    # hwselect's default line names the kind once
    res = run_tool("hwselect", "cpu", "t", "--no-cache", cwd=tree)
    assert "hwselect: 3 directories pytest collects test files from that hwlint does not check" in res.stderr


def test_a_warning_or_an_error_naming_a_file_is_one_line(tmp_path):
    """A name with a newline in a warning (a FIFO discovery skips) or an error (explain's missing
    class) is escaped: no line of stderr starts where the name would have begun one."""
    os.mkfifo(tmp_path / "test_f\n::error title=forged::x.py")
    (tmp_path / "test_a.py").write_text(SOURCE)
    for name, argv in (
        ("hwlint", ["check", ".", "--no-cache"]),
        ("hwlint", ["report", ".", "--no-cache"]),
        ("hwselect", ["cpu", ".", "--no-cache", "--verbose"]),
        ("hwselect", ["explain", "cpu", "./test_a.py::TestNo\n::error::forged"]),
    ):
        err = _strict_run(name, argv, tmp_path)[2]
        assert err and not any(line.startswith("::") for line in err.splitlines()), (argv, err)
        assert "\\n::error" in err, (argv, err)
