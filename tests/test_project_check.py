"""`hwlint check` through the project model: classifications, tests and instantiations that come
from another scanned test module (fixtures in tests/fixtures/project, expected codes marked on
their lines), through the real CLI, flake8 and --fix."""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from hwlint.model.source import MAX_FILE_BYTES
from hwlint.pipeline import engine
from hwlint.pipeline.cache import Cache
from hwlint.pipeline.check import check_project
from hwlint.pipeline.config import Config
from hwlint.pipeline.session import RunOptions, Session
from hwlint.taxonomy import load_taxonomy

from .conftest import expected, run_tool
from .test_rules import TAXONOMIES

PROJECT = Path(__file__).parent / "fixtures" / "project"
FORWARD = sorted((PROJECT / "forward").glob("*.py"))
REVERSE = sorted((PROJECT / "reverse").glob("*.py"))


def _marked(files, taxonomy="default") -> set[tuple[str, int, str]]:
    return {
        (p.relative_to(PROJECT).as_posix(), ln, code) for p in files for ln, code in expected(p, taxonomy)
    }


def _check(*args, cwd=PROJECT) -> set[tuple[str, int, str]]:
    res = run_tool("hwlint", "check", "--isolated", "--no-cache", "--output-format", "json", *args, cwd=cwd)
    assert res.returncode in (0, 1), res.stderr
    return {
        (
            (cwd / f["filename"]).resolve().relative_to(cwd.resolve()).as_posix(),
            f["location"]["row"],
            f["code"],
        )
        for f in json.loads(res.stdout)
    }


@pytest.mark.parametrize("taxonomy", ["default", "inherit"])
def test_check_sees_bases_tests_and_instantiations_from_other_modules(taxonomy):
    found = _check("--taxonomy", str(TAXONOMIES[taxonomy]), "forward", "reverse")
    assert found == _marked([*FORWARD, *REVERSE], taxonomy)
    if taxonomy == "inherit":  # the classification TestInherits inherits from test_mixins.py counts
        assert ("forward/test_users.py", 6, "HWC001") not in found


def test_a_file_checked_alone_follows_its_imports_as_flake8_does():
    """A file's findings do not depend on which other files are on the command line: its imports
    are followed into the test modules they name (a module that imports it is not searched for)."""
    alone = _check("forward/test_users.py")
    assert alone == {f for f in _check("forward", "reverse") if f[0] == "forward/test_users.py"}
    assert alone == {
        ("forward/test_users.py", 6, "HWC001"),
        ("forward/test_users.py", 11, "HWC005"),
        ("forward/test_users.py", 16, "HWC001"),
        ("forward/test_users.py", 16, "HWC004"),
    }
    assert alone == _flake8(PROJECT / "forward" / "test_users.py")
    # and the classes another module of the project instantiates are read from it (lines 5 and 31:
    # test_instantiates.py instantiates them), as when both files are given
    assert _check("reverse/test_device_ops.py") == {
        ("reverse/test_device_ops.py", 12, "HWC001"),
        ("reverse/test_device_ops.py", 17, "HWC102"),
    }
    assert _check("reverse/test_device_ops.py") == {
        f for f in _check("forward", "reverse") if f[0] == "reverse/test_device_ops.py"
    }


def _flake8(*files: Path) -> set[tuple[str, int, str]]:
    res = run_tool(
        "flake8", "--isolated", "--select", "HWC", "--format", "%(path)s\t%(row)d\t%(code)s", *map(str, files)
    )
    assert res.returncode in (0, 1) and "Traceback" not in res.stderr, res.stderr
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    return {(Path(p).relative_to(PROJECT).as_posix(), int(row), code) for p, row, code in rows}


def test_flake8_follows_imports_and_sees_who_instantiates_a_class():
    # flake8 hands the plugin one file: it loads the test modules the file imports, so bases,
    # inherited tests and their device code agree with `hwlint check`...
    assert _flake8(*FORWARD) == _marked(FORWARD)
    # ...and reads the project's calls that instantiate a class of it (test_instantiates.py)
    assert _flake8(*REVERSE) == _marked(REVERSE)
    assert _flake8(PROJECT / "reverse" / "test_device_ops.py") == _marked(
        [PROJECT / "reverse/test_device_ops.py"]
    )


