#include "sim/onnx/samples.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/image.h"
#include "sim/core/npy.h"

namespace npu::onnx {

namespace {

std::vector<std::string> npy_files(const std::string& path) {
    namespace fs = std::filesystem;
    if (!fs::is_directory(path)) {
        return {path};
    }
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(path)) {
        std::string ext = e.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (ext == ".npy" || ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp") {
            files.push_back(e.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        throw sim::Error(path + ": no .npy or image files in this directory");
    }
    return files;
}

bool is_npy(const std::string& f) {
    return f.size() >= 4 && f.compare(f.size() - 4, 4, ".npy") == 0;
}

// An image as one sample of `shape` (1 x C x H x W, C 1 or 3).
onnx::Value image_sample(const std::string& f, const std::vector<int64_t>& shape, double scale) {
    if (shape.size() != 4 || shape[0] != 1 || (shape[1] != 1 && shape[1] != 3)) {
        throw sim::Error(
            fmt::format("{}: an image gives a 1 x 1 or 1 x 3 x H x W input, the model "
                        "takes ({})",
                        f, fmt::join(shape, ", ")));
    }
    sim::Tensor img = sim::read_image(f);
    if (img.dim(2) != shape[2] || img.dim(3) != shape[3]) {
        img = sim::resize_linear(img, shape[2], shape[3]);
    }
    const auto plane = static_cast<size_t>(shape[2] * shape[3]);
    const uint8_t* p = img.data<uint8_t>();
    std::vector<float> v(plane * static_cast<size_t>(shape[1]));
    for (size_t i = 0; i < plane; ++i) {
        if (shape[1] == 1) {
            const double y = 0.299 * p[i] + 0.587 * p[plane + i] + 0.114 * p[2 * plane + i];
            v[i] = static_cast<float>(y * scale);
        } else {
            for (size_t c = 0; c < 3; ++c) {
                v[c * plane + i] = static_cast<float>(p[c * plane + i] * scale);
            }
        }
    }
    return onnx::Value::floats(shape, std::move(v));
}

}  // namespace

std::vector<onnx::Value> read_samples(const std::string& path, const std::vector<int64_t>& shape,
                                      double image_scale) {
    std::vector<onnx::Value> out;
    size_t per = 1;
    for (int64_t d : shape) {
        per *= static_cast<size_t>(d);
    }
    for (const std::string& f : npy_files(path)) {
        if (!is_npy(f)) {
            out.push_back(image_sample(f, shape, image_scale));
            continue;
        }
        const sim::Tensor t = sim::read_npy(f);
        const sim::Shape& s = t.shape();
        const bool one = std::vector<int64_t>(s.begin(), s.end()) == shape;
        const bool batch = !one && s.size() == shape.size() && s.size() > 1 &&
                           std::equal(s.begin() + 1, s.end(), shape.begin() + 1);
        if (!one && !batch) {
            throw sim::Error(
                fmt::format("{}: shape ({}) is neither the model input ({}) nor a "
                            "batch of it",
                            f, fmt::join(s, ", "), fmt::join(shape, ", ")));
        }
        const size_t n = one ? 1 : static_cast<size_t>(s[0]);
        for (size_t i = 0; i < n; ++i) {
            std::vector<float> v(per);
            for (size_t k = 0; k < per; ++k) {
                v[k] = static_cast<float>(t.get_f64(i * per + k));
            }
            out.push_back(onnx::Value::floats(shape, std::move(v)));
        }
    }
    if (out.empty()) {
        throw sim::Error(path + ": no samples (the calibration or input set is empty)");
    }
    return out;
}

std::vector<int64_t> read_labels(const std::string& path) {
    const sim::Tensor t = sim::read_npy(path);
    std::vector<int64_t> v(t.numel());
    for (size_t i = 0; i < v.size(); ++i) {
        v[i] = static_cast<int64_t>(t.get_f64(i));
    }
    return v;
}

}  // namespace npu::onnx
