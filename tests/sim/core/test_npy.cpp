// .npy files. The golden bytes were produced by NumPy 1.24 (Debian python3-numpy):
//   import numpy as np, io; b = io.BytesIO(); np.save(b, a); b.getvalue().hex()
// so these tests check our reader and writer against an independent implementation.
#include <cstdint>
#include <cstdio>

#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/npy.h"

namespace npu::sim {
namespace {

// NumPy's layout: magic, version 1.0, header length, dict padded with spaces to 128 bytes total.
std::vector<uint8_t> numpy_file(const std::string& dict, const std::vector<uint8_t>& data) {
    std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x76, 0};
    std::string h = dict;
    h.append(117 - h.size(), ' ');
    h.push_back('\n');
    out.insert(out.end(), h.begin(), h.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

// np.arange(6, dtype='<i2').reshape(2, 3)
const std::vector<uint8_t> kI16 =
    numpy_file("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }",
               {0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00, 0x05, 0x00});
// np.array([1.5, -2.0], dtype='<f4')
const std::vector<uint8_t> kF32 =
    numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
               {0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0});
// np.array([1.0, 65504.0, 0.1], dtype='<f2')
const std::vector<uint8_t> kF16 =
    numpy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
               {0x00, 0x3c, 0xff, 0x7b, 0x66, 0x2e});
// np.array(7, dtype='i1'), a 0-d array
const std::vector<uint8_t> kScalar =
    numpy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (), }", {0x07});

TEST(Npy, ReadsNumpyFiles) {
    Tensor t = parse_npy(kI16.data(), kI16.size(), "a.npy");
    EXPECT_EQ(t.dtype(), DType::i16);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.data<int16_t>()[5], 5);
    t = parse_npy(kF32.data(), kF32.size(), "b.npy");
    EXPECT_EQ(t.data<float>()[0], 1.5f);
    EXPECT_EQ(t.data<float>()[1], -2.0f);
    t = parse_npy(kF16.data(), kF16.size(), "c.npy");
    EXPECT_EQ(t.get_f64(1), 65504.0);
    t = parse_npy(kScalar.data(), kScalar.size(), "d.npy");
    EXPECT_EQ(t.rank(), 0u);
    EXPECT_EQ(t.data<int8_t>()[0], 7);
}

TEST(Npy, WritesExactlyWhatNumpyWrites) {
    for (const auto* golden : {&kI16, &kF32, &kF16, &kScalar}) {
        const Tensor t = parse_npy(golden->data(), golden->size(), "x.npy");
        EXPECT_EQ(encode_npy(t), *golden);
    }
}

TEST(Npy, RoundTripsEveryDtype) {
    for (DType d : {DType::u8, DType::i8, DType::i16, DType::i32, DType::f16, DType::f32}) {
        Tensor t(d, {3, 1, 5});
        for (size_t i = 0; i < t.numel(); ++i) {
            t.set_f64(i, static_cast<double>(i) - 4.0);
        }
        const auto bytes = encode_npy(t);
        EXPECT_EQ(bytes.size() % 64, t.size_bytes() % 64);  // header padded to 64
        EXPECT_EQ(parse_npy(bytes.data(), bytes.size(), "r.npy"), t) << dtype_name(d);
    }
}

