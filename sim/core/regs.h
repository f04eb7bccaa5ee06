// Registers as firmware sees them: typed bit fields, named registers with access rights, and a
// bank that decodes offsets. Pure C++ (no SystemC); sim/tlm/register_target.h puts a bank on a bus.
// Partial-width and misaligned accesses follow the policy documented in docs/registers.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace npu::sim {

// A bit field of LEN bits at bit OFF of a T. Fields are types, so code says
// `Field<4, 2>::get(v)` once in a named alias rather than `(v >> 4) & 3` everywhere.
template <unsigned OFF, unsigned LEN, typename T = uint64_t>
struct Field {
    static constexpr unsigned kBits = sizeof(T) * 8;
    static_assert(LEN > 0 && OFF + LEN <= kBits, "field does not fit its register");
    using type = T;
    static constexpr unsigned offset = OFF;
    static constexpr unsigned width = LEN;
    static constexpr T max =
        LEN == kBits ? static_cast<T>(~T(0)) : static_cast<T>((T(1) << LEN) - 1);
    static constexpr T MASK = static_cast<T>(max << OFF);

    static constexpr T get(T v) { return static_cast<T>((v & MASK) >> OFF); }
    // Returns v with the field replaced by x; bits of x beyond the field are dropped.
    static constexpr T set(T v, T x) {
        return static_cast<T>((v & static_cast<T>(~MASK)) | (static_cast<T>(x << OFF) & MASK));
    }
    static constexpr bool fits(T x) { return x <= max; }
};

// Sign-extends the low `bits` (1..64) of v: hardware fields such as the KPU's 24-bit arg_x.
constexpr int64_t sign_extend(uint64_t v, unsigned bits) {
    const uint64_t m = uint64_t{1} << (bits - 1);
    const uint64_t low = bits == 64 ? v : v & ((m << 1) - 1);
    return static_cast<int64_t>(low ^ m) - static_cast<int64_t>(m);
}
static_assert(sign_extend(0xffffff, 24) == -1 && sign_extend(0x7fffff, 24) == 0x7fffff);
static_assert(sign_extend(0x800000000ull, 36) == -(int64_t{1} << 35));

enum class Access {
    RW,   // read and write
    RO,   // read only: a write is an access error
    WO,   // write only: a read is an access error
    W1C,  // read; writing 1 to a bit clears it, writing 0 leaves it
    // Write only, read as zero: nothing to read back, and a read is not an error (drivers
    // read-modify-write such registers, e.g. the K210 SDK's DMAC COM_INTCLEAR).
    WO_RAZ,
    // Read only, writes ignored: a write changes nothing and is not an error (a hard-wired field
    // the SDK writes anyway, e.g. PLIC source 0's priority, UARTHS ip).
    RO_WI,
};

// Outcome of a bank access, mapped to TLM responses by sim/tlm/register_target.h.
enum class BankResult {
    OK,
    ADDRESS_ERROR,  // no register at that offset              -> TLM_ADDRESS_ERROR_RESPONSE
    ACCESS_ERROR,   // write to RO / read of WO                -> TLM_COMMAND_ERROR_RESPONSE
    SIZE_ERROR,     // misaligned, spans registers, or partial  -> TLM_BURST_ERROR_RESPONSE
                    // access to a register that forbids it
};

const char* to_string(BankResult r);
const char* to_string(Access a);

// One memory-mapped register of 1, 2, 4 or 8 bytes. Its storage is a uint64_t; bits above its
// size are always zero.
class Register {
public:
    struct Spec {
        std::string name;         // verbatim from the datasheet / SDK
        uint64_t offset = 0;      // declared offset in the bank, in bytes
        unsigned size_bytes = 8;  // 1, 2, 4 or 8
        uint64_t reset = 0;
        Access access = Access::RW;
        uint64_t write_mask = ~uint64_t{0};  // bits a write may change (W1C: may clear)
        bool allow_partial = true;           // narrower aligned accesses allowed?
    };
    // Called with the value a bus read will return (already the stored value); may return another.
    using ReadHook = std::function<uint64_t(uint64_t stored)>;
    // Called after a bus write has been applied, with the full-width value the bus wrote.
    using WriteHook = std::function<void(uint64_t written)>;

    explicit Register(Spec spec);

