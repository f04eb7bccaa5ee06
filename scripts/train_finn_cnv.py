#!/usr/bin/python3
"""Train a small CNV-like convolutional network with quantization-aware training on
scikit-learn's digits and write it as a FINN-ONNX dataflow graph, with an independent NumPy run
of that graph as the reference (the companion of scripts/train_finn_tfc.py, whose data, ternary
weights, 2-bit activations and threshold export it shares).

The network, on the 8x8 digits (UINT4 pixels, one channel, channel-last as FINN streams):
  3x3 conv 1 -> 16 (no padding: 6x6), batch norm, UINT2 activation
  3x3 conv 16 -> 16 (4x4), batch norm, UINT2 activation
  2x2 max pool (2x2x16)
  fully connected 64 -> 10 (INT32 accumulators), LabelSelect top-1
As FINN lowers it: each convolution is a ConvolutionInputGenerator (the sliding window, (kh, kw,
c) order) feeding an MVAU whose weight matrix is [K_h * K_w * C_in, C_out] in that order; the
pool is a StreamingMaxPool; the fully connected layer reads the pooled map channel-last, so its
weight columns are PyTorch's (c, h, w) order permuted to (h, w, c).

Run (Debian 12: python3-torch python3-sklearn python3-numpy python3-onnx):
    /usr/bin/python3 scripts/train_finn_cnv.py configs/networks/finn
writes cnv_digits.onnx, cnv_folding.json, cnv_reference_outputs.npy (297 x 1 int32) and
cnv_test_inputs.npy (297 x 8 x 8 x 1 uint8), and prints the accuracies. Deterministic.
"""
import json
import os
import sys

import numpy as np
import torch
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_finn_tfc import (TRAIN, act2, data, fit, node, save_finn_model,  # noqa: E402
                            ternary, thresholds_for)

torch.manual_seed(0)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)


class Cnv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.ModuleList([torch.nn.Conv2d(1, 16, 3, bias=False),
                                         torch.nn.Conv2d(16, 16, 3, bias=False)])
        self.bn = torch.nn.ModuleList([torch.nn.BatchNorm2d(16), torch.nn.BatchNorm2d(16)])
        self.fc = torch.nn.Linear(64, 10, bias=False)

    def forward(self, x):  # N x 1 x 8 x 8, UINT4 values as floats
        for i in range(2):
            w, _, _ = ternary(self.conv[i].weight)
            x = act2(self.bn[i](torch.nn.functional.conv2d(x, w)))
        x = torch.nn.functional.max_pool2d(x, 2).flatten(1)
        w, _, _ = ternary(self.fc.weight)
        return torch.nn.functional.linear(x, w)


def train(x, y):
    model = Cnv()
    xt = torch.tensor(x[:TRAIN].reshape(-1, 1, 8, 8), dtype=torch.float32)
    return fit(model, xt, torch.tensor(y[:TRAIN]), 60)


def integer_layers(model):
    """MVAU weights [K*K*Cin][Cout] in (kh, kw, c) order with their thresholds, and the FC."""
    layers = []
    for i in range(2):
        _, q, alpha = ternary(model.conv[i].weight.detach())
        w = q.numpy().astype(np.int64)  # [o][c][ky][kx]
        mat = w.transpose(0, 2, 3, 1).reshape(w.shape[0], -1)  # [o][(ky, kx, c)]
        t, flip = thresholds_for(model.bn[i], float(alpha), mat.shape[1] * 15)
        mat[flip] = -mat[flip]
        layers.append((mat.T.copy(), t))
    _, q, _ = ternary(model.fc.weight.detach())
    w = q.numpy().astype(np.int64).reshape(10, 16, 2, 2)  # [o][c][h][w]
    layers.append((w.transpose(0, 2, 3, 1).reshape(10, 64).T.copy(), None))
    return layers


def im2col(x, k):
    """N x H x W x C -> N x OH x OW x (k*k*C), (kh, kw, c) order, no padding, stride 1."""
    n, h, w, c = x.shape
    oh, ow = h - k + 1, w - k + 1
    cols = [x[:, ky:ky + oh, kx:kx + ow, :] for ky in range(k) for kx in range(k)]
    return np.concatenate(cols, axis=3)


