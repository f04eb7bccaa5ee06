#!/usr/bin/python3
"""Exports tests/platforms/k210/compiler/data/detector.onnx: a small two-scale, SSD-style detector
with two outputs, exported by PyTorch as a user's model would be. A backbone on the KPU (3x3
convolutions, stride 2 by max pooling), then per scale a class head (2 classes x 3 anchors) and a
box head (4 x 3 anchors) as 1x1 convolutions; each head permuted to NHWC and reshaped to one row
per anchor, the two scales concatenated, the class scores soft-maxed per anchor:
    scores (1, 240, 2), boxes (1, 240, 4)   (8 x 8 and 4 x 4 cells, 3 anchors each)
Weights are random (seed 0): the test measures the compiler's agreement with the float model,
not detection quality. Run with Debian's python3-torch:
    /usr/bin/python3 scripts/export_detector.py
"""
import os

import torch
import torch.nn as nn

torch.manual_seed(0)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.c3 = nn.Conv2d(16, 16, 3, padding=1)
        self.cls = nn.ModuleList([nn.Conv2d(16, 2 * 3, 1) for _ in range(2)])
        self.box = nn.ModuleList([nn.Conv2d(16, 4 * 3, 1) for _ in range(2)])

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.c1(x)), 2)   # 16x16
        f1 = nn.functional.max_pool2d(torch.relu(self.c2(x)), 2)  # 8x8
        f2 = nn.functional.max_pool2d(torch.relu(self.c3(f1)), 2)  # 4x4
        scores, boxes = [], []
        for i, f in enumerate((f1, f2)):
            scores.append(self.cls[i](f).permute(0, 2, 3, 1).reshape(1, -1, 2))
            boxes.append(self.box[i](f).permute(0, 2, 3, 1).reshape(1, -1, 4))
        return torch.softmax(torch.cat(scores, 1), dim=-1), torch.cat(boxes, 1)


def main():
    m = Detector().eval()
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "platforms", "k210", "compiler",
                       "data", "detector.onnx")
    torch.onnx.export(m, torch.rand(1, 3, 32, 32), out, opset_version=13,
                      input_names=["image"], output_names=["scores", "boxes"])
    print("wrote", os.path.normpath(out))


if __name__ == "__main__":
    main()