std::string error_of(std::vector<uint8_t> bytes) {
    try {
        parse_npy(bytes.data(), bytes.size(), "in.npy");
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

std::vector<uint8_t> with_dict(const std::string& dict, size_t data_bytes) {
    return numpy_file(dict, std::vector<uint8_t>(data_bytes, 0));
}

TEST(Npy, ClearErrors) {
    EXPECT_EQ(error_of({1, 2, 3}), "in.npy: not a .npy file (expected the magic bytes \\x93NUMPY)");
    auto truncated = kI16;
    truncated.pop_back();
    EXPECT_EQ(error_of(truncated),
              "in.npy: .npy data is 11 bytes, but shape (2, 3) of i16 needs 12 bytes");
    auto trailing = kI16;
    trailing.push_back(0);
    EXPECT_EQ(error_of(trailing),
              "in.npy: .npy data is 13 bytes, but shape (2, 3) of i16 needs 12 bytes");
    EXPECT_EQ(
        error_of(with_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 8)),
        "in.npy: unsupported .npy dtype '<f8': expected uint8, int8, int16, int32, float16 or "
        "float32; convert with .astype(np.float32)");
    EXPECT_EQ(
        error_of(with_dict("{'descr': '>i2', 'fortran_order': False, 'shape': (1,), }", 2)),
        "in.npy: unsupported .npy dtype '>i2': expected uint8, int8, int16, int32, float16 or "
        "float32; big-endian data: convert with .astype(a.dtype.newbyteorder('<'))");
    EXPECT_EQ(error_of(with_dict("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2), }", 8)),
              "in.npy: Fortran-order .npy arrays are not supported: save np.ascontiguousarray(a)");
    EXPECT_EQ(error_of(with_dict("{'descr': '<i2', 'shape': (2, 2), }", 8)),
              "in.npy: invalid .npy header at character 35: header must have the keys 'descr', "
              "'fortran_order' and 'shape'");
    auto v9 = kI16;
    v9[6] = 9;
    EXPECT_EQ(error_of(v9),
              "in.npy: unsupported .npy format version 9.0: expected 1.0, 2.0 or 3.0");
    auto long_header = kI16;
    long_header[8] = 0xff;
    long_header[9] = 0xff;
    EXPECT_EQ(error_of(long_header),
              "in.npy: truncated .npy header: it declares 65535 bytes, the file has 130");
}

// Found by fuzz_npy: a header claiming 10^10 bytes over 4 bytes of data must be refused before
// anything is allocated.
// numpy's default int64 (np.array([-3, 7]), and uint32), as FINN inputs come (issue #38): read as
// int32 where every value fits; a value that does not is one error naming the element.
TEST(Npy, WideIntegersNarrowToInt32WhenTheyFit) {
    const std::string path = ::testing::TempDir() + "npusim-i64.npy";
    const auto save = [&](const char* descr, const std::vector<uint8_t>& data, int n) {
        const std::vector<uint8_t> b =
            numpy_file(std::string("{'descr': '") + descr +
                           "', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }",
                       data);
        write_file_atomic(path, b);
    };
    save("<i8", {0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0, 0, 0, 0, 0}, 2);
    Tensor t = read_npy_narrowing(path);
    EXPECT_EQ(t.dtype(), DType::i32);
    EXPECT_EQ(t.data<int32_t>()[0], -3);
    EXPECT_EQ(t.data<int32_t>()[1], 7);
    EXPECT_THROW(read_npy(path), Error);  // the plain reader still says what to convert
    save("<u4", {0xff, 0xff, 0xff, 0x7f}, 1);
    EXPECT_EQ(read_npy_narrowing(path).data<int32_t>()[0], INT32_MAX);
    save("<i8", {0, 0, 0, 0x80, 0, 0, 0, 0}, 1);  // 2^31
    try {
        read_npy_narrowing(path);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), path +
                                             ": element 0 is 2147483648: outside int32, the "
                                             "widest integer the input is read as");
    }
    std::remove(path.c_str());
}

TEST(Npy, HugeDeclaredShapeIsRefusedWithoutAllocating) {
    const auto bytes = numpy_file(
        "{'descr': '|u1', 'fortran_order': False, 'shape': (100000, 100000), }", {1, 2, 3, 4});
    EXPECT_EQ(
        error_of(bytes),
        "in.npy: .npy data is 4 bytes, but shape (100000, 100000) of u8 needs 10000000000 bytes");
}

TEST(Npy, MissingFileNamesThePath) {
    try {
        read_npy("/nonexistent/in.npy");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "/nonexistent/in.npy: cannot open file: No such file or directory");
    }
}

}  // namespace
}  // namespace npu::sim
