#!/usr/bin/python3
"""Exports two 320x240 face detectors with the structure of the public "Ultra-Light-Fast-Generic-
Face-Detector-1MB" models (version-slim-320 and version-RFB-320, as their paper and README describe
them), written from that description with random weights, as their ONNX export runs them: the
SSD head's post-processing inside the graph (soft-max over the two classes; the prior-box decode
of the locations with centre variance 0.1 and size variance 0.2, then centre form to corner form),
every BatchNormalization kept, opset 9 (Slice with attributes) as the public files use:
    tests/platforms/k210/compiler/data/ultraface_slim_320.onnx   a stride-2 stem, 12 depthwise-separable blocks, an extra
                                         1x1 + separable stride-2 layer, four heads (40x30, 20x15,
                                         10x8, 5x4; 3, 2, 2, 3 anchors: 4420 boxes)
    tests/platforms/k210/compiler/data/ultraface_rfb_320.onnx    the same with a receptive-field block after the 40x30
                                         stage: three branches of 1x1, 3x1/1x3 and dilated 3x3
                                         convolutions concatenated, a 1x1, the shortcut added
                                         after scaling by a constant, ReLU
Outputs: scores 1 x 4420 x 2 and boxes 1 x 4420 x 4 (x1, y1, x2, y2 in [0, 1] of the image).
Weights are random (seed 0), batch-norm statistics drawn so that activations stay in range.
Run with Debian's python3-torch and python3-onnx:
    /usr/bin/python3 scripts/export_ultraface.py
"""
import math
import os

import torch
import torch.nn as nn

from export_bench_detector import draw_bn_statistics

torch.manual_seed(0)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "platforms", "k210", "compiler", "data")

MIN_BOXES = [[10, 16, 24], [32, 48], [64, 96], [128, 192, 256]]
STRIDES = [8, 16, 32, 64]
CENTER_VARIANCE, SIZE_VARIANCE = 0.1, 0.2


def priors(width, height):
    """SSD prior boxes (cx, cy, w, h) over the four feature maps, clamped to [0, 1]."""
    rows = []
    for stride, boxes in zip(STRIDES, MIN_BOXES):
        fw, fh = math.ceil(width / stride), math.ceil(height / stride)
        for j in range(fh):
            for i in range(fw):
                cx, cy = (i + 0.5) / fw, (j + 0.5) / fh
                for b in boxes:
                    rows.append([cx, cy, b / width, b / height])
    return torch.tensor(rows).clamp(0.0, 1.0)


def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


def conv_dw(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
        nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, 1, 0, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def separable(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin), nn.ReLU(),
                         nn.Conv2d(cin, cout, 1))


class BasicConv(nn.Module):
    def __init__(self, cin, cout, kernel, padding=0, dilation=1, relu=True):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, 1, padding, dilation, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True) if relu else None

    def forward(self, x):
        x = self.bn(self.conv(x))
        return self.relu(x) if self.relu is not None else x


class ReceptiveField(nn.Module):
    """Three branches (1x1 then a dilated 3x3; 1x1, 3x1 or 1x3, dilated 3x3), concatenated,
    a 1x1 back to the input's channels, plus the 1x1 shortcut, the sum scaled then ReLU."""

    def __init__(self, cin, cout, scale=1.0):
        super().__init__()
        self.scale = scale
        mid = cin // 8
        self.b0 = nn.Sequential(BasicConv(cin, 2 * mid, 1, relu=False),
                                BasicConv(2 * mid, 2 * mid, 3, padding=2, dilation=2, relu=False))
        self.b1 = nn.Sequential(BasicConv(cin, mid, 1), BasicConv(mid, 2 * mid, (3, 1), (1, 0)),
                                BasicConv(2 * mid, 2 * mid, 3, padding=3, dilation=3,
                                          relu=False))
        self.b2 = nn.Sequential(BasicConv(cin, mid, 1), BasicConv(mid, mid, (1, 3), (0, 1)),
                                BasicConv(mid, 2 * mid, 3, padding=1),
                                BasicConv(2 * mid, 2 * mid, 3, padding=5, dilation=5, relu=False))
        self.linear = BasicConv(6 * mid, cout, 1, relu=False)
        self.shortcut = BasicConv(cin, cout, 1, relu=False)
        self.relu = nn.ReLU(inplace=False)

    def forward(self, x):
        out = torch.cat((self.b0(x), self.b1(x), self.b2(x)), 1)
        out = self.linear(out) * self.scale + self.shortcut(x)
        return self.relu(out)


