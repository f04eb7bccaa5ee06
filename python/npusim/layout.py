"""The Kneron KL730 NPU data layouts (`npusim layout`, docs/kl730.md), numpy in and out:

    packed = npusim.layout.to_npu(x, "1W16C8BHL", scale=0.5, radix=3)   # uint8 bytes
    y = npusim.layout.to_onnx(packed, "1W16C8BHL", x.shape, scale=0.5, radix=3)

In this process (no simulation)."""

import os
import tempfile

import numpy as np

from . import _npusim
from ._platform import Error

__all__ = ["to_npu", "to_onnx"]


def _joined(v):
    return ",".join(str(x) for x in v) if isinstance(v, (list, tuple, np.ndarray)) else str(v)


def _shape(shape):
    return ",".join(str(int(d)) for d in shape)


def to_npu(tensor, layout, scale=1, radix=0, axis=None, stride_npu=None):
    """The ONNX tensor (float array) as the NPU's packed bytes (a uint8 array)."""
    x = np.ascontiguousarray(np.asarray(tensor, dtype=np.float32))
    with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
        src, dst = os.path.join(tmp, "tensor.npy"), os.path.join(tmp, "packed.bin")
        np.save(src, x, allow_pickle=False)
        _call("to-npu", layout, x.shape, src, dst, scale, radix, axis, stride_npu, False,
              "<tensor float32 {}>".format(tuple(x.shape)))
        return np.fromfile(dst, dtype=np.uint8)


def to_onnx(packed, layout, shape, scale=1, radix=0, axis=None, stride_npu=None, fixed=False):
    """The NPU's packed bytes back as the ONNX tensor of `shape` (floats; int32 fixed-point
    values with fixed=True)."""
    data = np.ascontiguousarray(np.asarray(packed, dtype=np.uint8))
    with tempfile.TemporaryDirectory(prefix="npusim-") as tmp:
        src, dst = os.path.join(tmp, "packed.bin"), os.path.join(tmp, "tensor.npy")
        data.tofile(src)
        _call("to-onnx", layout, shape, src, dst, scale, radix, axis, stride_npu, fixed,
              "<packed bytes {}>".format(data.size))
        return np.load(dst, allow_pickle=False)


def _call(action, layout, shape, src, dst, scale, radix, axis, stride_npu, fixed, shown):
    try:
        _npusim.layout(action, layout, _shape(shape), src, dst, _joined(scale), _joined(radix),
                       -1 if axis is None else int(axis), _joined(stride_npu or ""), fixed)
    except Error as e:
        raise Error(str(e).replace(src, shown)) from None
