"""benchmarks/migration.py's comparison on hand-made collections (no torch): what counts as broken,
run nowhere and lost on a device, by the device-neutral key."""

from __future__ import annotations

import migration  # benchmarks/ is on the path (pyproject: pythonpath)

RUNS = {
    "cpu": ("GENERIC", "ACCELERATOR", "CPU"),
    "cuda": ("ACCELERATOR", "CUDA"),
    "mps": ("ACCELERATOR", "MPS"),
}


def row(nodeid, cls, generic, neutral, device="", classification=None, kept=False):
    return [nodeid, cls, generic, neutral, "", device, classification, kept]


def test_compare_by_device_neutral_key():
    before = {
        "cpu": {
            "a.py": {"items": [], "records": [row("a.py::TestA::test_x", "TestA", "TestA", "test_x")]},
            "b.py": {"items": [], "records": [row("b.py::TestB::test_y", "TestB", "TestB", "test_y")]},
            "c.py": {"items": [], "records": [row("c.py::test_f", "", "", "test_f")]},
        },
        "cuda": {
            "a.py": {
                "items": [],
                "records": [row("a.py::TestACUDA::test_x_cuda", "TestACUDA", "TestA", "test_x", "cuda")],
            },
            "b.py": {"items": [], "records": [row("b.py::TestB::test_y", "TestB", "TestB", "test_y")]},
            "c.py": {"error": "ImportError: no"},
        },
        "mps": {"a.py": {"items": []}, "b.py": {"items": [], "records": []}, "c.py": {"items": []}},
    }
    after = {
        "cpu": {
            "a.py": {
                "items": [],
                "records": [row("a.py::TestA::test_x", "TestA", "TestA", "test_x", "", "GENERIC", True)],
            },
            "b.py": {"error": "NameError: name 'TestB' is not defined"},
            "c.py": {"items": [], "records": [row("c.py::test_f", "", "", "test_f")]},
        },
        "cuda": {
            "a.py": {
                "items": [],
                "records": [
                    row("a.py::TestACUDA::test_x_cuda", "TestACUDA", "TestA", "test_x", "cuda", "GENERIC")
                ],
            },
            "b.py": {"error": "NameError: name 'TestB' is not defined"},
            "c.py": {"error": "ImportError: no"},
        },
        "mps": {"a.py": {"items": []}, "b.py": {"items": []}, "c.py": {"items": []}},
    }
    files = ["a.py", "b.py", "c.py"]
    s = migration.compare(RUNS, files, before, after, files, files)
    # b.py collected before on cpu and cuda and fails after on both
    assert [(b["file"], b["runners"]) for b in s["broken"]] == [("b.py", ["cpu", "cuda"])]
    # test_x runs on cpu after (GENERIC): not lost, counted once although it collected on two runners
    assert s["tests_before"] == 3
    assert {e["class"]: e["tests"] for e in s["lost"]} == {"b.py::TestB": 1, "c.py::<functions>": 1}
    assert [e["reason"] for e in s["lost"] if e["class"] == "c.py::<functions>"] == ["no class"]
    # ... but the CUDA runner no longer runs the test torch generated for it
    assert [(e["runner"], e["class"], e["classification_after"]) for e in s["device_lost"]] == [
        ("cuda", "a.py::TestA", ["GENERIC"])
    ]
    assert s["per_runner"]["cpu"]["tests_run_after"] == 1 and s["per_runner"]["cuda"]["files_broken"] == 1
    assert not s["property_holds"]


def test_importers_follow_the_tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "test_base.py").write_text("class Base: pass\n")
    (tmp_path / "test_user.py").write_text("from pkg.test_base import Base\n")
    (tmp_path / "test_user2.py").write_text("import test_user\n")
    (tmp_path / "test_other.py").write_text("import torch\n")
    graph = migration.import_graph(tmp_path)
    assert graph["test_user.py"] == {"pkg/test_base.py"}
    assert migration.importers(graph, {"pkg/test_base.py"}) == {"test_user.py", "test_user2.py"}


def test_a_parametrized_test_pinned_to_another_device_is_no_device_test_there():
    """TestForeach's @onlyCUDA @ops tests: torch generates them on the cpu runner too
    (`test_binary_op_add_cpu_float32`, skipped at run time), so once the split moves them to a
    CUDA class the cpu runner has lost nothing. The pin is the method's, found by its name's
    longest pinned prefix; a test of a longer name that is not pinned stays a device test."""
    cpu_before = [
        row("t.py::TestFCPU::test_op_add_cpu", "TestFCPU", "TestF", "test_op_add", "cpu"),
        row("t.py::TestFCPU::test_op_list_cpu", "TestFCPU", "TestF", "test_op_list", "cpu"),
    ]
    before = {"cpu": {"t.py": {"items": [], "records": cpu_before}}}
    after = {"cpu": {"t.py": {"items": [], "records": []}}}
    pins = {("t.py", "TestF"): {"test_op": {"cuda"}, "test_op_list": {"cpu"}}}
    s = migration.compare(
        {"cpu": RUNS["cpu"]}, ["t.py"], before, after, ["t.py"], ["t.py"], pins, {"cpu": "cpu"}
    )
    assert [(e["class"], e["tests"]) for e in s["device_lost"]] == [("t.py::TestF", 1)]  # test_op_list


