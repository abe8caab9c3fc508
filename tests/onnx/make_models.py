#!/usr/bin/python3
"""make_models.py OUTDIR [--seeds DIR] — ONNX graphs of real networks built
from their published architectures with onnx.helper (Debian's python3-onnx),
for the importer's end-to-end test (tests/cli/onnx.sh) and the fuzz corpus:

  resnet50.onnx    ResNet-50 v1.5 at 224x224 (He et al., CVPR 2016; stride on
                   the 3x3 conv), conv + batchnorm + relu as PyTorch exports
                   it, symbolic batch "N"
  bert_layer.onnx  one BERT-large encoder layer at 384 tokens (Devlin et al.,
                   NAACL 2019): d 1024, 16 heads, FFN 4096, post-LN, GELU as
                   the exporters' Erf expansion, the Q reshape target computed
                   by Shape/Gather/Unsqueeze/Concat, symbolic batch "batch"
  tiny_*.onnx      small graphs for CLI checks and fuzz seeds (--seeds)

Weights are initializers that point at external data that is never written:
the importer reads shapes only, so the files stay a few hundred KB.
"""
import os
import sys

import system_onnx

system_onnx.require()  # any python3: Debian's onnx is the system one's
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

OPSET = [helper.make_opsetid("", 17)]


class G:
    """Collects nodes and initializers with unique names."""

    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return f"{p}_{self.n}"

    def weight(self, p, dims, dtype=TensorProto.FLOAT):
        t = TensorProto()
        t.name = self.name(p)
        t.dims.extend(dims)
        t.data_type = dtype
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", "0")):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.inits.append(t)
        return t.name

    def const(self, p, vals, dtype=TensorProto.INT64, dims=None):
        t = helper.make_tensor(self.name(p), dtype, [len(vals)] if dims is None else dims, vals)
        self.inits.append(t)
        return t.name

    def op(self, op, inputs, p=None, n_out=1, **attrs):
        outs = [self.name(p or op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=outs[0], **attrs))
        return outs[0] if n_out == 1 else outs

    def save(self, path, gname, inputs, outputs):
        graph = helper.make_graph(self.nodes, gname, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=OPSET, producer_name="v10sim-tests")
        onnx.save(model, path)
        # The checker wants the external file to exist (it is never read).
        open(os.path.join(os.path.dirname(path), "weights.bin"), "ab").close()
        onnx.checker.check_model(path)


# ---- ResNet-50 v1.5 --------------------------------------------------------

def conv_bn(g, x, cin, cout, k, stride, relu=True):
    w = g.weight("w", [cout, cin, k, k])
    y = g.op("Conv", [x, w], "conv", kernel_shape=[k, k], strides=[stride, stride],
             pads=[(k - 1) // 2] * 4)
    bn = [g.weight(p, [cout]) for p in ("gamma", "beta", "mean", "var")]
    y = g.op("BatchNormalization", [y] + bn, "bn", epsilon=1e-5)
    return g.op("Relu", [y], "relu") if relu else y


def resnet50(path):
    g = G()
    x = conv_bn(g, "image", 3, 64, 7, 2)
    x = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, blocks in enumerate([3, 4, 6, 3]):
        width = 64 << stage
        for i in range(blocks):
            stride = 2 if stage > 0 and i == 0 else 1
            skip = x
            if cin != 4 * width or stride != 1:  # projection first, as the zoo
                skip = conv_bn(g, x, cin, 4 * width, 1, stride, relu=False)
            y = conv_bn(g, x, cin, width, 1, 1)
            y = conv_bn(g, y, width, width, 3, stride)
            y = conv_bn(g, y, width, 4 * width, 1, 1, relu=False)
            x = g.op("Relu", [g.op("Add", [y, skip], "add")], "relu")
            cin = 4 * width
    x = g.op("GlobalAveragePool", [x], "avgpool")
    x = g.op("Flatten", [x], "flatten", axis=1)
    x = g.op("Gemm", [x, g.weight("fc_w", [1000, 2048]), g.weight("fc_b", [1000])], "fc",
             transB=1)
    x = g.op("Softmax", [x], "softmax", axis=-1)
    g.save(path, "resnet50_v1.5",
           [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 224, 224])],
           [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["N", 1000])])