def test_outside_a_project_only_the_files_given_are_read(tmp_path):
    # no .git, pyproject.toml, ... here or above: a run from such a directory walks nothing
    tree = tmp_path / "loose"
    shutil.copytree(PROJECT / "reverse", tree)
    if any((p / ".git").exists() or (p / "pyproject.toml").exists() for p in tree.parents):
        pytest.skip("the temporary directory is inside a project")
    found = _check("test_device_ops.py", cwd=tree)
    assert {("test_device_ops.py", 5, "HWC102"), ("test_device_ops.py", 31, "HWC102")} <= found
    assert not {f for f in _check(".", cwd=tree) if f[1] in (5, 31) and f[0] == "test_device_ops.py"}


def test_fix_declares_what_the_project_aware_check_asks_for(tmp_path):
    tree = tmp_path / "project"
    shutil.copytree(PROJECT, tree)
    res = run_tool("hwlint", "check", "--isolated", "--no-cache", "--fix", "forward", "reverse", cwd=tree)
    assert res.returncode == 1, res.stderr
    users = (tree / "forward" / "test_users.py").read_text()
    ops = (tree / "reverse" / "test_device_ops.py").read_text()
    declared = "    hw_classification = HardwareClassification."
    # inherited from test_mixins.py (safe), tests collected from its StoreTestBase (safe)
    assert f"TestInherits(ClassifiedBase):  # HWC001[!inherit]\n{declared}GENERIC\n" in users
    assert f"HashStoreTest(TestCase, StoreTestBase):  # HWC005\n{declared}GENERIC\n" in users
    # TestMoreCuda inherits a CUDA test: alone it looked GENERIC; the project says mixed, no fix
    assert "TestMoreCuda(CudaTestBase):  # HWC001 HWC004\n    def test_more" in users
    # instantiated from test_instantiates.py: ACCELERATOR is safe
    assert f"class TestPlainDevice(TestCase):  # HWC001\n{declared}ACCELERATOR\n" in ops
    assert _check("forward", "reverse", cwd=tree) == {
        ("forward/test_mixins.py", 17, "HWC001"),  # each line moved by two declaration lines above it
        ("forward/test_mixins.py", 17, "HWC302"),
        ("forward/test_users.py", 20, "HWC001"),
        ("forward/test_users.py", 20, "HWC004"),
        ("reverse/test_device_ops.py", 19, "HWC102"),
        ("reverse/test_instantiates.py", 8, "HWC101"),  # not fixable: the call or the class must change
    }
    # HWC103's safe fix: the except_for that generates the same device types
    calls = (tree / "reverse" / "test_instantiates.py").read_text()
    assert '(TestStaleFilter, globals(), except_for=("cpu", "privateuse1"))  # HWC103\n' in calls


def test_alone_the_instantiated_class_gets_the_same_safe_fix():
    # instantiated from test_instantiates.py, which is not named: ACCELERATOR is still safe
    args = ("hwlint", "check", "--isolated", "--no-cache", "--diff")
    alone = run_tool(*args, "reverse/test_device_ops.py", cwd=PROJECT)
    together = run_tool(*args, "reverse", cwd=PROJECT)
    assert (
        alone.returncode == 1
        and "+    hw_classification = HardwareClassification.ACCELERATOR" in alone.stdout
    )
    # the directory's diff also holds the HWC103 fix of test_instantiates.py, after this file's
    assert together.stdout.split("--- reverse/test_instantiates.py")[0] == alone.stdout


