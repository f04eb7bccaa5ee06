#include "sim/core/jpeg.h"

#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>
// jpeglib.h first: jerror.h needs its types.
#include <fmt/format.h>
#include <jerror.h>

#include "sim/core/error.h"

namespace npu::sim {

namespace {

// libjpeg reports fatal errors through error_exit, which must not return: jump back to the
// decoder with the message kept. Only plain data lives between setjmp and longjmp.
struct ErrorManager {
    jpeg_error_mgr pub;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    bool truncated;
};

void on_error(j_common_ptr cinfo) {
    auto* e = reinterpret_cast<ErrorManager*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, e->message);
    std::longjmp(e->jump, 1);
}

// Warnings are not printed; a file that ends early (libjpeg fills the rest with gray) is refused.
void on_message(j_common_ptr cinfo) {
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
        reinterpret_cast<ErrorManager*>(cinfo->err)->truncated = true;
    }
}

// Decodes into `hwc` (resized here; `hwc` null: the header alone, for its size); returns "" or the
// reason it failed.
std::string decode(const std::vector<uint8_t>& bytes, std::vector<uint8_t>* hwc, int& width,
                   int& height) {
    jpeg_decompress_struct cinfo{};
    ErrorManager err{};
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = on_error;
    err.pub.output_message = on_message;
    if (setjmp(err.jump) != 0) {
        jpeg_destroy_decompress(&cinfo);
        return err.message;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        jpeg_destroy_decompress(&cinfo);
        return "a CMYK JPEG (expected RGB or grayscale)";
    }
    if (uint64_t{cinfo.image_width} * cinfo.image_height > kMaxImagePixels) {
        jpeg_destroy_decompress(&cinfo);
        return fmt::format("{}x{} pixels is more than the 2^28 accepted", cinfo.image_width,
                           cinfo.image_height);
    }
    if (hwc == nullptr) {
        width = static_cast<int>(cinfo.image_width);
        height = static_cast<int>(cinfo.image_height);
        jpeg_destroy_decompress(&cinfo);
        return "";
    }
    cinfo.out_color_space =
        JCS_RGB;  // the library's defaults otherwise: JDCT_ISLOW, fancy upsampling
    jpeg_start_decompress(&cinfo);
    width = static_cast<int>(cinfo.output_width);
    height = static_cast<int>(cinfo.output_height);
    hwc->resize(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = hwc->data() + size_t{cinfo.output_scanline} * cinfo.output_width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return err.truncated ? "the file ends before the image does (truncated)" : "";
}

}  // namespace

bool is_jpeg(const std::vector<uint8_t>& bytes) {
    return bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
}

Tensor decode_jpeg(const std::vector<uint8_t>& bytes, const std::string& name) {
    std::vector<uint8_t> hwc;
    int w = 0, h = 0;
    const std::string why = decode(bytes, &hwc, w, h);
    if (!why.empty()) {
        throw Error(fmt::format("{}: cannot decode JPEG: {}", name, why));
    }
    Tensor t(DType::u8, {1, 3, h, w});
    const size_t plane = static_cast<size_t>(w) * static_cast<size_t>(h);
    uint8_t* out = t.bytes();
    for (size_t i = 0; i < plane; ++i) {
        for (size_t c = 0; c < 3; ++c) {
            out[c * plane + i] = hwc[3 * i + c];
        }
    }
    return t;
}

void jpeg_size(const std::vector<uint8_t>& bytes, const std::string& name, int& width,
               int& height) {
    const std::string why = decode(bytes, nullptr, width, height);
    if (!why.empty()) {
        throw Error(fmt::format("{}: cannot decode JPEG: {}", name, why));
    }
}

}  // namespace npu::sim