# ---- BERT-large encoder layer ----------------------------------------------

def dense(g, x, din, dout):
    y = g.op("MatMul", [x, g.weight("w", [din, dout])], "matmul")
    return g.op("Add", [y, g.weight("b", [dout])], "bias")


def bert_layer(path, t=384, d=1024, heads=16, ff=4096):
    g = G()
    x, mask = "hidden", "mask"
    dh = d // heads
    # Q's reshape target from the input's shape, as torch.onnx exports it.
    shp = g.op("Shape", [x], "shape")
    b = g.op("Unsqueeze", [g.op("Gather", [shp, g.const("i0", [0], dims=[])], "gather", axis=0),
                           g.const("ax", [0])], "unsq")
    s = g.op("Unsqueeze", [g.op("Gather", [shp, g.const("i1", [1], dims=[])], "gather", axis=0),
                           g.const("ax", [0])], "unsq")
    q_shape = g.op("Concat", [b, s, g.const("hd", [heads, dh])], "concat", axis=0)
    heads_shape = g.const("shape", [0, 0, heads, dh])

    def split_heads(y, target, perm):
        return g.op("Transpose", [g.op("Reshape", [y, target], "reshape")], "transpose",
                    perm=perm)

    q = split_heads(dense(g, x, d, d), q_shape, [0, 2, 1, 3])
    k = split_heads(dense(g, x, d, d), heads_shape, [0, 2, 3, 1])
    v = split_heads(dense(g, x, d, d), heads_shape, [0, 2, 1, 3])
    sc = g.op("MatMul", [q, k], "qk")
    sc = g.op("Div", [sc, g.const("sqrt_dh", [float(dh) ** 0.5], TensorProto.FLOAT, [])], "scale")
    sc = g.op("Add", [sc, mask], "mask")
    p = g.op("Softmax", [sc], "softmax", axis=-1)
    c = g.op("MatMul", [p, v], "av")
    c = g.op("Reshape", [g.op("Transpose", [c], "transpose", perm=[0, 2, 1, 3]),
                         g.const("shape", [0, 0, d])], "reshape")
    a = g.op("Add", [dense(g, c, d, d), x], "residual")
    h = g.op("LayerNormalization", [a, g.weight("ln_g", [d]), g.weight("ln_b", [d])], "ln",
             axis=-1, epsilon=1e-12)
    f = dense(g, h, d, ff)
    # GELU, exact, as exporters expand it: 0.5 x (1 + erf(x / sqrt 2))
    e = g.op("Erf", [g.op("Div", [f, g.const("sqrt2", [2 ** 0.5], TensorProto.FLOAT, [])])])
    e = g.op("Add", [e, g.const("one", [1.0], TensorProto.FLOAT, [])])
    f = g.op("Mul", [g.op("Mul", [f, e]), g.const("half", [0.5], TensorProto.FLOAT, [])])
    o = g.op("Add", [dense(g, f, ff, d), h], "residual")
    o = g.op("LayerNormalization", [o, g.weight("ln_g", [d]), g.weight("ln_b", [d])], "ln",
             axis=-1, epsilon=1e-12)
    g.save(path, "bert_large_encoder_layer",
           [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", t, d]),
            helper.make_tensor_value_info(mask, TensorProto.FLOAT, ["batch", 1, 1, t])],
           [helper.make_tensor_value_info(o, TensorProto.FLOAT, ["batch", t, d])])


# ---- tiny graphs (CLI checks, fuzz seeds) -----------------------------------

