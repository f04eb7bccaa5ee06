#include "models/aipp/aipp_params.h"

#include <fmt/format.h>

namespace npu::aipp {

const char* format_name(InputFormat f) {
    switch (f) {
    case InputFormat::YUV420SP_U8: return "YUV420SP_U8";
    case InputFormat::XRGB8888_U8: return "XRGB8888_U8";
    case InputFormat::RGB888_U8: return "RGB888_U8";
    case InputFormat::YUV400_U8: return "YUV400_U8";
    }
    return "?";
}

const char* output_type_name(OutputType t) {
    switch (t) {
    case OutputType::u8: return "uint8";
    case OutputType::i8: return "int8";
    case OutputType::f16: return "half";
    }
    return "?";
}

size_t output_bytes(OutputType t) {
    return t == OutputType::f16 ? 2 : 1;
}

Geometry geometry(const Params& p, const LoadParams& l) {
    Geometry g;
    g.vert_size = p.single_line ? 1 : l.vert_size;
    g.top_pad = p.padding_mode == 0 ? 0 : l.top_pad;
    g.bot_pad = p.padding_mode == 0 ? 0 : l.bot_pad;
    g.height = g.vert_size + g.top_pad + g.bot_pad;
    g.width = l.horiz_size + l.left_pad + l.right_pad;
    g.c0 = p.c_padding_mode == 0 ? static_cast<uint32_t>(32 / output_bytes(p.output)) : 4;
    g.channels = !p.csc_enable && p.format == InputFormat::YUV400_U8 ? 1 : 3;
    return g;
}

namespace {

// Bytes per pixel of src0.
uint32_t src0_stride(InputFormat f) {
    switch (f) {
    case InputFormat::RGB888_U8: return 3;
    case InputFormat::XRGB8888_U8: return 4;
    default: return 1;
    }
}

struct Checker {
    std::vector<std::string> problems;
    void range(const char* name, uint64_t v, uint64_t lo, uint64_t hi) {
        if (v < lo || v > hi) {
            problems.push_back(fmt::format("{} is {}, expected {}..{}", name, v, lo, hi));
        }
    }
    void even(const char* name, uint64_t v, const char* why) {
        if (v % 2 != 0) {
            problems.push_back(fmt::format("{} is {}, expected an even value ({})", name, v, why));
        }
    }
    void at_most(const char* name, uint64_t v, const char* limit_name, uint64_t limit,
                 const char* why) {
        if (v > limit) {
            problems.push_back(fmt::format("{} is {}, expected at most {} = {} ({})", name, v,
                                           limit_name, limit, why));
        }
    }
};

}  // namespace

std::vector<std::string> check(const Params& p, const LoadParams& l, uint32_t src_height) {
    Checker c;
    const bool yuv420 = p.format == InputFormat::YUV420SP_U8;
    c.range("paddingMode", p.padding_mode, 0, 3);
    c.range("cPaddingMode", p.c_padding_mode, 0, 1);
    c.range("dtcRoundMode", p.dtc_round_mode, 0, 1);
    c.range("horizSize", l.horiz_size, 2, 4095);
    c.range("vertSize", l.vert_size, 2, 4095);
    c.range("horizStartPos", l.horiz_start, 0, 4095);
    c.range("vertStartPos", l.vert_start, 0, 4095);
    c.range("srcHorizSize", l.src_horiz_size, 2, 4095);
    c.range("topPadSize", l.top_pad, 0, 32);
    c.range("botPadSize", l.bot_pad, 0, 32);
    c.range("leftPadSize", l.left_pad, 0, 32);
    c.range("rightPadSize", l.right_pad, 0, 32);
    c.even("horizStartPos", l.horiz_start, "every input format");
    if (yuv420) {
        c.even("vertStartPos", l.vert_start, "YUV420SP");
        c.even("srcHorizSize", l.src_horiz_size, "YUV420SP");
    }
    const Geometry g = geometry(p, l);
    if (p.padding_mode == 2 || p.padding_mode == 3) {
        const char* why = "padding modes 2 and 3 copy blocks of the image";
        c.at_most("leftPadSize", l.left_pad, "horizSize", l.horiz_size, why);
        c.at_most("rightPadSize", l.right_pad, "horizSize", l.horiz_size, why);
        const char* vname = p.single_line ? "vertSize (1 in single-line mode)" : "vertSize";
        c.at_most("topPadSize", l.top_pad, vname, g.vert_size, why);
        c.at_most("botPadSize", l.bot_pad, vname, g.vert_size, why);
    }
    c.at_most("horizStartPos + horizSize", uint64_t{l.horiz_start} + l.horiz_size, "srcHorizSize",
              l.src_horiz_size, "the crop must lie inside the source rows");
    if (src_height != 0) {
        c.at_most("vertStartPos + vertSize", uint64_t{l.vert_start} + g.vert_size,
                  "the source height", src_height, "the crop must lie inside the source");
    }
    return c.problems;
}

std::vector<std::string> check_source_alignment(const Params& p, uint64_t src0_addr,
                                                uint64_t src1_addr) {
    std::vector<std::string> problems;
    const uint64_t a = p.format == InputFormat::YUV420SP_U8   ? 2
                       : p.format == InputFormat::XRGB8888_U8 ? 4
                                                              : 1;
    if (src0_addr % a != 0) {
        problems.push_back(fmt::format("src0 address is {:#x}, expected a multiple of {} ({})",
                                       src0_addr, a, format_name(p.format)));
    }
    if (p.format == InputFormat::YUV420SP_U8 && src1_addr % 2 != 0) {
        problems.push_back(fmt::format(
            "src1 address is {:#x}, expected a multiple of 2 (YUV420SP_U8)", src1_addr));
    }
    return problems;
}

size_t src0_bytes_needed(const Params& p, const LoadParams& l) {
    const Geometry g = geometry(p, l);
    const uint64_t last_row = uint64_t{l.vert_start} + g.vert_size - 1;
    const uint64_t last_col = uint64_t{l.horiz_start} + l.horiz_size - 1;
    return static_cast<size_t>((last_row * l.src_horiz_size + last_col + 1) *
                               src0_stride(p.format));
}

size_t src1_bytes_needed(const Params& p, const LoadParams& l) {
    if (p.format != InputFormat::YUV420SP_U8) {
        return 0;
    }
    const Geometry g = geometry(p, l);
    const uint64_t last_row = l.vert_start / 2 + (g.vert_size - 1) / 2;
    const uint64_t last_col = l.horiz_start + (l.horiz_size - 1) / 2 * 2 + 1;  // the V byte
    return static_cast<size_t>(last_row * l.src_horiz_size + last_col + 1);
}

}  // namespace npu::aipp
