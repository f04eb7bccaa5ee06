// Writes seed kmodels for fuzz_kmodel into a directory: the bundled demo (v3) and the two chains
// of every CPU layer type and opcode (tests/platforms/k210/kmodel/chain_models.h), so the fuzzer
// starts inside every body reader. usage: fuzz_kmodel_seeds DIR
#include <cstdio>
#include <fstream>
#include <string>

#include "platforms/k210/kmodel/demo_model.h"
#include "tests/platforms/k210/kmodel/chain_models.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_kmodel_seeds DIR\n");
        return 2;
    }
    const auto put = [&](const char* name, const std::vector<uint8_t>& bytes) {
        std::ofstream(std::string(argv[1]) + "/" + name, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
    };
    put("demo_v3.kmodel", npu::k210::build_demo_model().kmodel);
    put("chain_v3.kmodel", npu::test::chain::v3_chain());
    put("chain_v4.kmodel", npu::test::chain::v4_chain());
    return 0;
}
