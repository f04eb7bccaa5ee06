#include "sim/core/digest.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include "sim/core/error.h"

namespace npu::sim {

std::string sha256_hex(const void* data, size_t n) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(data, n, md, &len, EVP_sha256(), nullptr) != 1 || len != 32) {
        throw Error("SHA-256: OpenSSL's EVP_Digest failed");
    }
    std::string hex;
    hex.reserve(64);
    for (unsigned int i = 0; i < len; ++i) {
        fmt::format_to(std::back_inserter(hex), "{:02x}", md[i]);
    }
    return hex;
}

}  // namespace npu::sim
