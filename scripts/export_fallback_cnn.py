#!/usr/bin/python3
"""Exports tests/platforms/k210/compiler/data/fallback_cnn.onnx: a small CNN with layers the K210 KPU cannot
run (a 5x5 convolution on the image, a dilated 3x3, a 3x3/2 max pool with padding) between KPU
layers, exported by PyTorch as a user's model would be (Constant nodes for the Clip bounds, Pad +
AveragePool for avg_pool2d). Weights are random (seed 0): the test measures the compiler's
agreement with the float model, not accuracy. Run with Debian's python3-torch:
    /usr/bin/python3 scripts/export_fallback_cnn.py
"""
import os

import torch
import torch.nn as nn

torch.manual_seed(0)


class FallbackCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c5 = nn.Conv2d(3, 8, 5, padding=2)
        self.bn = nn.BatchNorm2d(8)
        self.k1 = nn.Conv2d(8, 16, 3, padding=1)
        self.dil = nn.Conv2d(16, 16, 3, padding=2, dilation=2)
        self.k2 = nn.Conv2d(16, 16, 3, padding=1)
        self.small = nn.Conv2d(16, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.c5(x)))                       # CPU: 5x5
        x = nn.functional.max_pool2d(torch.relu(self.k1(x)), 2)   # KPU + max pool
        x = torch.clamp(self.dil(x), 0, 6)                        # CPU: dilation 2
        x = nn.functional.max_pool2d(x, 3, 2, 1)                  # CPU: 3x3/2, padding 1
        x = nn.functional.avg_pool2d(torch.relu(self.k2(x)), 2)   # KPU + mean pool
        x = torch.relu(self.small(x))                             # KPU, 4x4
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)    # fused global pool
        return self.fc(x)                                         # CPU matmul


def main():
    m = FallbackCnn().eval()
    with torch.no_grad():
        m.bn.running_mean.uniform_(-0.2, 0.2)
        m.bn.running_var.uniform_(0.5, 1.5)
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "platforms", "k210", "compiler",
                       "data", "fallback_cnn.onnx")
    torch.onnx.export(m, torch.rand(1, 3, 32, 32), out, opset_version=13,
                      input_names=["image"], output_names=["logits"])
    print("wrote", os.path.normpath(out))


if __name__ == "__main__":
    main()
