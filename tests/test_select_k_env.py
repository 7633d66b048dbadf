"""``--format k`` collects exactly what the node ids collect, with and without
``PYTORCH_TESTING_DEVICE_ONLY_FOR`` (issue 48, item 2; issue 47, item 3), by torch's own collection.

Without the variable torch generates a class for every device the machine has (a faked CUDA machine
also generates ``TestFooCPU``) and for ``include_lazy=True`` a ``TestFooLAZY`` everywhere: a term
naming only the file would select them. A parametrized test id may hold another class's name
(``test_a_x_TestFooBar``): ``not TestFooBar`` must not drop it.
"""

from __future__ import annotations

import pytest

from tests.test_select_verify import collected, hwselect, pytest_run, write

pytestmark = [pytest.mark.torch, pytest.mark.slow]

FILES = {
    "test_view_ops.py": """
class TestViewOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_view(self, device):
        pass


instantiate_device_type_tests(TestViewOps, globals(), include_lazy=True)


class TestCpuOnly(TestCase):
    hw_classification = HardwareClassification.CPU

    def test_c(self, device):
        pass


instantiate_device_type_tests(TestCpuOnly, globals(), only_for="cpu")
""",
    "test_attack.py": """
from torch.testing._internal.common_utils import instantiate_parametrized_tests, parametrize


class TestFoo(TestCase):
    hw_classification = HardwareClassification.GENERIC

    @parametrize("x", ["TestFooBar", "plain"])
    def test_a(self, x):
        pass


class TestFooBar(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_b(self):
        pass


instantiate_parametrized_tests(TestFoo)
""",
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write(tmp_path_factory.mktemp("kenv"), FILES)


@pytest.mark.parametrize(("runner", "extra"), [("cpu", []), ("cuda", ["-p", "_hw_fake_cuda"])])
def test_k_collects_the_node_ids_with_and_without_the_device_variable(tree, runner, extra):
    ids = hwselect(tree, runner, "test_view_ops.py")
    assert ids.returncode == 0, ids.stderr
    (tree / f"ids-{runner}.txt").write_text(ids.stdout)
    expected = collected(pytest_run(tree, f"@ids-{runner}.txt", *extra, device=runner))
    assert expected == {f"test_view_ops.py::TestViewOps{runner.upper()}::test_view_{runner}"} | (
        {"test_view_ops.py::TestCpuOnlyCPU::test_c_cpu"} if runner == "cpu" else set()
    )
    k = hwselect(tree, runner, "test_view_ops.py", "--format", "k")
    assert k.returncode == 0, k.stderr
    expression = k.stdout.strip()
    # the file alone would over-select: without the variable torch generates other devices' classes
    everything = collected(pytest_run(tree, "test_view_ops.py", *extra, device=""))
    assert any("::TestViewOpsLAZY::" in i for i in everything)
    assert everything > expected
    for device in (runner, ""):  # "": the variable unset, as torch reads it
        assert (
            collected(pytest_run(tree, "test_view_ops.py", "-k", expression, *extra, device=device))
            == expected
        )


@pytest.mark.parametrize(("runner", "extra"), [("cpu", []), ("cuda", ["-p", "_hw_fake_cuda"])])
def test_k_refuses_when_a_parametrized_id_holds_a_class_name(tree, runner, extra):
    """TestFoo::test_a_x_TestFooBar: `not TestFooBar` would drop it on cpu, and `TestFooBar` would
    select it on cuda. No exact -k exists: exit 2 with the reason; the node ids stay exact."""
    k = hwselect(tree, runner, "test_attack.py", "--format", "k")
    assert (k.returncode, k.stdout) == (2, ""), k.stderr
    assert "no -k expression selects exactly what runner" in k.stderr
    assert "--argsfile sel.args" in k.stderr
    ids = hwselect(tree, runner, "test_attack.py")
    (tree / f"attack-{runner}.txt").write_text(ids.stdout)
    got = collected(pytest_run(tree, f"@attack-{runner}.txt", *extra, device=runner))
    if runner == "cpu":
        assert got == {
            "test_attack.py::TestFoo::test_a_x_TestFooBar",
            "test_attack.py::TestFoo::test_a_x_plain",
        }
    else:
        assert got == {"test_attack.py::TestFooBar::test_b"}
