#!/usr/bin/python3
"""make_evil_names.py OUT.onnx — two MatMuls whose node names hold a newline,
an escape sequence, a leading '#' and a comma, in a graph whose name holds a
newline (tests/cli/hostile.sh: every writer must escape them)."""
import sys

import system_onnx

system_onnx.require()  # any python3: Debian's onnx is the system one's
from onnx import TensorProto, helper, save  # noqa: E402
W = helper.make_tensor("W", TensorProto.FLOAT, [64, 64], [0.0] * 4096)
n1 = helper.make_node("MatMul", ["X", "W"], ["Y"], name="mm\nnext\x1b[2J")
n2 = helper.make_node("MatMul", ["Y", "W"], ["Z"], name="#second,op")
g = helper.make_graph([n1, n2], "evil\nname", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 64])],
                      [helper.make_tensor_value_info("Z", TensorProto.FLOAT, [1, 64])], [W])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
