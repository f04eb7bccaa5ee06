#!/usr/bin/python3
"""Train the project's own small CNN on scikit-learn's handwritten digits and export it as ONNX.

The data: scikit-learn's `load_digits` (1797 real 8x8 greyscale digits, values 0..16, from the
UCI "Optical Recognition of Handwritten Digits" set). Each image is scaled to 0..1 and upsampled
2x (nearest) to 16x16, because a K210 KPU layer needs feature maps of at least 4x4 after its
pooling. The first 1500 images (sklearn's order) train; the last 297 are the held-out test set.

The network is made of what the KPU runs: 3x3 convolutions with batch norm, ReLU and 2x2 max
pooling, a 1x1 convolution, then global average pooling and a small fully connected layer.

Run (Debian 12: apt-get install python3-torch python3-sklearn python3-numpy):
    /usr/bin/python3 scripts/train_digits.py platforms/k210/digits
writes digits_cnn.onnx, test_images.npy (297x1x16x16 float32), test_labels.npy (297 int32),
test_logits.npy (PyTorch's float outputs for them, 297x10) and calib_images.npy (64 training
images, for quantization calibration). Deterministic: fixed seeds,
one thread.
"""
import os
import sys

import numpy as np
import torch
from sklearn.datasets import load_digits

torch.manual_seed(0)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)
np.random.seed(0)

TRAIN = 1500


def data():
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)
    x = x.repeat(2, axis=1).repeat(2, axis=2)[:, None, :, :]  # N x 1 x 16 x 16
    order = np.random.RandomState(0).permutation(len(x))
    return x[order], d.target.astype(np.int64)[order]


class DigitsCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3, padding=1, bias=False),
            torch.nn.BatchNorm2d(8),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),  # 16 -> 8
            torch.nn.Conv2d(8, 16, 3, padding=1, bias=False),
            torch.nn.BatchNorm2d(16),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),  # 8 -> 4
            torch.nn.Conv2d(16, 32, 1),
            torch.nn.ReLU(),
        )
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "platforms/k210/digits"
    os.makedirs(out, exist_ok=True)
    x, y = data()
    xtr, ytr = torch.from_numpy(x[:TRAIN]), torch.from_numpy(y[:TRAIN])
    xte, yte = torch.from_numpy(x[TRAIN:]), torch.from_numpy(y[TRAIN:])
    net = DigitsCnn()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=15, gamma=0.2)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(40):
        net.train()
        perm = torch.randperm(TRAIN)
        for i in range(0, TRAIN, 50):
            idx = perm[i:i + 50]
            opt.zero_grad()
            loss = loss_fn(net(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
        sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xte).argmax(1) == yte).float().mean().item()
        print(f"epoch {epoch + 1:2d}: loss {loss.item():.4f}, test accuracy {acc:.4f}")
    net.eval()
    torch.onnx.export(net, xte[:1], os.path.join(out, "digits_cnn.onnx"), opset_version=11,
                      input_names=["image"], output_names=["logits"], do_constant_folding=True)
    np.save(os.path.join(out, "test_images.npy"), x[TRAIN:])
    np.save(os.path.join(out, "test_labels.npy"), y[TRAIN:].astype(np.int32))
    np.save(os.path.join(out, "calib_images.npy"), x[:64])
    with torch.no_grad():
        np.save(os.path.join(out, "test_logits.npy"), net(xte).numpy().astype(np.float32))
    print(f"float test accuracy {acc:.4f} on {len(yte)} held-out digits; wrote {out}")


if __name__ == "__main__":
    main()