def _count_parses(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = ast.parse

    def counting(source, filename="<unknown>", *args, **kwargs):
        seen.append(str(filename))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    return seen


def test_a_warm_check_of_the_project_parses_nothing(tmp_path, monkeypatch, taxonomy):
    files = [str(p) for p in (*FORWARD, *REVERSE)]
    parses = _count_parses(monkeypatch)
    cold = check_project(
        files,
        Session.from_config(Config(), RunOptions(1, cache=Cache(tmp_path / "c", taxonomy.digest)), taxonomy),
    )
    # each file once: the cross-file phase takes the models the per-file phase kept (the files
    # whose bases or instantiated classes come from another module, and those modules: all four)
    assert sorted(parses) == sorted(files)
    # what borrows from another module, and the module whose class another one instantiates
    linked = ["forward/test_users.py", "reverse/test_device_ops.py", "reverse/test_instantiates.py"]
    assert sorted(cold.linked) == [str(PROJECT / p) for p in linked]
    parses.clear()
    monkeypatch.setattr(Session, "link", None)  # a warm run loads no model at all
    warm = check_project(
        files,
        Session.from_config(Config(), RunOptions(1, cache=Cache(tmp_path / "c", taxonomy.digest)), taxonomy),
    )
    assert parses == []
    assert warm.findings == cold.findings


def _pooled_analyses(monkeypatch) -> list[tuple[str, list[str]]]:
    """(kind, files) of every per-file phase the session runs from now on, each on a pool of
    processes however few its files (four here)."""
    analysed: list[tuple[str, list[str]]] = []
    real = Session.analyze

    def analyze(self, paths, analysis, kind, *args, **kwargs):
        analysed.append((kind, list(paths)))
        return real(self, paths, analysis, kind, *args, **kwargs)

    monkeypatch.setattr(Session, "analyze", analyze)
    monkeypatch.setattr(engine, "_pool_worth", lambda tasks, jobs: True)
    return analysed


def test_the_cross_file_phase_takes_the_models_the_worker_processes_kept(tmp_path, monkeypatch, taxonomy):
    files = [str(p) for p in (*FORWARD, *REVERSE)]
    serial = check_project(
        files, Session.from_config(Config(), RunOptions(1, no_cache=True), taxonomy)
    ).findings
    analysed = _pooled_analyses(monkeypatch)
    parallel = check_project(
        files,
        Session.from_config(Config(), RunOptions(2, cache=Cache(tmp_path / "c", taxonomy.digest)), taxonomy),
    )
    # the checks, then no model to build: every one the phase needed came back from the processes
    assert analysed == [("check", files), ("model", [])]
    assert parallel.findings == serial
    # and they are cached as the models of those files: a run whose phase misses reads them
    stored = Cache(tmp_path / "c", taxonomy.digest).entries(f"model:max-bytes={MAX_FILE_BYTES}")
    assert len(stored) == 4


def test_spawned_processes_keep_no_model_for_the_cross_file_phase(monkeypatch, taxonomy):
    """Where processes are spawned, not forked (Windows), the pool starts them as the work needs
    them: a request met at a barrier could wait for one never started, so nothing is kept and
    the phase builds its models, with the same findings."""
    import multiprocessing

    files = [str(p) for p in (*FORWARD, *REVERSE)]
    serial = check_project(
        files, Session.from_config(Config(), RunOptions(1, no_cache=True), taxonomy)
    ).findings
    analysed = _pooled_analyses(monkeypatch)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    spawn = multiprocessing.get_context("spawn")
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: spawn)
    spawned = check_project(files, Session.from_config(Config(), RunOptions(2, no_cache=True), taxonomy))
    assert [kind for kind, _ in analysed] == ["check", "model"]
    assert sorted(analysed[1][1]) == sorted(os.path.abspath(f) for f in files)
    assert spawned.findings == serial


def test_an_edited_base_module_changes_the_warm_findings_of_its_users(tmp_path, taxonomy):
    tree = tmp_path / "forward"
    shutil.copytree(PROJECT / "forward", tree)
    files = [str(tree / "test_mixins.py"), str(tree / "test_users.py")]
    cache = tmp_path / "c"
    inherit = load_taxonomy(TAXONOMIES["inherit"])
    before = check_project(
        files, Session.from_config(Config(), RunOptions(1, cache=Cache(cache, inherit.digest)), inherit)
    ).findings[1]
    assert [(f.line, f.code) for f in before] == [(11, "HWC005"), (16, "HWC001"), (16, "HWC004")]
    mixins = tree / "test_mixins.py"
    mixins.write_text(
        mixins.read_text().replace("    hw_classification = HardwareClassification.GENERIC\n", "    pass\n")
    )
    after = check_project(
        files, Session.from_config(Config(), RunOptions(1, cache=Cache(cache, inherit.digest)), inherit)
    ).findings[1]
    # TestInherits no longer inherits a classification: its HWC001 is back
    assert [(f.line, f.code) for f in after] == [
        (6, "HWC001"),
        (11, "HWC005"),
        (16, "HWC001"),
        (16, "HWC004"),
    ]


