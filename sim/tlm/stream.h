// A stream channel between two dataflow processes (AXI-Stream style: a FIFO of `depth` words with
// ready/valid back-pressure), timed by timestamps instead of by waits: each process keeps its own
// cycle count in one clock domain and passes it to write()/read(); a word can be read no earlier
// than it was written (the reader stalls until then), and a word can be written no earlier than
// the word `depth` places before it was read (the writer stalls until a slot is free). A process
// blocks in SystemC only when the other side has not yet got that far in simulation order (the
// FIFO is full or empty in event order), never per word, so a design of such processes runs as
// coroutines and its cycle counts are exact for the timestamps it is given. Statistics: words,
// each side's stall cycles, and the largest occupancy. docs/finn.md, "Streams".
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

namespace npu::sim {

struct StreamStats {
    uint64_t words = 0;
    uint64_t write_stall_cycles = 0;  // the writer waited for a free slot (back-pressure)
    uint64_t read_stall_cycles = 0;   // the reader waited for a word
    uint64_t max_occupancy = 0;       // words in the FIFO just after a write, at its time
};

// Words in a FIFO over time from its write and read cycles (each in time order), one point
// (cycle, words) per change: the occupancy at a cycle counts the reads of that cycle before its
// writes, as the stream frees a slot. Its largest value is StreamStats::max_occupancy (the same
// definition; tests/sim/tlm/test_stream.cpp checks the two agree in any event order).
std::vector<std::pair<uint64_t, uint64_t>> occupancy_curve(const std::vector<uint64_t>& writes,
                                                           const std::vector<uint64_t>& reads);

template <typename T>
class Stream : public sc_core::sc_object {
public:
    Stream(const char* name, uint64_t depth, unsigned width_bits)
        : sc_object(name)
        , m_depth(depth == 0 ? 1 : depth)
        , m_width(width_bits) {}

    const char* kind() const override { return "npu_stream"; }
    // Keep every word's write and read cycle (for occupancy over time, e.g. a trace counter).
    void record_times(bool on) { m_record = on; }
    // Keep every word written, in order (a regression compares a layer's output with a reference).
    void keep_values(bool on) { m_keep = on; }
    const std::vector<T>& values() const { return m_values; }
    const std::vector<uint64_t>& write_times() const { return m_write_log; }
    const std::vector<uint64_t>& read_times() const { return m_read_log; }
    uint64_t depth() const { return m_depth; }
    unsigned width_bits() const { return m_width; }

    // In the writer's thread at its cycle `cycle`; on return `cycle` is when the word entered.
    void write(T value, uint64_t& cycle) {
        while (m_written >= m_depth && m_read_times.empty()) {
            sc_core::wait(m_read_event);  // full in event order: let the reader run
        }
        // The slot of the word written `depth` before this one is free from its read time.
        if (m_written >= m_depth) {
            const uint64_t free_at = m_read_times.front();
            m_read_times.pop_front();
            if (free_at > cycle) {
                m_stats.write_stall_cycles += free_at - cycle;
                cycle = free_at;
            }
        }
        if (m_record) {
            m_write_log.push_back(cycle);
        }
        if (m_keep) {
            m_values.push_back(value);
        }
        m_words.push_back({std::move(value), cycle});
        record_occupancy(cycle);
        ++m_written;
        m_write_event.notify(sc_core::SC_ZERO_TIME);
    }

    // In the reader's thread at its cycle `cycle`; on return `cycle` is when the word was taken.
    T read(uint64_t& cycle) {
        while (m_words.empty()) {
            sc_core::wait(m_write_event);  // empty in event order: let the writer run
        }
        Entry e = std::move(m_words.front());
        m_words.pop_front();
        if (e.cycle > cycle) {
            m_stats.read_stall_cycles += e.cycle - cycle;
            cycle = e.cycle;
        }
        settle_occupancy(cycle);
        m_unsettled_reads.push_back(cycle);
        ++m_stats.words;
        m_read_times.push_back(cycle);
        if (m_record) {
            m_read_log.push_back(cycle);
        }
        m_read_event.notify(sc_core::SC_ZERO_TIME);
        return std::move(e.value);
    }

    // The statistics, with every write's occupancy settled (call when the design has finished).
    StreamStats stats() {
        settle_occupancy(UINT64_MAX);
        return m_stats;
    }

private:
    struct Entry {
        T value;
        uint64_t cycle;
    };
    struct Written {
        uint64_t index, cycle;
    };

    // Occupancy just after write k (at cycle w_k) = k + 1 − (reads at a cycle <= w_k): a read frees
    // its slot before a write in the same cycle, so a word read in the cycle it was written never
    // counts. Both sides' cycles grow, but the two threads run in event order, not in cycle order:
    // when write k happens the reader may have run ahead (reads after w_k already done) or lag
    // (reads at or before w_k still to come). Reads at or before a settled write's cycle are
    // counted once in m_reads_before (every later write is at a later or equal cycle); the others
    // wait in m_unsettled_reads. A write is settled at once when a read after its cycle is known,
    // else by the first read after it (every read between was at or before it).
    void record_occupancy(uint64_t cycle) {
        if (!m_unsettled_reads.empty() && m_unsettled_reads.back() > cycle) {
            settle(m_written, cycle);
        } else {
            m_pending_writes.push_back({m_written, cycle});
        }
    }
    void settle_occupancy(uint64_t read_cycle) {
        while (!m_pending_writes.empty() && m_pending_writes.front().cycle < read_cycle) {
            settle(m_pending_writes.front().index, m_pending_writes.front().cycle);
            m_pending_writes.pop_front();
        }
    }
    void settle(uint64_t index, uint64_t cycle) {
        while (!m_unsettled_reads.empty() && m_unsettled_reads.front() <= cycle) {
            m_unsettled_reads.pop_front();
            ++m_reads_before;
        }
        // Reads in this cycle may include words written later in it: only the cycle's last write
        // sees the cycle's whole count, the earlier ones a lower one (or none).
        if (index + 1 > m_reads_before) {
            m_stats.max_occupancy = std::max(m_stats.max_occupancy, index + 1 - m_reads_before);
        }
    }

    uint64_t m_depth;
    unsigned m_width;
    std::deque<Entry> m_words;
    std::deque<uint64_t> m_read_times;       // read cycles of words [written − depth, read)
    std::deque<Written> m_pending_writes;    // writes whose later reads are not known yet
    std::deque<uint64_t> m_unsettled_reads;  // reads after the last settled write's cycle
    uint64_t m_written = 0, m_reads_before = 0;
    StreamStats m_stats;
    bool m_record = false;
    bool m_keep = false;
    std::vector<T> m_values;
    std::vector<uint64_t> m_write_log, m_read_log;
    sc_core::sc_event m_write_event, m_read_event;
};

}  // namespace npu::sim