def test_a_bare_name_before_runs_after_as_its_expansions():
    """test_sparse_semi_structured.py's CUDA classes: the cpu runner collected the class nothing
    expanded (`test_indices`), the cuda runner runs it after under its parametrized names
    (`test_indices_backend_cutlass`), which it also collected before: kept, and counted as such.
    A longer name the same runner collected beside it is a test of its own, no expansion:
    `test_x` stays lost although `test_x_big` runs."""
    expanded = row(
        "s.py::TestSCUDA::test_indices_backend_cutlass_cuda",
        "TestSCUDA",
        "TestS",
        "test_indices_backend_cutlass",
        "cuda",
    )
    before = {
        "cpu": {
            "s.py": {
                "items": [],
                "records": [
                    row("s.py::TestS::test_indices", "TestS", "TestS", "test_indices"),
                    row("s.py::TestS::test_x", "TestS", "TestS", "test_x"),
                    row("s.py::TestS::test_x_big", "TestS", "TestS", "test_x_big"),
                ],
            }
        },
        "cuda": {"s.py": {"items": [], "records": [expanded]}},
    }
    ran = [
        [*expanded[:6], "CUDA", True],
        row("s.py::TestSCUDA::test_x_big_cuda", "TestSCUDA", "TestS", "test_x_big", "cuda", "CUDA", True),
    ]
    after = {"cpu": {"s.py": {"items": [], "records": []}}, "cuda": {"s.py": {"items": [], "records": ran}}}
    runs = {"cpu": RUNS["cpu"], "cuda": RUNS["cuda"]}
    s = migration.compare(runs, ["s.py"], before, after, ["s.py"], ["s.py"])
    assert s["tests_run_expanded"] == {"tests": 1, "classes": {"s.py::TestS": 1}}
    assert [(e["class"], e["examples"]) for e in s["lost"]] == [("s.py::TestS", ["test_x"])]


def test_the_tree_digest_leaves_out_hwlints_cache(tmp_path):
    (tmp_path / "test_a.py").write_text("x = 1\n")
    first = migration.tree_digest(tmp_path)
    (tmp_path / ".hwlint_cache").mkdir()
    (tmp_path / ".hwlint_cache" / "v.json").write_text("{}")
    assert migration.tree_digest(tmp_path) == first
    (tmp_path / "test_a.py").write_text("x = 2\n")
    assert migration.tree_digest(tmp_path) != first


def test_a_test_skipped_where_it_is_kept_runs_nowhere():
    """Issue 50: `@skipIf(not TEST_CUDA)` in a class declared GENERIC. Before, the cpu runner skips it
    and the cuda runner runs it; after, only the cpu runner keeps it, and skips it there: collected,
    never run. A test skipped on every runner before never ran, and is not counted."""
    name = "t.py::TestG::test_pin"
    before = {
        "cpu": {"t.py": {"items": [], "records": [[*row(name, "TestG", "TestG", "test_pin"), True]]}},
        "cuda": {"t.py": {"items": [], "records": [[*row(name, "TestG", "TestG", "test_pin"), False]]}},
    }
    after = {
        "cpu": {
            "t.py": {
                "items": [],
                "records": [[*row(name, "TestG", "TestG", "test_pin", "", "GENERIC", True), True]],
            }
        },
        "cuda": {
            "t.py": {
                "items": [],
                "records": [[*row(name, "TestG", "TestG", "test_pin", "", "GENERIC"), False]],
            }
        },
    }
    runs = {"cpu": RUNS["cpu"], "cuda": RUNS["cuda"]}
    s = migration.compare(runs, ["t.py"], before, after, ["t.py"], ["t.py"])
    assert s["tests_run_nowhere"] == 1 and s["lost"][0]["examples"] == ["test_pin"]
    assert s["per_runner"]["cpu"]["tests_kept_but_skipped_after"] == 1
    assert s["tests_ran_before_in_collected_after_files"] == 1
    # the same test kept on cuda after (the split's CUDA class): it runs there
    after["cuda"]["t.py"]["records"][0][7] = True
    assert migration.compare(runs, ["t.py"], before, after, ["t.py"], ["t.py"])["tests_run_nowhere"] == 0
    # skipped everywhere before: it never ran, so nothing is lost
    before["cuda"]["t.py"]["records"][0][8] = True
    after["cuda"]["t.py"]["records"][0][7] = False
    assert migration.compare(runs, ["t.py"], before, after, ["t.py"], ["t.py"])["tests_run_nowhere"] == 0