def test_lintrunner_adapter_follows_imports_as_flake8_does():
    from hwlint.lintrunner import run

    out = io.StringIO()
    assert run(["--", *map(str, FORWARD)], out) == 0
    found = {
        (Path(m["path"]).relative_to(PROJECT).as_posix(), m["line"], m["name"])
        for m in map(json.loads, out.getvalue().splitlines())
    }
    assert found == _marked(FORWARD)


def test_instantiators_name_the_files_that_import_the_module_and_pass_a_class(tmp_path, monkeypatch):
    from hwlint.project import Instantiators

    call = "instantiate_device_type_tests"
    texts = {
        "test_a.py": "class TestA: pass\nclass TestB: pass\n",
        "by_package.py": "from pkg.sub.test_a import TestA\n" + call + "(TestA, globals())\n",
        "relative.py": "from .test_a import TestB as Other\n" + call + "(Other, globals())\n",
        "keyword.py": "from test_a import TestB\n" + call + "(generic_test_class=TestB)\n",
        "other_module.py": "from pkg.xtest_a import TestA\n" + call + "(TestA, globals())\n",
        "not_from.py": "import test_a\n" + call + "(test_a.TestA, globals())\n",
        "no_call.py": "from test_a import TestA\n",
        "other_class.py": "from test_a import TestC\n" + call + "(TestC, globals())\n",
    }
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    found = Instantiators(lambda: list(texts), [call], MAX_FILE_BYTES, "generic_test_class")
    assert found.candidates({"test_a.py": ["TestA", "TestB"]}) == [
        "by_package.py",
        "relative.py",
        "keyword.py",
    ]
    assert found.candidates({"test_a.py": ["TestB"], "relative.py": []}) == ["keyword.py"]
    # a file given is no candidate, and is not read for one
    read = []
    monkeypatch.setattr(Instantiators, "_text", lambda self, path: read.append(path))
    assert (
        Instantiators(lambda: ["test_a.py"], [call], MAX_FILE_BYTES).candidates({"test_a.py": ["TestA"]})
        == []
    )
    assert read == []


def _checkout(root: Path, monkeypatch) -> None:
    """A checkout's root (the current directory) with test/ops/test_device_ops.py, whose classes
    test/test_instantiates.py instantiates."""
    (root / "pyproject.toml").write_text("# a checkout's root\n")
    (root / "test" / "ops").mkdir(parents=True)
    shutil.copyfile(PROJECT / "reverse" / "test_device_ops.py", root / "test" / "ops" / "test_device_ops.py")
    text = (PROJECT / "reverse" / "test_instantiates.py").read_text()
    (root / "test" / "test_instantiates.py").write_text(
        text.replace("from test_device_ops", "from ops.test_device_ops")
    )
    monkeypatch.chdir(root)


def test_the_project_walk_lists_no_directory_given_whole(tmp_path, monkeypatch, capsys):
    """`hwlint check test/ops` from a checkout's root: the project's walk for the files that may
    instantiate a class of test/ops skips test/ops (all given), and still finds the one beside it."""
    import hwlint.pipeline.config
    from hwlint.cli.check import main
    from hwlint.cli.run import walked_whole

    _checkout(tmp_path, monkeypatch)
    given = ["test/ops/a.py", "test/ops/b.py"]
    assert walked_whole(["test/ops"], given, given) == {str(tmp_path / "test" / "ops")}
    # a file of the directory checked in another group (another taxonomy): the walk lists it
    assert walked_whole(["test/ops", "x.py"], [*given, "x.py"], [given[0], "x.py"]) == set()
    walked = []
    real = hwlint.pipeline.config._walk

    def walk(top, config, configs, skipped, prune=frozenset()):
        for path in real(top, config, configs, skipped, prune):
            walked.append(path)
            yield path

    monkeypatch.setattr(hwlint.pipeline.config, "_walk", walk)
    main(["check", "--no-cache", "--exit-zero", "--output-format", "json", "test/ops"])
    found = {(f["location"]["row"], f["code"]) for f in json.loads(capsys.readouterr().out)}
    # the discovery of test/ops, then the project's walk: the file beside it alone
    assert walked == ["test/ops/test_device_ops.py", "test/test_instantiates.py"]
    # read from there: TestDeviceOps and TestStaleFilter are instantiated (no HWC102)
    assert found == {(12, "HWC001"), (17, "HWC102")}