class UltraFace(nn.Module):
    def __init__(self, rfb, width=320, height=240):
        super().__init__()
        c = 16
        stage1 = [conv_bn(3, c, 2), conv_dw(c, 2 * c, 1), conv_dw(2 * c, 2 * c, 2),
                  conv_dw(2 * c, 2 * c, 1), conv_dw(2 * c, 4 * c, 2), conv_dw(4 * c, 4 * c, 1),
                  conv_dw(4 * c, 4 * c, 1)]
        stage1.append(ReceptiveField(4 * c, 4 * c) if rfb else conv_dw(4 * c, 4 * c, 1))
        self.stage1 = nn.Sequential(*stage1)  # 40 x 30
        self.stage2 = nn.Sequential(conv_dw(4 * c, 8 * c, 2), conv_dw(8 * c, 8 * c, 1),
                                    conv_dw(8 * c, 8 * c, 1))  # 20 x 15
        self.stage3 = nn.Sequential(conv_dw(8 * c, 16 * c, 2), conv_dw(16 * c, 16 * c, 1))
        self.extras = nn.Sequential(nn.Conv2d(16 * c, 4 * c, 1), nn.ReLU(),
                                    separable(4 * c, 16 * c, 2), nn.ReLU())  # 5 x 4
        chans = [4 * c, 8 * c, 16 * c]
        self.cls = nn.ModuleList([separable(ch, len(b) * 2) for ch, b in zip(chans, MIN_BOXES)])
        self.loc = nn.ModuleList([separable(ch, len(b) * 4) for ch, b in zip(chans, MIN_BOXES)])
        self.cls.append(nn.Conv2d(16 * c, len(MIN_BOXES[3]) * 2, 3, padding=1))
        self.loc.append(nn.Conv2d(16 * c, len(MIN_BOXES[3]) * 4, 3, padding=1))
        self.register_buffer("priors", priors(width, height))

    def forward(self, x):
        f1 = self.stage1(x)
        f2 = self.stage2(f1)
        f3 = self.stage3(f2)
        f4 = self.extras(f3)
        scores, locations = [], []
        for i, f in enumerate((f1, f2, f3, f4)):
            s = self.cls[i](f).permute(0, 2, 3, 1).contiguous()
            scores.append(s.view(s.size(0), -1, 2))
            l = self.loc[i](f).permute(0, 2, 3, 1).contiguous()
            locations.append(l.view(l.size(0), -1, 4))
        scores = torch.softmax(torch.cat(scores, 1), dim=2)
        loc = torch.cat(locations, 1)
        p = self.priors.unsqueeze(0)
        boxes = torch.cat([loc[..., :2] * CENTER_VARIANCE * p[..., 2:] + p[..., :2],
                           torch.exp(loc[..., 2:] * SIZE_VARIANCE) * p[..., 2:]], 2)
        boxes = torch.cat([boxes[..., :2] - boxes[..., 2:] / 2,
                           boxes[..., :2] + boxes[..., 2:] / 2], 2)
        return scores, boxes


def export(model, name):
    draw_bn_statistics(model)
    model.eval()
    path = os.path.normpath(os.path.join(OUT, name))
    torch.onnx.export(model, torch.rand(1, 3, 240, 320), path, opset_version=9,
                      input_names=["input"], output_names=["scores", "boxes"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    print("wrote", path)


def main():
    export(UltraFace(rfb=False), "ultraface_slim_320.onnx")
    export(UltraFace(rfb=True), "ultraface_rfb_320.onnx")


if __name__ == "__main__":
    main()