def tiny(outdir):
    g = G()  # conv + bias + relu, pool, fc: one SA op per matmul-like node
    x = g.op("Conv", ["x", g.weight("w", [8, 3, 3, 3]), g.weight("b", [8])], "conv",
             kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = g.op("Relu", [x])
    x = g.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = g.op("Flatten", [x], axis=1)
    x = g.op("Gemm", [x, g.weight("fc", [8 * 4 * 4, 10])])
    g.save(os.path.join(outdir, "tiny_cnn.onnx"), "tiny_cnn",
           [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
           [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["N", 10])])

    g = G()  # a fixed batch of 2: batch= other than 2 is refused
    y = g.op("Conv", ["x", g.weight("w", [8, 3, 3, 3])], "conv", kernel_shape=[3, 3])
    g.save(os.path.join(outdir, "tiny_fixed.onnx"), "tiny_fixed",
           [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
           [helper.make_tensor_value_info(y, TensorProto.FLOAT, [2, 8, 6, 6])])

    g = G()  # a weight that is a graph input (no initializer), dim 0 of 1
    y = g.op("Conv", ["x", "w"], "conv", kernel_shape=[3, 3])
    g.save(os.path.join(outdir, "tiny_wgraph.onnx"), "tiny_wgraph",
           [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [1, 3, 3, 3])],
           [helper.make_tensor_value_info(y, TensorProto.FLOAT, ["N", 1, 6, 6])])

    g = G()  # embedding lookup, layernorm, matmul, reduce
    e = g.op("Gather", [g.weight("table", [1000, 16]), "ids"], "embed", axis=0)
    e = g.op("LayerNormalization", [e, g.weight("g", [16])], axis=-1)
    e = g.op("MatMul", [e, g.weight("w", [16, 4])])
    e = g.op("ReduceMean", [e], axes=[1], keepdims=0)
    g.save(os.path.join(outdir, "tiny_embed.onnx"), "tiny_embed",
           [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 5])],
           [helper.make_tensor_value_info(e, TensorProto.FLOAT, [1, 4])])

    g = G()  # an operator the importer does not know
    y = g.op("Hardmax", ["x"], axis=-1)
    g.save(os.path.join(outdir, "tiny_unknown.onnx"), "tiny_unknown",
           [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 7])],
           [helper.make_tensor_value_info(y, TensorProto.FLOAT, [2, 7])])

    g = G()  # a symbolic sequence length: unknown shape
    y = g.op("Relu", ["x"])
    g.save(os.path.join(outdir, "tiny_symbolic.onnx"), "tiny_symbolic",
           [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "seq"])],
           [helper.make_tensor_value_info(y, TensorProto.FLOAT, ["N", "seq"])])

    # Arity from the operator table: no schema check (onnx.checker would
    # refuse them), so they are saved as written.
    for name, op, ins in (("arity", "Relu", ["x", "x"]), ("missing", "Gemm", ["x"])):
        node = helper.make_node(op, ins, ["y"], name=name)
        graph = helper.make_graph(
            [node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 7])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        onnx.save(model, os.path.join(outdir, f"tiny_{name}.onnx"))