def test_the_aliased_names_are_those_the_pattern_says():
    """_aliased finds from the letters `as` what this pattern finds trying every position."""
    import random
    import re

    from hwlint.project import _aliased

    pattern = re.compile(rb"\b([A-Za-z_]\w*)\s+as\s+[A-Za-z_]")
    pieces = [
        b"a",
        b"s",
        b"_",
        b"1",
        b" ",
        b"\n",
        b"as",
        b"x9",
        b"\t",
        b"(",
        b"\xc3",
        b"as ",
        b" as ",
        b"\x0b",
    ]
    rng = random.Random(3)
    for _ in range(20_000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        assert _aliased(text) == [m.group(1) for m in pattern.finditer(text)], text
    assert _aliased(b"from m import TestA as T, TestB  as\tU\nwith x as y:") == [b"TestA", b"TestB", b"x"]


def test_the_project_is_read_for_instantiations_while_the_processes_check(tmp_path, monkeypatch, capsys):
    """The files of the project that may instantiate a class of those checked are read by the main
    process while the pool checks (it needs no result of theirs), not after."""
    from hwlint.cli.check import main
    from hwlint.project import Instantiators

    _checkout(tmp_path, monkeypatch)
    monkeypatch.setattr(engine, "_pool_worth", lambda tasks, jobs: True)
    events = []
    real_results, real_text = engine._Work.results, Instantiators._text
    monkeypatch.setattr(engine._Work, "results", lambda self: events.append("results") or real_results(self))

    def read(self, path):  # a file read (not one whose facts are remembered)
        if path not in self._texts:
            events.append(os.path.relpath(path))
        return real_text(self, path)

    monkeypatch.setattr(Instantiators, "_text", read)
    main(["check", "--no-cache", "--exit-zero", "--jobs", "2", "--output-format", "concise", "test/ops"])
    # read once, before the check's results are waited for (then the cross-file phase checks the
    # file itself, for its instantiation calls, and asks for the models the processes kept)
    instantiator = os.path.join("test", "test_instantiates.py")
    assert events[:2] == [instantiator, "results"] and events.count(instantiator) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[:2] for line in lines if line.startswith("test/")] == [
        ["test/ops/test_device_ops.py:12:1:", "HWC001"],
        ["test/ops/test_device_ops.py:17:1:", "HWC102"],
    ]


def test_the_modules_a_file_imports_are_those_the_pattern_says():
    """_Imports tells a file's stem from the names after `from`, as a pattern per stem did."""
    import random
    import re

    from hwlint.project import _Imports

    stems = [b"a", b"b", b"a.b", b".a", b"_a", b"ab", b"a_b", b"b.a", b"from", b"import", b"x1", b"1"]
    pieces = [b"a", b"b", b"_", b".", b" ", b"\n", b"from", b"import", b"x1", b"\t", b"-", b"(", b"1"]
    pieces += [b"from ", b" import", b"from a.", b".b import", b"from .a", b"x.from a import"]
    patterns = {
        stem: re.compile(rb"\bfrom\s+[\w.]*?\b" + re.escape(stem) + rb"\s+import\b") for stem in stems
    }
    dotted = [stem for stem in stems if b"." in stem]
    rng = random.Random(0)
    differ = []
    for _ in range(30_000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        found = set(_Imports(text).of(dict.fromkeys(stems), dotted))
        # the one way they may differ: `from from import import`, which is no Python
        if found != {stem for stem, p in patterns.items() if p.search(text)}:
            differ.append(text)
    assert all(re.search(rb"from\s+\S*from\S*\s+import", t) for t in differ), differ[:3]
    imports = _Imports(b"from pkg.sub.test_a import A\nfrom .b import B\n")
    assert sorted(imports.of({b"test_a": 0, b"b": 0, b"sub": 0})) == [b"b", b"test_a"]


def test_the_modules_a_file_imports_take_no_more_memory_than_their_names():
    import tracemalloc

    from hwlint.project import _Imports

    name = b".".join(b"a%d" % i for i in range(3000))  # 17 KB: its tails held 51 MB
    tracemalloc.start()
    try:
        imports = _Imports(b"from " + name + b" import x\n")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    assert imports.of({b"a2999": 0}) == [b"a2999"]
    assert imports.of({b"a2998.a2999": 0}, [b"a2998.a2999"]) == [b"a2998.a2999"]
