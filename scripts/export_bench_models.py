#!/usr/bin/python3
"""Exports the ONNX models the evaluator's speed is measured on as frameworks export them, with
every BatchNormalization kept as its own node after its convolution (PyTorch's
TrainingMode.PRESERVE on a model in eval mode: the export does not fold them, as exports with
constant folding off, TensorFlow/Caffe converters and quantization-aware flows leave them):
    tests/bench/data/mobilenetv2_bn.onnx   MobileNetV2-style inverted residuals (1x1 expand + BN
                                           + ReLU6, 3x3 depthwise + BN + ReLU6, 1x1 project + BN,
                                           residual Add), 160x160, 10 classes
    tests/bench/data/resnet_bn.onnx        ResNet-style basic blocks (3x3 + BN + ReLU, 3x3 + BN,
                                           1x1 + BN shortcut when the shape changes, Add, ReLU),
                                           128x128, global average pool, 10 classes
    tests/bench/data/detector_bn.onnx      the 320x240 face-detector shape of
                                           export_bench_detector.py (stride-2 stem, depthwise-
                                           separable blocks, class and box heads at 1/16 and 1/32
                                           permuted, reshaped, concatenated, soft-maxed), BNs kept
Weights are random (seed 0), batch-norm statistics drawn too so that activations stay in range.
Run with Debian's python3-torch (and python3-onnx, which the export uses):
    /usr/bin/python3 scripts/export_bench_models.py
"""
import os

import torch
import torch.nn as nn

from export_bench_detector import Detector, draw_bn_statistics  # the same network, BNs kept

torch.manual_seed(0)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "bench", "data")


def bn(c):
    return nn.BatchNorm2d(c)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        mid = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, mid, 1, bias=False), bn(mid), nn.ReLU6(),
            nn.Conv2d(mid, mid, 3, stride, 1, groups=mid, bias=False), bn(mid), nn.ReLU6(),
            nn.Conv2d(mid, cout, 1, bias=False), bn(cout))

    def forward(self, x):
        return x + self.body(x) if self.use_res else self.body(x)


class MobileNetV2(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = [(16, 1, 1, 1), (24, 2, 2, 6), (32, 3, 2, 6), (64, 3, 2, 6), (96, 2, 1, 6),
               (160, 2, 2, 6)]  # (out channels, blocks, first stride, expansion)
        layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), bn(32), nn.ReLU6()]
        cin = 32
        for cout, n, s, t in cfg:
            for i in range(n):
                layers.append(InvertedResidual(cin, cout, s if i == 0 else 1, t))
                cin = cout
        layers += [nn.Conv2d(cin, 320, 1, bias=False), bn(320), nn.ReLU6()]
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(320, 10)

    def forward(self, x):
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), bn(cout),
                                nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(cout, cout, 3, 1, 1, bias=False), bn(cout))
        self.short = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), bn(cout))
                      if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return torch.relu(self.c2(self.c1(x)) + self.short(x))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), bn(32), nn.ReLU()]
        cin = 32
        for cout, stride in [(32, 1), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1),
                             (128, 2)]:
            layers.append(BasicBlock(cin, cout, stride))
            cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, 10)

    def forward(self, x):
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


class DetectorBn(Detector):
    """export_bench_detector.py's detector, its heads reshaped by the batch size read from the
    tensor (x.size(0)), as detector code writes it: the export makes Unsqueeze/Concat chains."""

    def forward(self, x):
        f1 = self.stage1(x)
        f2 = self.stage2(f1)
        scores, boxes = [], []
        for i, f in enumerate((f1, f2)):
            c = self.cls[i](f).permute(0, 2, 3, 1)
            scores.append(c.reshape(c.size(0), -1, 2))
            b = self.box[i](f).permute(0, 2, 3, 1)
            boxes.append(b.reshape(b.size(0), -1, 4))
        return torch.softmax(torch.cat(scores, 1), dim=-1), torch.cat(boxes, 1)


def export(model, shape, name, outputs):
    draw_bn_statistics(model)
    model.eval()
    path = os.path.normpath(os.path.join(OUT, name))
    torch.onnx.export(model, torch.rand(*shape), path, opset_version=13, input_names=["image"],
                      output_names=outputs, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False)
    print("wrote", path)


def main():
    export(MobileNetV2(), (1, 3, 160, 160), "mobilenetv2_bn.onnx", ["logits"])
    export(ResNet(), (1, 3, 128, 128), "resnet_bn.onnx", ["logits"])
    export(DetectorBn(), (1, 3, 240, 320), "detector_bn.onnx", ["scores", "boxes"])


if __name__ == "__main__":
    main()