def adversarial(outdir):
    """Valid protobuf, hostile attributes: each must be rejected or imported
    cleanly (no overflow) -- the CLI test runs them under ASan+UBSan."""
    big = 2 ** 62
    cases = {
        "conv_group": ("Conv", [[1, 4, 8, 8], [4, 1, 3, 3]], dict(group=big)),
        "conv_stride": ("Conv", [[1, 4, 8, 8], [4, 4, 3, 3]], dict(strides=[big, 1])),
        "conv_dilation": ("Conv", [[1, 4, 8, 8], [4, 4, 3, 3]], dict(dilations=[big, big])),
        "convt_stride": ("ConvTranspose", [[1, 4, 2 ** 40, 1], [4, 4, 3, 1]],
                         dict(strides=[2 ** 24, 1], auto_pad="SAME_UPPER")),
        "convt_pad": ("ConvTranspose", [[1, 4, 8, 8], [4, 4, 3, 3]],
                      dict(output_padding=[big, 0])),
        "pool_huge": ("MaxPool", [[1, 1, 8, 8]], dict(kernel_shape=[big, 1], ceil_mode=1)),
        "slice_step": ("Slice", [[10]], dict(starts=[big], ends=[-big], axes=[0])),
        "flatten_axis": ("Flatten", [[2, 3]], dict(axis=-big)),
        "shape_range": ("Shape", [[2, 3]], dict(start=-big, end=big)),
    }
    for name, (op, shapes, attrs) in cases.items():
        ins = [f"x{i}" for i in range(len(shapes))]
        node = helper.make_node(op, ins, ["y"], name=name, **attrs)
        graph = helper.make_graph(
            [node], name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in zip(ins, shapes)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
        onnx.save(model, os.path.join(outdir, f"adv_{name}.onnx"))


def shape_overflow(outdir):
    """Shape arithmetic whose exact value does not fit in 64 bits, each
    written so that wrapping arithmetic would fold it to the valid target
    [4] of a 4-element reshape (then a Relu, so that the graph has work);
    the importer must refuse each, naming the node (docs/onnx.md, "Shape
    arithmetic")."""
    MAX, MIN = 2 ** 63 - 1, -2 ** 63
    def graph(name, build):
        g = G()
        target = build(g)
        y = g.op("Relu", [g.op("Reshape", ["x", target], "reshape")])
        g.save(os.path.join(outdir, f"shape_{name}.onnx"), f"shape_{name}",
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
               [helper.make_tensor_value_info(y, TensorProto.FLOAT, [4])])
    # 2^62 * 4 + 4: wraps to 4
    graph("mul", lambda g: g.op("Add", [g.op("Mul", [g.const("a", [2 ** 62]), g.const("b", [4])]),
                                        g.const("c", [4])]))
    # MAX + MAX + 6: wraps to 4
    graph("add", lambda g: g.op("Add", [g.op("Add", [g.const("a", [MAX]), g.const("b", [MAX])]),
                                        g.const("c", [6])]))
    # (MIN - 1) + (4 - MAX): wraps to 4
    graph("sub", lambda g: g.op("Add", [g.op("Sub", [g.const("a", [MIN]), g.const("b", [1])]),
                                        g.const("c", [4 - MAX])]))
    # -MIN + (MIN + 4): 2^63 does not fit; wrapping gives 4
    graph("neg", lambda g: g.op("Add", [g.op("Neg", [g.const("a", [MIN])]),
                                        g.const("c", [MIN + 4])]))
    # MIN / -1
    graph("div", lambda g: g.op("Div", [g.const("a", [MIN]), g.const("b", [-1])]))
    # 2^32 + 4 cast to int32 (and back): wraps to 4
    graph("cast", lambda g: g.op("Cast", [g.op("Cast", [g.const("a", [2 ** 32 + 4])], to=TensorProto.INT32)],
                                 to=TensorProto.INT64))
    # A pool whose kernel has 2^144 taps (2^24 on each of 6 dims): wraps to 0,
    # an operator with no work.
    g = G()
    y = g.op("Relu", [g.op("MaxPool", ["x"], "pool", kernel_shape=[2 ** 24] * 6,
                           strides=[2 ** 24] * 6, pads=[2 ** 24] * 12)])
    g.save(os.path.join(outdir, "shape_pool.onnx"), "shape_pool",
           [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1] * 8)],
           [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 1] + [2] * 6)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    resnet50(os.path.join(out, "resnet50.onnx"))
    bert_layer(os.path.join(out, "bert_layer.onnx"))
    tiny(out)
    adversarial(out)
    shape_overflow(out)


if __name__ == "__main__":
    main()
