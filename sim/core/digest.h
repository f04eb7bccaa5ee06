// SHA-256 of a byte buffer (OpenSSL's libcrypto), as 64 lower-case hex digits: what report.json
// gives for each dumped tensor, so a user can check a file or their own computation against it.
#pragma once

#include <cstddef>
#include <string>

namespace npu::sim {

std::string sha256_hex(const void* data, size_t n);

}  // namespace npu::sim
