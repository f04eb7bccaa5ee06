// Configuration files built into the npusim binary (from configs/), so that the default run needs
// no file at hand. They are byte-identical to the files in the source tree.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace npu::app {

struct EmbeddedFile {
    const char* name;  // file name in configs/, e.g. "selfcheck.yaml"
    const char* text;
};

const std::vector<EmbeddedFile>& embedded_configs();

// The digits model and its data (platforms/k210/digits: digits_cnn.onnx, calib_images.npy,
// test_images.npy, test_labels.npy), byte-identical to the files in the source tree.
struct EmbeddedBlob {
    const char* name;
    const unsigned char* data;
    size_t size;
};
const std::vector<EmbeddedBlob>& embedded_digits();

}  // namespace npu::app
