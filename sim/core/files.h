// File helpers that keep the "written whole or not at all" promise: atomic single-file writes and
// an output directory whose files appear only when the run commits. Pure C++, no SystemC.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/signal_cleanup.h"

namespace npu::sim {

// The most bytes an input file may hold unless its reader says less (4 GiB).
constexpr uint64_t kMaxInputBytes = uint64_t{4} << 30;
// Reads a whole regular file of at most `max_bytes`; throws sim::Error naming the path when it
// cannot be opened or read, is not a regular file (a FIFO, a device, a socket: refused before it
// is opened, never waited on), or holds more (checked before reading and while reading).
std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes = kMaxInputBytes);
std::string read_text_file(const std::string& path, uint64_t max_bytes = kMaxInputBytes);
// The same check alone, for readers that open the file themselves (a library's decoder).
void check_input_file(const std::string& path, uint64_t max_bytes = kMaxInputBytes);

// Writes to "<path>.tmp-<pid>" in the same directory, flushes, then renames over `path`.
// Throws sim::Error (and leaves `path` untouched) on any failure.
void write_file_atomic(const std::string& path, const void* data, size_t size);
void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text_atomic(const std::string& path, std::string_view text);

// `doc` with the text between the markers `begin` and `end` replaced by `text` (a generated
// section of a page, as the fits write theirs); throws sim::Error when the markers are missing.
std::string replace_between(const std::string& doc, const std::string& begin,
                            const std::string& end, const std::string& text);

// The output-folder rule (docs/reports.md "Output folders"): npusim writes into a folder that is
// new, empty, or an output folder of npusim's own — one that holds the list of what npusim wrote
// there (`.npusim-outputs`; a folder of an older npusim: its report.json) — and replaces only the
// names on that list. Anything else in it (a user's files) is never deleted or overwritten.
constexpr const char* kOutputList = ".npusim-outputs";

// What earlier runs wrote in `dir` (its list); throws sim::Error naming what else it holds when
// `dir` exists, is not empty and is not npusim's. A missing or empty `dir`: nothing.
std::vector<std::string> owned_outputs(const std::filesystem::path& dir);
// Makes `dir` (as OutputDir would accept it) and adds `names` to its list: folders a command fills
// outside an OutputDir (a campaign's jobs/, logs/, results/).
void claim_outputs(const std::filesystem::path& dir, const std::vector<std::string>& names);

// The --out DIR convention. Files are staged in a hidden directory inside DIR; commit() moves them
// into DIR all together or none (each earlier output of the same name moved aside first, every
// move undone on a failure). A run that throws before commit() leaves DIR as it was: the
// destructor removes the staging directory, and DIR (with the parents it made) when this OutputDir
// created it. A folder that is not npusim's is refused at construction (owned_outputs), a name
// npusim did not write refused at commit.
class OutputDir {
public:
    explicit OutputDir(std::filesystem::path dir);
    ~OutputDir();
    OutputDir(const OutputDir&) = delete;
    OutputDir& operator=(const OutputDir&) = delete;

    const std::filesystem::path& dir() const { return m_dir; }
    // Where to write `name` (a plain file name) before commit. A name asked for twice is a
    // sim::Error (two outputs with one name: the second would replace the first unseen).
    std::filesystem::path staged(const std::string& name);
    void write_text(const std::string& name, std::string_view text);
    // `name` may also be FOLDER/FILE (plain names): a file in staged_folder(FOLDER).
    void write_bytes(const std::string& name, const std::vector<uint8_t>& bytes);
    // A folder `name` (a plain name) staged as a whole: what is written into it appears as
    // DIR/name at commit (replacing an earlier run's), unless it stays empty.
    std::filesystem::path staged_folder(const std::string& name);
    // Names staged so far, in the order they were first written.
    const std::vector<std::string>& files() const { return m_files; }
    void commit();

private:
    void move_all(const std::vector<std::string>& names, const std::vector<std::string>& present);
    std::filesystem::path m_dir;
    std::filesystem::path m_staging;
    std::vector<std::filesystem::path> m_created;  // made by the constructor, innermost first
    std::vector<std::string> m_files;
    std::vector<std::string> m_folders;
    std::vector<std::string> m_owned;  // what earlier runs wrote here (the folder's list)
    bool m_committed = false;
    // Until the commit: the staging folder and the created folders, removed on SIGINT/SIGTERM.
    std::vector<std::unique_ptr<CleanupOnSignal>> m_on_signal;
};

}  // namespace npu::sim
