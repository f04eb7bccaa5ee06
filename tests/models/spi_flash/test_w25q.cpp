// The W25Q128JV as w25qxx.c drives it: its IDs, the status write the demos make to set the quad
// enable bit (ignored without WREN, as on the chip), reads of a loaded image, a page program that
// only clears bits and wraps in its page, erases, and a warning for the quad commands.
#include <gtest/gtest.h>

#include "models/spi_flash/w25q.h"

namespace npu::test {
namespace {

// One command: its bytes out, what came back.
std::vector<uint8_t> command(flash::W25q& f, std::vector<uint8_t> bytes) {
    std::vector<uint8_t> in;
    for (uint8_t b : bytes) {
        in.push_back(f.exchange(b));
    }
    f.deselect();
    return in;
}

TEST(W25q, AnswersWithItsIdsAndStatus) {
    flash::W25q f;
    EXPECT_EQ(command(f, {0x9f, 0, 0, 0}), (std::vector<uint8_t>{0xff, 0xef, 0x40, 0x18}));
    EXPECT_EQ(command(f, {0x90, 0, 0, 0, 0, 0}),
              (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0xef, 0x17}));
    // w25qxx_enable_quad_mode: read SR2, then WREN and WRSR(0x00, SR2 | QE).
    EXPECT_EQ(command(f, {0x35, 0})[1], 0x00);
    command(f, {0x01, 0x00, 0x02});  // without WREN: ignored
    EXPECT_EQ(f.status(2), 0x00);
    command(f, {0x06});
    EXPECT_EQ(command(f, {0x05, 0})[1], 0x02);  // WEL
    command(f, {0x01, 0x00, 0x02});
    EXPECT_EQ(f.status(2), 0x02);
    EXPECT_EQ(command(f, {0x05, 0})[1], 0x00);  // the write cleared WEL
}

TEST(W25q, ReadsProgramsAndErases) {
    flash::W25q f;
    f.load(0xA00000, {1, 2, 3});
    EXPECT_EQ(command(f, {0x03, 0xA0, 0x00, 0x00, 0, 0, 0, 0}),
              (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 1, 2, 3, 0xff}));
    EXPECT_EQ(command(f, {0x0b, 0xA0, 0x00, 0x01, 0, 0, 0})[5], 2);  // fast read: a dummy byte
    command(f, {0x06});
    command(f, {0x02, 0x00, 0x01, 0xff, 0x0f, 0xf0});  // page 0x100: 0xff, then wraps to 0x100
    EXPECT_EQ(f.contents()[0x1ff], 0x0f);
    EXPECT_EQ(f.contents()[0x100], 0xf0);
    command(f, {0x06});
    command(f, {0x02, 0x00, 0x01, 0xff, 0xf0});  // programming only clears bits
    EXPECT_EQ(f.contents()[0x1ff], 0x00);
    command(f, {0x06});
    command(f, {0x20, 0x00, 0x01, 0x23});  // the 4 KiB sector holding 0x123
    EXPECT_EQ(f.contents()[0x1ff], 0xff);
    EXPECT_EQ(f.contents()[0xA00000], 1);
    EXPECT_THROW(f.load(flash::W25q::kBytes - 1, {1, 2}), std::exception);
    command(f, {0x6b, 0, 0, 0, 0, 0});
    ASSERT_EQ(f.warnings().size(), 1u);
    EXPECT_NE(f.warnings()[0].find("0x6b"), std::string::npos);
}

}  // namespace
}  // namespace npu::test
