#!/usr/bin/python3
"""Exports tests/bench/data/mobilenet_detector.onnx: a 320x240 face-detector-shaped network for the
speed benchmarks (tests/bench/bench_onnx_peer.cpp), built like the slim detectors K210 users run:
a stride-2 3x3 stem, depthwise-separable blocks (3x3 depthwise + BN + ReLU, 1x1 + BN + ReLU) down
to 1/16 and 1/32 of the image, and at each of those two scales a class head (2 classes x 3
anchors) and a box head (4 x 3 anchors) as depthwise-separable 3x3 convolutions, permuted to NHWC,
reshaped to one row per anchor, concatenated, the scores soft-maxed:
    scores (1, 1140, 2), boxes (1, 1140, 4)    (20 x 15 and 10 x 8 cells, 3 anchors each)
Exported by PyTorch in eval mode (the batch norms folded into the convolutions), as a user's model
would be. Weights are random (seed 0) with the batch-norm statistics drawn too, so that activations
stay in a realistic range. Run with Debian's python3-torch:
    /usr/bin/python3 scripts/export_bench_detector.py
"""
import os

import torch
import torch.nn as nn

torch.manual_seed(0)


def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU())


def dw_sep(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(),
        nn.Conv2d(cin, cout, 1, 1, 0, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


def head(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cin, 3, 1, 1, groups=cin), nn.ReLU(),
                         nn.Conv2d(cin, cout, 1))


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Sequential(                    # 240x320 -> 15x20 (1/16)
            conv_bn(3, 16, 2), dw_sep(16, 32, 1), dw_sep(32, 32, 2), dw_sep(32, 32, 1),
            dw_sep(32, 64, 2), dw_sep(64, 64, 1), dw_sep(64, 64, 1), dw_sep(64, 128, 2),
            dw_sep(128, 128, 1), dw_sep(128, 128, 1))
        self.stage2 = nn.Sequential(dw_sep(128, 192, 2), dw_sep(192, 192, 1))  # 1/32
        self.cls = nn.ModuleList([head(128, 2 * 3), head(192, 2 * 3)])
        self.box = nn.ModuleList([head(128, 4 * 3), head(192, 4 * 3)])

    def forward(self, x):
        f1 = self.stage1(x)
        f2 = self.stage2(f1)
        scores, boxes = [], []
        for i, f in enumerate((f1, f2)):
            scores.append(self.cls[i](f).permute(0, 2, 3, 1).reshape(1, -1, 2))
            boxes.append(self.box[i](f).permute(0, 2, 3, 1).reshape(1, -1, 4))
        return torch.softmax(torch.cat(scores, 1), dim=-1), torch.cat(boxes, 1)


def draw_bn_statistics(model):
    """Random batch-norm statistics and affine parameters, so activations stay in range."""
    for mod in model.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.1, 0.1)
            mod.running_var.uniform_(0.5, 1.5)
            mod.weight.data.uniform_(0.5, 1.5)
            mod.bias.data.uniform_(-0.1, 0.1)


def main():
    m = Detector()
    draw_bn_statistics(m)
    m.eval()
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "bench", "data",
                       "mobilenet_detector.onnx")
    torch.onnx.export(m, torch.rand(1, 3, 240, 320), out, opset_version=13,
                      input_names=["image"], output_names=["scores", "boxes"])
    print("wrote", os.path.normpath(out))


if __name__ == "__main__":
    main()
