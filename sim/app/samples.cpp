#include "sim/app/samples.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/npy.h"

namespace npu::app {

namespace {

std::vector<std::string> npy_files(const std::string& path) {
    namespace fs = std::filesystem;
    if (!fs::is_directory(path)) {
        return {path};
    }
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(path)) {
        if (e.path().extension() == ".npy") {
            files.push_back(e.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        throw sim::Error(path + ": no .npy files in this directory");
    }
    return files;
}

}  // namespace

std::vector<onnx::Value> read_samples(const std::string& path, const std::vector<int64_t>& shape) {
    std::vector<onnx::Value> out;
    size_t per = 1;
    for (int64_t d : shape) {
        per *= static_cast<size_t>(d);
    }
    for (const std::string& f : npy_files(path)) {
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

}  // namespace npu::app
