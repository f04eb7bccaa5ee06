// The digits model and its data (this folder: digits_cnn.onnx, calib_images.npy,
// test_images.npy, test_labels.npy), built into the binary by cmake/embed_binary.cmake so that the
// default `npusim run` needs no file at hand; byte-identical to the files here.
#pragma once

#include <cstddef>
#include <vector>

namespace npu::k210 {

struct DigitsBlob {
    const char* name;
    const unsigned char* data;
    size_t size;
};

const std::vector<DigitsBlob>& digits_data();

}  // namespace npu::k210
