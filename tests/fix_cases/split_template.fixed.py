# An excerpt of PyTorch 2.6.0's test/onnx/test_pytorch_jit_onnx.py: a template pytest does not
# collect (its name does not start with Test, no base is a TestCase), whose tests run in the classes
# MakeTestCase builds from its __dict__. A copy of it would be a template nothing builds from.
import torch
from torch.testing._internal import common_utils
from torch.testing._internal.common_utils import skipIfNoCuda


class _TestJITIRToONNX:
    opset_version = -1  # Sub-classes must override

    def run_test(self, graph_ir, example_inputs):
        return torch._C.parse_ir(graph_ir), example_inputs

    def test_example_ir(self):
        self.run_test("graph(%1 : Float(2, 3)):", (torch.randn(2, 3),))

    def test_example_ir_twice(self):
        self.run_test("graph(%1 : Float(2, 3)):", (torch.randn(2, 3),) * 2)

    def test_example_ir_int(self):
        self.run_test("graph(%1 : Long(2)):", (torch.arange(2),))

    @skipIfNoCuda
    def test_log_softmax_half_to_float(self):
        x = torch.randn(5, 2).half().to("cuda")
        self.run_test("graph(%x: Tensor):", (x,))


def MakeTestCase(opset_version: int) -> type:
    name = f"TestJITIRToONNX_opset{opset_version}"
    return type(
        str(name),
        (common_utils.TestCase,),
        dict(_TestJITIRToONNX.__dict__, opset_version=opset_version),
    )


TestJITIRToONNX_opset14 = MakeTestCase(14)

if __name__ == "__main__":
    common_utils.run_tests()
