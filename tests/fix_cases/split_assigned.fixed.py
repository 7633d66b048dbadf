# A class an author declared GENERIC (shapes of PyTorch 2.6.0's test/distributions/test_distributions.py
# and test/test_fake_tensor.py): tests bound by assignment stay with the test they read, the test that
# asks for CUDA in its body moves, and module code that takes the class alone runs for both classes.
import torch
from torch.testing._internal.common_utils import HardwareClassification, TestCase, set_default_dtype


class TestDistributions(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_binomial(self):
        self.assertEqual(torch.ones(2).sum(), 2)

    test_binomial_half = set_default_dtype(torch.float16)(test_binomial)

    def test_gamma_gpu_shape(self):
        if not torch.cuda.is_available():
            return
        self.assertEqual(torch.ones(2, device="cuda").shape, (2,))


def make_propagate_real_tensors_cls(cls):
    globals()["PropagateRealTensors" + cls.__name__] = type("PropagateRealTensors" + cls.__name__, (cls,), {})


make_propagate_real_tensors_cls(TestDistributions)
