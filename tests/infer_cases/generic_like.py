# Inference cases: classes a maintainer classifies GENERIC (or splits). `# expect:` gives the answer.
import os
import pickle
import tempfile
import unittest
from collections import namedtuple

import torch
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
    instantiate_parametrized_tests,
    parametrize,
    run_tests,
)


def _make_cuda_tensor():
    return torch.ones(3, device="cuda")


class TestTypeHints(TestCase):  # expect: GENERIC
    def test_annotations(self):
        def f(x: torch.Tensor) -> torch.Tensor:
            return x

        self.assertIn("x", f.__annotations__)


class TestSerializationFiles(TestCase):  # expect: GENERIC
    def test_save_load(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.pt")
            torch.save(torch.arange(3), path)
            self.assertEqual(torch.load(path), torch.arange(3))

    def test_pickle(self):
        self.assertEqual(pickle.loads(pickle.dumps(torch.ones(2))), torch.ones(2))


class TestCpuTensors(TestCase):  # expect: GENERIC
    def test_to_cpu(self):
        x = torch.ones(2, device="cpu")
        self.assertEqual(x.cpu().device, torch.device("cpu"))


class TestDeviceParsing(TestCase):  # expect: GENERIC
    def test_parse_cuda_string(self):
        self.assertEqual(torch.device("cuda:1").index, 1)

    def test_parse_type(self):
        self.assertEqual(torch.device("cuda").type, "cuda")


class TestNamedTuples(TestCase):  # expect: GENERIC
    def test_fields(self):
        P = namedtuple("P", "x y")
        self.assertEqual(P(1, 2).y, 2)


class TestParametrized(TestCase):  # expect: GENERIC
    @parametrize("n", [1, 2, 3])
    def test_arange(self, n):
        self.assertEqual(torch.arange(n).numel(), n)


instantiate_parametrized_tests(TestParametrized)


class TestMemoryMixed(TestCase):  # expect: SPLIT
    def test_sizes(self):
        self.assertEqual(torch.zeros(2).numel(), 2)

    @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
    def test_empty_cache(self):
        torch.cuda.empty_cache()


class TestMultiprocessingMixed(TestCase):  # expect: SPLIT
    def test_share_cpu(self):
        torch.ones(2).share_memory_()

    def test_share_cuda(self):
        torch.ones(2).cuda().share_memory_()


class TestGenericBase(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_base(self):
        pass


class TestGenericChild(TestGenericBase):  # expect: GENERIC
    def test_child(self):
        pass


class TestAsyncApi(unittest.IsolatedAsyncioTestCase):  # expect: GENERIC
    async def test_await(self):
        self.assertTrue(True)


class TestHelperUsesCuda(TestCase):  # expect: CUDA
    @unittest.skipIf(not torch.cuda.is_available(), "CUDA only")
    def test_helper(self):
        self.assertEqual(_make_cuda_tensor().sum().item(), 3)


class TestHelperCallsCuda(TestCase):  # expect: CUDA
    def test_helper(self):
        self.assertEqual(_make_cuda_tensor().numel(), 3)


class TestJitScripting(TestCase):  # expect: GENERIC
    def test_script(self):
        @torch.jit.script
        def f(x):
            return x + 1

        self.assertEqual(f(torch.ones(1)), torch.full((1,), 2.0))


class TestEnvironment(TestCase):  # expect: GENERIC
    def test_env(self):
        self.assertIsInstance(os.environ.get("PATH", ""), str)

    def test_num_threads(self):
        self.assertGreater(torch.get_num_threads(), 0)


if __name__ == "__main__":
    run_tests()