    const std::string& name() const { return m_spec.name; }
    uint64_t offset() const { return m_spec.offset; }
    unsigned size_bytes() const { return m_spec.size_bytes; }
    Access access() const { return m_spec.access; }
    uint64_t reset_value() const { return m_spec.reset; }
    uint64_t write_mask() const { return m_spec.write_mask; }
    bool allow_partial() const { return m_spec.allow_partial; }

    // Direct access for the model that owns the register (no access checks, no hooks).
    uint64_t value() const { return m_value; }
    void set_value(uint64_t v) { m_value = v & size_mask(); }
    template <typename F>
    uint64_t get() const {
        return F::get(m_value);
    }
    template <typename F>
    void set(uint64_t x) {
        set_value(F::set(m_value, x));
    }
    void reset() { m_value = m_spec.reset & size_mask(); }

    void on_read(ReadHook hook) { m_on_read = std::move(hook); }
    // A read hook without side effects (a computed status): debug reads show its value too.
    void on_read_pure(ReadHook hook) {
        m_on_read = std::move(hook);
        m_pure_read = true;
    }
    // What a debugger sees: the pure read hook's value, else the stored value (a read with an
    // effect, such as a claim or a FIFO pop, is not made).
    uint64_t peek() const { return m_pure_read ? m_on_read(m_value) & size_mask() : m_value; }
    // Bus reads so far, of any register, whose read hook has an effect (not on_read_pure): a CPU
    // polling a device skips turns of its loop only when its reads have none (the firmware hart).
    static uint64_t effectful_reads() { return s_effectful_reads; }
    void on_write(WriteHook hook) { m_on_write = std::move(hook); }

    // Bus-side access, with access rights, write mask, W1C and hooks applied. `data` is the
    // full-width value (partial accesses are merged by the bank first).
    BankResult bus_read(uint64_t& data);
    BankResult bus_write(uint64_t data, uint64_t byte_lanes_mask);

    uint64_t size_mask() const {
        return m_spec.size_bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * m_spec.size_bytes)) - 1;
    }

private:
    Spec m_spec;
    uint64_t m_value = 0;
    ReadHook m_on_read;
    WriteHook m_on_write;
    bool m_pure_read = false;
    inline static uint64_t s_effectful_reads = 0;  // one simulation at a time per process
};

// Decodes offsets to registers. Registers are owned by the model (members); the bank keeps
// pointers. Adding a register that overlaps another, is misaligned, lies outside the bank, or sits
// at an offset other than the declared one (add_consecutive) throws sim::Error.
class RegisterBank {
public:
    RegisterBank(std::string name, uint64_t size_bytes);

    const std::string& name() const { return m_name; }
    uint64_t size_bytes() const { return m_size; }

    // Adds a register at its declared offset.
    void add(Register& reg);
    // Adds registers back to back starting at the first one's declared offset. Each register's
    // declared offset must equal the place it lands (gem5's check): a datasheet transcription error
    // becomes an error at construction, not a silent misdecode.
    // A slot is a register or a reserved hole: add_consecutive({reg_a, Reserved{8}, reg_b}).
    struct Reserved {
        uint64_t size_bytes;
    };
    struct Slot {
        Slot(Register& r)
            : reg(&r) {}  // NOLINT: implicit by design
        Slot(Reserved r)
            : reserved_bytes(r.size_bytes) {}  // NOLINT
        Register* reg = nullptr;
        uint64_t reserved_bytes = 0;
    };
    void add_consecutive(std::initializer_list<Slot> slots);

    // Bus access of `len` bytes (little-endian) at `offset`.
    BankResult read(uint64_t offset, uint8_t* data, size_t len);
    BankResult write(uint64_t offset, const uint8_t* data, size_t len);
    // Debug access: no access checks and no hooks (reads of WO registers return the stored value).
    // Returns the number of bytes transferred (0 where no register is).
    size_t debug_read(uint64_t offset, uint8_t* data, size_t len) const;
    size_t debug_write(uint64_t offset, const uint8_t* data, size_t len);

    void reset();
    const std::vector<Register*>& registers() const { return m_regs; }
    Register* find(uint64_t offset) const;
    // "  0x00  LAYER_ARGUMENT_FIFO  WO  8 B  reset 0x0" lines, in offset order.
    std::string dump() const;

private:
    // Finds the register containing [offset, offset+len) and checks size/alignment policy.
    BankResult decode(uint64_t offset, size_t len, Register*& reg) const;

    std::string m_name;
    uint64_t m_size;
    std::vector<Register*> m_regs;  // sorted by offset
};

}  // namespace npu::sim
