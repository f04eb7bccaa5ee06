#!/usr/bin/python3
"""Train a TFC-like MLP with quantization-aware training on scikit-learn's digits and write it as
a FINN-ONNX dataflow graph, with an independent NumPy run of that graph as the reference.

The data: scikit-learn's `load_digits` (1797 real 8x8 handwritten digits, values 0..16), in the
same shuffled order as scripts/train_digits.py: the first 1500 train, the last 297 are held out.
Each pixel becomes a UINT4 input, round(v * 15 / 16).

The network (FINN's TFC shape, narrowed to the 64-pixel digits): 64 -> 64 -> 64 -> 10, ternary
weights ({-1, 0, +1}, stored as INT2), batch norm and 2-bit unsigned activations (UINT2) after
the two hidden layers, the last layer's accumulators into LabelSelect (top-1). Training uses
straight-through estimators: weights w -> alpha * ternary(w) (TWN: |w| > 0.7 mean|w|), activations
y -> clamp(floor(y + 0.5), 0, 3).

Export: what FINN's streamlining gives for this network. Each hidden layer is an MVAU on the
integer inputs and weights whose thresholds fold the weight and input scales and the batch norm:
y = a * acc + b, output = #{k in 1..3 : y >= k - 1/2}, so threshold t_k = ceil((k - 1/2 - b) / a);
a channel with a < 0 has its weight row negated (ternary stays ternary) and thresholds taken on
-acc. The last MVAU has no activation (INT32 accumulators), then LabelSelect.

Run (Debian 12: apt-get install python3-torch python3-sklearn python3-numpy python3-onnx):
    /usr/bin/python3 scripts/train_finn_tfc.py configs/networks/finn
writes tfc_digits.onnx (PE = SIMD = 1 everywhere, FINN's state before folding), folding.json (a
balanced folding: 16 cycles a frame per MVAU), test_inputs.npy (297 x 64 uint8, UINT4 values),
test_labels.npy (297 int32), reference_outputs.npy (297 x 1 int32: the NumPy run's top-1 index)
and prints the accuracies. Deterministic: fixed seeds, one thread.
"""
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper
from sklearn.datasets import load_digits

torch.manual_seed(0)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

TRAIN = 1500
HIDDEN = 64


def data():
    d = load_digits()
    x = np.round(d.images.reshape(-1, 64) * 15.0 / 16.0).astype(np.int64)  # UINT4
    order = np.random.RandomState(0).permutation(len(x))
    return x[order], d.target.astype(np.int64)[order]


def ternary(w):
    delta = 0.7 * w.abs().mean()
    q = torch.sign(w) * (w.abs() > delta).float()
    alpha = (w.abs() * q.abs()).sum() / q.abs().sum().clamp(min=1)
    return w + (alpha * q - w).detach(), q, alpha


def act2(y):
    q = torch.clamp(torch.floor(y + 0.5), 0, 3)
    return y + (q - y).detach()


class Tfc(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.ModuleList([torch.nn.Linear(64, HIDDEN, bias=False),
                                       torch.nn.Linear(HIDDEN, HIDDEN, bias=False),
                                       torch.nn.Linear(HIDDEN, 10, bias=False)])
        self.bn = torch.nn.ModuleList([torch.nn.BatchNorm1d(HIDDEN), torch.nn.BatchNorm1d(HIDDEN)])

    def forward(self, x):  # x: UINT4 values as floats
        for i in range(2):
            w, _, _ = ternary(self.fc[i].weight)
            x = act2(self.bn[i](torch.nn.functional.linear(x, w)))
        w, _, _ = ternary(self.fc[2].weight)
        return torch.nn.functional.linear(x, w)


def fit(model, xt, yt, epochs):
    """Adam at 0.01 on batches of 100 in a fresh random order each epoch; eval mode after."""
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        perm = torch.randperm(TRAIN)
        for i in range(0, TRAIN, 100):
            idx = perm[i:i + 100]
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx]).backward()
            opt.step()
    model.eval()
    return model


def train(x, y):
    model = Tfc()
    return fit(model, torch.tensor(x[:TRAIN], dtype=torch.float32), torch.tensor(y[:TRAIN]), 80)


def thresholds_for(bn, alpha, bound):
    """Thresholds [out][3] folding scale alpha and batch norm `bn` into y = a * acc + b, and the
    channels (a < 0) whose weights must be negated for them; `bound` exceeds any |acc|."""
    sigma = torch.sqrt(bn.running_var + bn.eps).double().numpy()
    gamma = bn.weight.detach().double().numpy()
    a = gamma * alpha / sigma  # the input scale is 1: UINT4 and UINT2 values
    b = bn.bias.detach().double().numpy() - gamma * bn.running_mean.double().numpy() / sigma
    t = np.zeros((len(a), 3), dtype=np.int64)
    for o in range(len(a)):
        for k in range(1, 4):
            c = k - 0.5 - b[o]
            if a[o] > 0:
                t[o, k - 1] = int(np.ceil(c / a[o]))
            elif a[o] < 0:
                t[o, k - 1] = int(np.ceil(c / -a[o]))
            else:
                t[o, k - 1] = -bound if b[o] >= k - 0.5 else bound
    return t, a < 0


