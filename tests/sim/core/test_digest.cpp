// SHA-256 against the published test vectors of FIPS 180-2 (appendix B) and the empty string.
#include <string>

#include <gtest/gtest.h>

#include "sim/core/digest.h"

namespace npu::sim {
namespace {

TEST(Digest, Sha256MatchesFips180Vectors) {
    const std::string abc = "abc";
    EXPECT_EQ(sha256_hex(abc.data(), abc.size()),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    EXPECT_EQ(sha256_hex(two.data(), two.size()),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(nullptr, 0),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace npu::sim