def numpy_reference(layers, x):
    for i in range(2):
        w, t = layers[i]
        acc = im2col(x, 3) @ w
        x = (acc[..., None] >= t).sum(axis=-1)
    n, h, w_, c = x.shape
    x = x.reshape(n, h // 2, 2, w_ // 2, 2, c).max(axis=(2, 4)).reshape(n, -1)  # (h, w, c)
    return np.argmax(x @ layers[2][0], axis=1)


def export(layers, path):
    nodes, inits = [], []

    def tensor(name, a):
        inits.append(helper.make_tensor(name, TensorProto.FLOAT, a.shape,
                                        a.astype(np.float32).ravel()))
        return name

    hw = dict(mem_mode="internal_decoupled", ram_style="auto", resType="lut",
              accDataType="INT32", binaryXnorMode=0, ActVal=0, weightDataType="INT2")
    shapes = [(8, 1, "UINT4"), (6, 16, "UINT2")]
    stream = "global_in"
    for i, (w, t) in enumerate(layers[:2]):
        dim, cin, dt = shapes[i]
        nodes.append(node("ConvolutionInputGenerator", str(i), stream, "swg%d" % i,
                          dict(ConvKernelDim=[3, 3], IFMChannels=cin, IFMDim=[dim, dim],
                               OFMDim=[dim - 2, dim - 2], SIMD=1, Stride=[1, 1],
                               Dilation=[1, 1], inputDataType=dt, outputDataType=dt,
                               depthwise=0)))
        nodes.append(node("MVAU", str(i), "swg%d" % i, "conv%d" % i,
                          dict(MW=w.shape[0], MH=w.shape[1], PE=1, SIMD=1, inputDataType=dt,
                               outputDataType="UINT2", noActivation=0,
                               numInputVectors=[1, dim - 2, dim - 2], **hw),
                          [tensor("W%d" % i, w), tensor("T%d" % i, t)]))
        stream = "conv%d" % i
    nodes.append(node("StreamingMaxPool", "0", stream, "pool",
                      dict(ImgDim=[4, 4], PoolDim=[2, 2], NumChannels=16, PE=16,
                           dataType="UINT2", CeilMode=0)))
    w = layers[2][0]
    nodes.append(node("MVAU", "2", "pool", "logits",
                      dict(MW=64, MH=10, PE=1, SIMD=1, inputDataType="UINT2",
                           outputDataType="INT32", noActivation=1, numInputVectors=[1], **hw),
                      [tensor("W2", w)]))
    nodes.append(node("LabelSelect", "0", "logits", "global_out",
                      dict(Labels=10, PE=1, K=1, inputDataType="INT32",
                           outputDataType="UINT4")))
    graph = helper.make_graph(
        nodes, "cnv_digits",
        [helper.make_tensor_value_info("global_in", TensorProto.FLOAT, [1, 8, 8, 1])],
        [helper.make_tensor_value_info("global_out", TensorProto.FLOAT, [1, 1])], inits)
    save_finn_model(graph, "npusim scripts/train_finn_cnv.py", path)


def main(out_dir):
    x, y = data()
    model = train(x, y)
    xt = torch.tensor(x[TRAIN:].reshape(-1, 1, 8, 8), dtype=torch.float32)
    with torch.no_grad():
        qat = (model(xt).argmax(1).numpy() == y[TRAIN:]).mean()
    layers = integer_layers(model)
    test = x[TRAIN:].reshape(-1, 8, 8, 1)
    pred = numpy_reference(layers, test)
    os.makedirs(out_dir, exist_ok=True)
    export(layers, os.path.join(out_dir, "cnv_digits.onnx"))
    folding = {
        "ConvolutionInputGenerator_hls_0": {"SIMD": 1},
        "MVAU_hls_0": {"PE": 2, "SIMD": 9},
        "ConvolutionInputGenerator_hls_1": {"SIMD": 16},
        "MVAU_hls_1": {"PE": 8, "SIMD": 16},
        "MVAU_hls_2": {"PE": 1, "SIMD": 16},
        "LabelSelect_hls_0": {"PE": 1},
    }
    with open(os.path.join(out_dir, "cnv_folding.json"), "w") as f:
        json.dump(folding, f, indent=2)
        f.write("\n")
    np.save(os.path.join(out_dir, "cnv_test_inputs.npy"), test.astype(np.uint8))
    np.save(os.path.join(out_dir, "cnv_reference_outputs.npy"), pred.astype(np.int32)[:, None])
    n = len(pred)
    print("QAT (PyTorch) accuracy on the %d held-out digits: %.2f %%" % (n, 100 * qat))
    print("integer graph (NumPy) accuracy: %d/%d = %.2f %%" % ((pred == y[TRAIN:]).sum(), n,
                                                              100 * (pred == y[TRAIN:]).mean()))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/networks/finn")