def integer_layers(model):
    """The MVAUs' integer weights [MW][MH] and thresholds [MH][3] (FINN's layouts)."""
    layers = []
    for i in range(3):
        _, q, alpha = ternary(model.fc[i].weight.detach())
        w = q.numpy().astype(np.int64)  # [out][in]
        if i == 2:
            layers.append((w.T.copy(), None))
            continue
        t, flip = thresholds_for(model.bn[i], float(alpha), 64 * 15 + 1)
        w[flip] = -w[flip]
        layers.append((w.T.copy(), t))
    return layers


def numpy_reference(layers, x):
    """The graph's semantics, independently of npusim: integer MVAUs, MultiThreshold, top-1."""
    for w, t in layers:
        acc = x @ w
        x = acc if t is None else (acc[:, :, None] >= t[None, :, :]).sum(axis=2)
    return np.argmax(x, axis=1)  # the first of equal maxima, as LabelSelect keeps it


def node(op, name, inp, out, attrs, inits=()):
    n = helper.make_node(op + "_hls", [inp] + [i for i in inits], [out], name=op + "_hls_" + name,
                         domain="finn.custom_op.fpgadataflow.hls", backend="fpgadataflow",
                         **attrs)
    return n


def export(layers, path):
    nodes, inits = [], []
    stream, in_type = "global_in", "UINT4"
    for i, (w, t) in enumerate(layers):
        mw, mh = w.shape
        names = ["W%d" % i]
        inits.append(helper.make_tensor(names[0], TensorProto.FLOAT, w.shape,
                                        w.astype(np.float32).ravel()))
        if t is not None:
            names.append("T%d" % i)
            inits.append(helper.make_tensor(names[1], TensorProto.FLOAT, t.shape,
                                            t.astype(np.float32).ravel()))
        out_type = "UINT2" if t is not None else "INT32"
        attrs = dict(MW=mw, MH=mh, PE=1, SIMD=1, inputDataType=in_type, weightDataType="INT2",
                     outputDataType=out_type, accDataType="INT32", ActVal=0,
                     binaryXnorMode=0, noActivation=0 if t is not None else 1,
                     numInputVectors=[1], mem_mode="internal_decoupled", ram_style="auto",
                     resType="lut")
        out = "act%d" % i
        nodes.append(node("MVAU", str(i), stream, out, attrs, names))
        stream, in_type = out, out_type
    nodes.append(node("LabelSelect", "0", stream, "global_out",
                      dict(Labels=10, PE=1, K=1, inputDataType="INT32",
                           outputDataType="UINT4")))
    graph = helper.make_graph(
        nodes, "tfc_digits",
        [helper.make_tensor_value_info("global_in", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("global_out", TensorProto.FLOAT, [1, 1])], inits)
    for name, dt in (("global_in", "UINT4"), ("global_out", "UINT4")):
        a = onnx.TensorAnnotation()
        a.tensor_name = name
        kv = a.quant_parameter_tensor_names.add()
        kv.key, kv.value = "finn_datatype", dt
        graph.quantization_annotation.append(a)
    save_finn_model(graph, "npusim scripts/train_finn_tfc.py", path)


def save_finn_model(graph, producer, path):
    """The graph as a model of opset 11 and FINN's HLS layer domain, IR version 8."""
    model = helper.make_model(graph, producer_name=producer,
                              opset_imports=[helper.make_opsetid("", 11),
                                             helper.make_opsetid(
                                                 "finn.custom_op.fpgadataflow.hls", 1)])
    model.ir_version = 8
    onnx.save(model, path)


def main(out_dir):
    x, y = data()
    model = train(x, y)
    xt = torch.tensor(x[TRAIN:], dtype=torch.float32)
    with torch.no_grad():
        qat = (model(xt).argmax(1).numpy() == y[TRAIN:]).mean()
    layers = integer_layers(model)
    pred = numpy_reference(layers, x[TRAIN:])
    acc = (pred == y[TRAIN:]).mean()
    os.makedirs(out_dir, exist_ok=True)
    export(layers, os.path.join(out_dir, "tfc_digits.onnx"))
    folding = {"MVAU_hls_0": {"PE": 16, "SIMD": 16}, "MVAU_hls_1": {"PE": 16, "SIMD": 16},
               "MVAU_hls_2": {"PE": 10, "SIMD": 4}, "LabelSelect_hls_0": {"PE": 1}}
    with open(os.path.join(out_dir, "folding.json"), "w") as f:
        json.dump(folding, f, indent=2)
        f.write("\n")
    np.save(os.path.join(out_dir, "test_inputs.npy"), x[TRAIN:].astype(np.uint8))
    np.save(os.path.join(out_dir, "test_labels.npy"), y[TRAIN:].astype(np.int32))
    np.save(os.path.join(out_dir, "reference_outputs.npy"), pred.astype(np.int32)[:, None])
    n = len(pred)
    print("QAT (PyTorch) accuracy on the %d held-out digits: %.2f %%" % (n, 100 * qat))
    print("integer graph (NumPy) accuracy: %d/%d = %.2f %%" % ((pred == y[TRAIN:]).sum(), n,
                                                              100 * acc))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/networks/finn")
