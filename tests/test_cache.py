"""The cache trusts nothing it reads: a file planted in the tree neither runs code nor hides a finding."""

from __future__ import annotations

import json
import os
import pickle
import time
from collections import Counter
from dataclasses import dataclass

import pytest

from hwlint import keystore
from hwlint.edits import Fix
from hwlint.model.source import MAX_FILE_BYTES
from hwlint.pipeline.cache import Cache, InvalidEntry, content_hash, decoder, encode, open_cache
from hwlint.pipeline.check import check_paths
from hwlint.pipeline.config import Config
from hwlint.pipeline.session import RunOptions, Session
from hwlint.project import Links
from hwlint.roots import NONE_GIVEN
from hwlint.rules.check import Finding

from .conftest import run_tool

CHECK = f"check:max-bytes={MAX_FILE_BYTES}"
UNCLASSIFIED = "class TestA:\n    def test_x(self):\n        pass\n"


class _Exploit:
    """Unpickling this creates the file named *marker*: the code a committed pickle cache would run."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture
def tree(tmp_path):
    """A checked tree with one unclassified class (one HWC001) and a configuration at its root."""
    (tmp_path / "pyproject.toml").write_text("[tool.hwlint]\n")
    (tmp_path / "test_a.py").write_text(UNCLASSIFIED)
    return tmp_path


def _plant(tree, taxonomy, payload: bytes) -> None:
    """Write *payload* wherever a cache file of `hwlint check` is looked for, under the old name
    (the pickle of hwlint-cache-2) and the current one."""
    planted = Cache(tree / ".hwlint_cache", taxonomy.digest)
    planted.directory.mkdir(exist_ok=True)
    for kind in ("check", CHECK):
        path = planted.path_for(kind)
        path.write_bytes(payload)
        path.with_suffix(".pickle").write_bytes(payload)


def test_planted_pickle_runs_no_code(tree, taxonomy):
    marker = tree / "pwned"
    _plant(tree, taxonomy, pickle.dumps(("hwlint-cache-2", {"x": _Exploit(str(marker))})))
    res = run_tool("hwlint", "check", ".", cwd=tree)
    assert (res.returncode, res.stderr) == (1, "")
    assert "test_a.py:1:1: HWC001" in res.stdout
    assert not marker.exists()


def test_planted_entry_claiming_no_findings_hides_nothing(tree, taxonomy):
    src = tree / "test_a.py"
    sha = content_hash(src.read_bytes())
    cache = Cache(tree / ".hwlint_cache", taxonomy.digest)
    header = cache._store(CHECK).header  # exactly what a real cache says about itself
    body = json.dumps({"key": header, "entries": {str(src): [sha, []]}}).encode()
    # the right magic and a MAC under every key an attacker could guess: none is ours
    for mac in (b"0" * 64, keystore.mac(b"\0" * 32, body)):
        _plant(tree, taxonomy, b"hwlint-cache-3 " + mac + b"\n" + body)
        res = run_tool("hwlint", "check", ".", cwd=tree)
        assert (res.returncode, res.stderr) == (1, ""), res.stderr
        assert "test_a.py:1:1: HWC001" in res.stdout


@pytest.mark.parametrize(
    "value",
    [[["test_a.py", 1]], "no findings", [[1, 2, 3, 4, 5, 6, 7, 8]], {"a": 1}, [None], 3],
    ids=["short", "string", "wrong-types", "mapping", "null", "number"],
)
def test_entry_of_the_wrong_shape_is_a_miss_and_rewritten(tree, taxonomy, value):
    # Signed with our own key (a bug, an old version): still checked, never trusted, never a crash.
    src = str(tree / "test_a.py")
    cache = Cache(tree / "cache", taxonomy.digest)
    cache.store(src, content_hash(UNCLASSIFIED.encode()), CHECK, [])
    cache.entries(CHECK)[os.path.abspath(src)][1] = value
    cache.save()
    again = Cache(tree / "cache", taxonomy.digest)
    assert [f.code for f in check_paths([src], taxonomy, 1, again)[0]] == ["HWC001"]
    assert [f.code for f in check_paths([src], taxonomy, 1, Cache(tree / "cache", taxonomy.digest))[0]] == [
        "HWC001"
    ]
    rewritten = Cache(tree / "cache", taxonomy.digest)
    checked = tuple[list[Finding], Links | None]  # the findings, and what the cross-file phase reads
    assert rewritten.get(src, content_hash(UNCLASSIFIED.encode()), CHECK, checked) is not None


def test_a_changed_file_with_restored_mtime_and_size_is_rechecked(tree, taxonomy):
    src = tree / "test_a.py"
    st = os.stat(src)
    assert [f.code for f in check_paths([str(src)], taxonomy, 1, Cache(tree / "c", taxonomy.digest))[0]] == [
        "HWC001"
    ]
    src.write_text(UNCLASSIFIED.replace("TestA", "TestB"))  # same size
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    [found] = check_paths([str(src)], taxonomy, 1, Cache(tree / "c", taxonomy.digest))
    assert [(f.code, "TestB" in f.message) for f in found] == [("HWC001", True)]


@pytest.fixture
def reads(monkeypatch):
    """The files the checks read from now on, with files counted as settled 20 ms after their last
    change (a stamp then stands for their bytes) instead of two seconds."""
    import hwlint.model.source
    import hwlint.pipeline.engine

    monkeypatch.setattr(hwlint.model.source, "SETTLED_NS", 20_000_000)
    read: list[str] = []
    real = hwlint.pipeline.engine.read_stamped
    monkeypatch.setattr(
        hwlint.pipeline.engine, "read_stamped", lambda path, *a, **k: read.append(path) or real(path, *a, **k)
    )
    time.sleep(0.05)  # the tree's files were written more than 20 ms before the first read
    return read


def test_a_warm_run_reads_no_file_that_still_has_its_stamp(tree, taxonomy, reads):
    src = str(tree / "test_a.py")
    cold = check_paths([src], taxonomy, 1, Cache(tree / "c", taxonomy.digest))
    assert reads == [src]
    reads.clear()
    warm = Cache(tree / "c", taxonomy.digest)
    assert check_paths([src], taxonomy, 1, warm) == cold
    assert reads == [] and not warm.dirty


def test_a_stamped_file_changed_with_restored_mtime_and_size_is_rechecked(tree, taxonomy, reads):
    src = tree / "test_a.py"
    st = os.stat(src)
    check_paths([str(src)], taxonomy, 1, Cache(tree / "c", taxonomy.digest))
    src.write_text(UNCLASSIFIED.replace("TestA", "TestB"))  # same size, same mtime: a new ctime
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    [found] = check_paths([str(src)], taxonomy, 1, Cache(tree / "c", taxonomy.digest))
    assert [(f.code, "TestB" in f.message) for f in found] == [("HWC001", True)]


def test_a_file_changed_just_before_its_read_or_a_link_is_read_on_every_run(tree, taxonomy, reads):
    from hwlint.pipeline.check import check_project

    (tree / "test_link.py").symlink_to(tree / "test_a.py")
    fresh = tree / "test_fresh.py"
    fresh.write_text(UNCLASSIFIED)  # changed 20 ms before the read, or less: not settled
    files = [str(tree / "test_link.py"), str(fresh)]
    for _ in range(2):
        reads.clear()
        options = RunOptions(1, cache=Cache(tree / "c", taxonomy.digest))
        # the link is read: it points into the tree the run was given
        session = Session.from_config(Config(), options, taxonomy, paths=[str(tree)])
        found = check_project(files, session).findings
        assert [[f.code for f in fs] for fs in found] == [["HWC001"], ["HWC001"]]
        assert reads == files


def test_a_run_that_stores_a_few_entries_writes_them_beside_the_others(tmp_path, taxonomy):
    from hwlint.pipeline.cache import DELTA_SHARE, delta_path

    files = []
    for i in range(16):
        files.append(tmp_path / f"test_{i}.py")
        files[-1].write_text(UNCLASSIFIED.replace("TestA", f"Test{i}"))
    paths = [str(p) for p in files]
    check_paths(paths, taxonomy, 1, Cache(tmp_path / "c", taxonomy.digest))
    base = Cache(tmp_path / "c", taxonomy.digest).path_for(CHECK)
    written = base.read_bytes()
    assert not delta_path(base).exists()
    files[3].write_text(UNCLASSIFIED.replace("TestA", "TestX"))
    found = check_paths(paths, taxonomy, 1, Cache(tmp_path / "c", taxonomy.digest))
    # the one entry stored goes to the delta; the base is as it was
    assert base.read_bytes() == written
    assert list(json.loads(delta_path(base).read_bytes().partition(b"\n")[2])["entries"]) == [paths[3]]
    warm = Cache(tmp_path / "c", taxonomy.digest)
    assert check_paths(paths, taxonomy, 1, warm) == found and not warm.dirty
    assert "TestX" in found[3][0].message
    # past its share of the entries, the delta is folded into the base
    edited = int(DELTA_SHARE * len(files)) + 1
    for i in range(edited):
        files[i].write_text(UNCLASSIFIED.replace("TestA", f"TestY{i}"))
    again = check_paths(paths, taxonomy, 1, Cache(tmp_path / "c", taxonomy.digest))
    assert not delta_path(base).exists() and base.read_bytes() != written
    assert check_paths(paths, taxonomy, 1, Cache(tmp_path / "c", taxonomy.digest)) == again
    assert [f"TestY{i}" in again[i][0].message for i in range(edited)] == [True] * edited


def test_a_delta_not_signed_with_our_key_is_ignored_and_removed(tree, taxonomy):
    from hwlint.pipeline.cache import delta_path

    src = tree / "test_a.py"
    check_paths([str(src)], taxonomy, 1, Cache(tree / "c", taxonomy.digest))
    cache = Cache(tree / "c", taxonomy.digest)
    header = cache._store(CHECK).header
    body = json.dumps({"key": header, "entries": {str(src): [content_hash(src.read_bytes()), [[], None]]}})
    planted = delta_path(cache.path_for(CHECK))
    planted.write_bytes(b"hwlint-cache-3 " + b"0" * 64 + b"\n" + body.encode())  # "no findings"
    again = Cache(tree / "c", taxonomy.digest)
    assert [f.code for f in check_paths([str(src)], taxonomy, 1, again)[0]] == ["HWC001"]
    assert not planted.exists()


def test_results_are_keyed_by_the_size_cap(tree, taxonomy):
    src = str(tree / "test_a.py")
    capped = check_paths([src], taxonomy, 1, Cache(tree / "c", taxonomy.digest), max_bytes=10)
    assert [f.code for f in capped[0]] == ["HWC901"]
    assert [f.code for f in check_paths([src], taxonomy, 1, Cache(tree / "c", taxonomy.digest))[0]] == [
        "HWC001"
    ]


def test_cache_directory_is_tagged_and_ignored(tree):
    assert run_tool("hwlint", "check", ".", cwd=tree).returncode == 1
    cache_dir = tree / ".hwlint_cache"
    assert (
        (cache_dir / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    )
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert [p.suffix for p in cache_dir.glob("*-*")] == [".json"]


def test_warm_run_reads_the_cache(tree, taxonomy):
    src = str(tree / "test_a.py")
    cold = check_paths([src], taxonomy, 1, Cache(tree / "c", taxonomy.digest))
    warm = Cache(tree / "c", taxonomy.digest)
    assert check_paths([src], taxonomy, 1, warm) == cold
    assert not warm.dirty and len(warm.entries(CHECK)) == 1


def test_selections_and_summaries_are_cached_too(tree, taxonomy):
    from hwlint.report.data import summarize_paths
    from hwlint.select.runners import select_all

    (tree / "test_b.py").write_text(
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "class TestB:\n    def test_x(self, device):\n        pass\n"
        "instantiate_device_type_tests(TestB, globals(), only_for='cuda')\n"
    )
    files = [str(tree / "test_a.py"), str(tree / "test_b.py")]
    for run in (
        lambda c: select_all(
            Session.from_config(Config(), RunOptions(cache=c, no_cache=c is None), taxonomy), files
        ),
        lambda c: summarize_paths(files, taxonomy, 1, c),
    ):
        cold = run(Cache(tree / "c", taxonomy.digest))
        warm = Cache(tree / "c", taxonomy.digest)
        assert run(warm) == cold
        assert warm._stores and not warm.dirty  # every value came from the cache


def test_symlinked_default_directory_and_special_files_are_not_used(tree, taxonomy, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (tree / ".hwlint_cache").symlink_to(elsewhere)
    assert open_cache(taxonomy.digest, tree) is None
    assert open_cache(taxonomy.digest, tree, str(elsewhere)) is not None  # asked for explicitly
    cache_dir = tree / "real-cache"
    cache_dir.mkdir()
    os.mkfifo(Cache(cache_dir, taxonomy.digest).path_for(CHECK))  # would block a plain open()
    assert [
        f.code
        for f in check_paths([str(tree / "test_a.py")], taxonomy, 1, Cache(cache_dir, taxonomy.digest))[0]
    ] == ["HWC001"]


def test_without_a_key_nothing_is_read_or_written(tree, taxonomy, monkeypatch):
    monkeypatch.setenv(keystore.KEY_FILE_ENV, str(tree / "test_a.py" / "key"))  # cannot exist
    cache = Cache(tree / "c", taxonomy.digest)
    assert [f.code for f in check_paths([str(tree / "test_a.py")], taxonomy, 1, cache)[0]] == ["HWC001"]
    assert not (tree / "c").exists()


def test_key_is_created_private(tmp_path, monkeypatch):
    monkeypatch.setenv(keystore.KEY_FILE_ENV, str(tmp_path / "d" / "key"))
    key = keystore.secret(NONE_GIVEN)
    assert key is not None and len(key) == 32 and keystore.secret(NONE_GIVEN) == key
    assert (tmp_path / "d" / "key").stat().st_mode & 0o777 == 0o600


# -- the codec: every value comes back as it was, anything else is refused -------------------


@dataclass(frozen=True)
class Row:
    name: str
    count: int
    tags: tuple[str, ...] = ()
    note: str | None = None
    pairs: tuple[tuple[str, bool | None], ...] = ()
    tally: Counter = None  # type: ignore[assignment]


ROUND_TRIPS = [
    (list[Finding], [Finding("a.py", 1, 0, "HWC001", "m", 1, 5, Fix("safe", "Declare", "why"))]),
    (list[Row], [Row("x", 2, ("a",), None, (("k", None), ("j", True)), Counter({"A": 3}))]),
    (dict[str, Row] | str, "unreadable"),
    (dict[str, list[int]] | str, {"cpu": [1, 2]}),
]


@pytest.mark.parametrize(("tp", "value"), ROUND_TRIPS)
def test_values_round_trip(tp, value):
    assert decoder(tp)(json.loads(json.dumps(encode(value)))) == value


BAD = [
    (list[Finding], [["a.py", "1", 0, "HWC001", "m", 1, 5, None]]),  # a string for an int
    (list[Finding], [["a.py", 1, 0, "HWC001", "m", 1, 5]]),  # a field short
    (list[Finding], [["a.py", True, 0, "HWC001", "m", 1, 5, None]]),  # a bool is no int
    (list[Row], [["x", 1, ["a", 2], None, [], {}]]),
    (list[Row], [["x", 1, [], None, [["k"]], {}]]),
    (list[Row], [["x", 1, [], None, [], {"A": "3"}]]),
    (dict[str, Row] | str, 7),
    (list[int], {"a": 1}),
]


@pytest.mark.parametrize(("tp", "data"), BAD)
def test_values_of_another_shape_are_refused(tp, data):
    with pytest.raises(InvalidEntry):
        decoder(tp)(data)


def test_values_json_cannot_hold_are_not_encoded():
    for value in ({1: "a"}, {"a"}, object()):
        with pytest.raises(TypeError):
            encode(value)


def test_values_are_keyed_by_a_digest_of_hwlints_code(tree, taxonomy, tmp_path_factory):
    # two commits of hwlint both call themselves 0.1.0, and an editable install changes in place:
    # a changed rule must not be served its old messages
    import shutil

    import hwlint
    from hwlint.pipeline.cache import code_digest

    package = tmp_path_factory.mktemp("code") / "hwlint"
    shutil.copytree(os.path.dirname(hwlint.__file__), package, ignore=shutil.ignore_patterns("__pycache__"))
    assert code_digest(str(package)) == code_digest()
    rule = package / "rules" / "declarations.py"
    rule.write_text(rule.read_text().replace("does not declare", "never declares"))
    changed = code_digest(str(package))
    assert changed != code_digest()
    (package / "rules" / "new_rule.py").write_text("")
    assert code_digest(str(package)) not in (changed, code_digest())

    src = str(tree / "test_a.py")
    cold = check_paths([src], taxonomy, 1, Cache(tree / "c", taxonomy.digest))
    assert check_paths([src], taxonomy, 1, Cache(tree / "c", taxonomy.digest)) == cold
    other = Cache(tree / "c", taxonomy.digest, code=changed)
    assert other.path_for(CHECK) != Cache(tree / "c", taxonomy.digest).path_for(CHECK)
    assert other.get(src, content_hash((tree / "test_a.py").read_bytes()), CHECK, list[Finding]) is None
    # a store written by other code, renamed to this code's name, is refused by its header
    os.replace(Cache(tree / "c", taxonomy.digest).path_for(CHECK), other.path_for(CHECK))
    renamed = Cache(tree / "c", taxonomy.digest, code=changed)
    assert renamed.entries(CHECK) == {} and renamed.dirty


_ACCELERATOR_X = (
    "from torch.testing._internal.common_utils import TestCase, HardwareClassification\n\n"
    "class TestX(TestCase):\n"
    "    hw_classification = HardwareClassification.ACCELERATOR\n"
    "    def test_a(self, device):\n        pass\n"
)


def test_a_cached_cross_file_result_holds_only_while_imports_resolve_as_they_did(tmp_path):
    # sub/test_a.py instantiates TestX, which sub/test_m.py imports from test_c: ./test_c.py, until
    # a sub/test_c.py shadows it (whose TestX is GENERIC); the contents the links name are unchanged
    tree = tmp_path / "t"
    (tree / "sub").mkdir(parents=True)
    (tree / "pyproject.toml").write_text("[tool.hwlint]\n")
    (tree / "test_c.py").write_text(_ACCELERATOR_X)
    (tree / "sub" / "test_m.py").write_text("from test_c import TestX\n")
    (tree / "sub" / "test_a.py").write_text(
        "from test_m import TestX\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n\n"
        "instantiate_device_type_tests(TestX, globals())\n"
    )
    shadow = _ACCELERATOR_X.replace("ACCELERATOR", "GENERIC").replace("self, device", "self")

    def check(*args, cwd=tree):
        res = run_tool("hwlint", "check", "--output-format", "concise", *args, cwd=cwd)
        return sorted(
            line.split(": ")[0] + " " + line.split()[1] for line in res.stdout.splitlines() if ": HWC" in line
        )

    def select(*args, cwd=tree):
        res = run_tool("hwselect", "cpu", "--format", "k", *args, cwd=cwd)
        return res.returncode, res.stdout

    assert check(".") == check("--no-cache", ".") == []
    assert select(".") == select("--no-cache", ".")
    before = select(".")
    (tree / "sub" / "test_c.py").write_text(shadow)
    expected = ["sub/test_a.py:4:1 HWC101", "test_c.py:3:1 HWC102"]
    assert check("--no-cache", ".") == expected
    assert check(".") == expected  # the warm run, the cache written before the shadow came
    assert select(".") == select("--no-cache", ".") != before
    (tree / "sub" / "test_c.py").unlink()
    assert check(".") == check("--no-cache", ".") == []
    assert select(".") == select("--no-cache", ".") == before
    # from another directory the absolute imports resolve against another current directory
    (tree / "sub" / "test_c.py").write_text(shadow)
    assert check("..", cwd=tree / "sub") == check("--no-cache", "..", cwd=tree / "sub")
    # a file given twice, as `test_a.py` and as `../sub/test_a.py`, is reported under both names
    twice = check("--no-cache", ".", "..", cwd=tree / "sub")
    assert twice == sorted(["test_a.py:4:1 HWC101", "../sub/test_a.py:4:1 HWC101", "../test_c.py:3:1 HWC102"])
    assert check(".", "..", cwd=tree / "sub") == check(".", "..", cwd=tree / "sub") == twice
