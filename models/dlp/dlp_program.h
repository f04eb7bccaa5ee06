// The DL processor's layer-configuration instruction: one 128-byte little-endian record per
// layer in the instruction region, fetched by the processor over AXI. The toolbox's own LC
// instructions are not public; this record is ours, field by field in docs/dlp.md. Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/dlp/dlp_network.h"

namespace npu::dlp {

constexpr size_t kRecordBytes = 128;
constexpr uint32_t kRecordMagic = 0x4c504c44;  // "DLPL"

// Where a layer's data lives in DDR (32-bit addresses) and how big each piece is.
struct LayerPlacement {
    uint32_t input_addr = 0, input2_addr = 0, output_addr = 0, weight_addr = 0, bias_addr = 0;
    uint64_t input_bytes = 0, input2_bytes = 0, output_bytes = 0, weight_bytes = 0, bias_bytes = 0;
};

struct Record {
    Layer layer;  // kind, geometry, activation, pooling, quantization (no parameters)
    LayerPlacement place;
    bool last = false;             // the network's last layer
    ActShape input;                // the shape of the image(s) read (an fc layer de-formats it)
    bool input_fc_format = false;  // the input image is an fc output (else conv format)
};

std::array<uint8_t, kRecordBytes> encode(const Record& r);
// Decodes and checks a record; returns an empty string or why it is invalid (the processor's
// error status).
std::string decode(const uint8_t* bytes, Record& out);

// The byte counts of a decoded record's placement, from its shapes and the processor config
// (weights and bias by kind and data type, images by format). Returns an empty string, or why the
// record is unusable (a shape whose images or weights would exceed `limit_bytes`).
std::string derive_sizes(Record& r, const DlpConfig& cfg, uint64_t limit_bytes);

// Bytes of a layer's output image in DDR: conv format for conv/adder outputs, fc format (padded
// to FCThreadNumber) for fc outputs; the network input in conv format.
uint64_t image_bytes(const Layer& l, const DlpConfig& cfg);
uint64_t input_image_bytes(const ActShape& s, const DlpConfig& cfg);
// Where each layer's output goes when a concat holds it: the concat's index and the byte offset
// of the layer's image in the concat's image ({-1, 0}: its own image).
struct ConcatSlot {
    int concat = -1;
    uint64_t offset = 0;
};
std::vector<ConcatSlot> concat_slots(const Network& n, const DlpConfig& cfg);

}  // namespace npu::dlp
