#include "sim/core/files.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include "sim/core/error.h"

namespace npu::sim {

namespace fs = std::filesystem;

void check_input_file(const std::string& path, uint64_t max_bytes) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (fs::is_directory(st)) {
        throw Error(fmt::format("{}: is a directory, expected a file", path));
    }
    if (fs::exists(st) && !fs::is_regular_file(st)) {
        throw Error(
            fmt::format("{}: not a regular file (a device, a FIFO or a socket): npusim reads "
                        "files",
                        path));
    }
    const uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > max_bytes) {
        throw Error(fmt::format("{}: {} bytes, more than the {} this input may hold", path, size,
                                max_bytes));
    }
}

std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes) {
    check_input_file(path, max_bytes);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(fmt::format("{}: cannot open file: {}", path, std::strerror(errno)));
    }
    std::vector<uint8_t> bytes;
    std::vector<char> chunk(1 << 16);
    while (in) {  // bounded while reading too: a file may grow after its size was checked
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const auto got = static_cast<size_t>(in.gcount());
        if (bytes.size() + got > max_bytes) {
            throw Error(
                fmt::format("{}: more than the {} bytes this input may hold", path, max_bytes));
        }
        bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(got));
    }
    if (in.bad()) {
        throw Error(fmt::format("{}: read error", path));
    }
    return bytes;
}

std::string read_text_file(const std::string& path, uint64_t max_bytes) {
    const auto bytes = read_file(path, max_bytes);
    return std::string(bytes.begin(), bytes.end());
}

void write_file_atomic(const std::string& path, const void* data, size_t size) {
    const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) {
        throw Error(fmt::format("{}: cannot create file: {}", path, std::strerror(errno)));
    }
    const bool ok = (size == 0 || std::fwrite(data, 1, size, f) == size) && std::fflush(f) == 0 &&
                    ::fsync(::fileno(f)) == 0;
    const int err = errno;
    std::fclose(f);
    if (!ok) {
        std::remove(tmp.c_str());
        throw Error(fmt::format("{}: write failed: {}", path, std::strerror(err)));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int rerr = errno;
        std::remove(tmp.c_str());
        throw Error(fmt::format("{}: cannot move the finished file into place: {}", path,
                                std::strerror(rerr)));
    }
}

void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
    write_file_atomic(path, bytes.data(), bytes.size());
}

void write_text_atomic(const std::string& path, std::string_view text) {
    write_file_atomic(path, text.data(), text.size());
}

namespace {

// Staging folders of runs that were killed (their process is gone): removed, so a kill -9 leaves
// nothing behind once the next run writes into the same folder.
void remove_stale_staging(const fs::path& dir) {
    std::error_code ec;
    const std::string prefix = ".npusim-staging-";
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0) {
            continue;
        }
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || digits.size() > 9 ||
            digits.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        const auto pid = static_cast<pid_t>(std::stol(digits));
        if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
            std::error_code rec;
            fs::remove_all(it->path(), rec);
        }
    }
}

bool hidden_of_ours(const std::string& name) {
    return name.rfind(".npusim-", 0) == 0;
}

// A plain name on an output list (what staged() and staged_folder() accept).
bool plain_name(const std::string& n) {
    return !n.empty() && n[0] != '.' && n.find('/') == std::string::npos && n.size() < 256;
}

std::vector<std::string> read_list(const fs::path& file) {
    std::error_code ec;
    if (fs::file_size(file, ec) > (1u << 20) || ec) {
        throw Error(fmt::format("{}: not a list of npusim's outputs (over 1 MiB or unreadable)",
                                file.string()));
    }
    std::vector<std::string> names;
    std::istringstream in(read_text_file(file.string()));
    for (std::string line; std::getline(in, line);) {
        if (plain_name(line)) {
            names.push_back(line);
        }
    }
    return names;
}

// A folder an older npusim wrote: its report.json says so in its first bytes.
bool legacy_output(const fs::path& dir) {
    std::ifstream in(dir / "report.json", std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    return head.find("\"npusim-report/") != std::string::npos;
}

void write_list(const fs::path& dir, std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string text;
    for (const std::string& n : names) {
        text += n + "\n";
    }
    write_text_atomic((dir / kOutputList).string(), text);
}

}  // namespace

std::vector<std::string> owned_outputs(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
        return {};
    }
    if (!fs::is_directory(dir, ec)) {
        throw Error(fmt::format("{}: exists and is not a folder", dir.string()));
    }
    std::vector<std::string> others;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!hidden_of_ours(name)) {
            others.push_back(name);
        }
    }
    if (fs::exists(dir / kOutputList, ec)) {
        return read_list(dir / kOutputList);
    }
    if (others.empty()) {
        return {};
    }
    if (legacy_output(dir)) {
        return others;
    }
    std::sort(others.begin(), others.end());
    throw Error(fmt::format(
        "{}: holds files npusim did not write ({}{}): give a new or empty folder, or an earlier "
        "--out of npusim (nothing was written; npusim never deletes what it did not write)",
        dir.string(), others.front(),
        others.size() > 1 ? fmt::format(" and {} more", others.size() - 1) : ""));
}

void claim_outputs(const fs::path& dir, const std::vector<std::string>& names) {
    std::vector<std::string> owned = owned_outputs(dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        throw Error(
            fmt::format("{}: cannot create output directory: {}", dir.string(), ec.message()));
    }
    owned.insert(owned.end(), names.begin(), names.end());
    write_list(dir, owned);
}

OutputDir::OutputDir(fs::path dir)
    : m_dir(std::move(dir))
    , m_owned(owned_outputs(m_dir)) {
    std::error_code ec;
    // The directories this run creates (DIR and missing parents, innermost first): a run that
    // fails removes them again, so DIR is left as it was.
    for (fs::path p = fs::absolute(m_dir, ec); !p.empty() && !fs::exists(p, ec);
         p = p.parent_path()) {
        m_created.push_back(p);
        if (p == p.parent_path()) {
            break;
        }
    }
    fs::create_directories(m_dir, ec);
    if (ec || !fs::is_directory(m_dir)) {
        throw Error(fmt::format("{}: cannot create output directory{}", m_dir.string(),
                                ec ? ": " + ec.message() : ""));
    }
    remove_stale_staging(m_dir);
    m_staging = m_dir / fmt::format(".npusim-staging-{}", ::getpid());
    for (auto it = m_created.rbegin(); it != m_created.rend(); ++it) {  // outermost first
        m_on_signal.push_back(
            std::make_unique<CleanupOnSignal>(it->string(), CleanupOnSignal::Kind::empty_folder));
    }
    m_on_signal.push_back(std::make_unique<CleanupOnSignal>(fs::absolute(m_staging, ec).string(),
                                                            CleanupOnSignal::Kind::tree));
    fs::remove_all(m_staging, ec);
    fs::create_directory(m_staging, ec);
    if (ec) {
        throw Error(fmt::format("{}: cannot create staging directory: {}", m_staging.string(),
                                ec.message()));
    }
}

OutputDir::~OutputDir() {
    std::error_code ec;
    fs::remove_all(m_staging, ec);  // nothing useful to do on failure in a destructor
    if (!m_committed) {
        for (const fs::path& p : m_created) {
            fs::remove(p, ec);  // only when empty: never what someone else put there meanwhile
        }
    }
}

fs::path OutputDir::staged(const std::string& name) {
    NPU_ASSERT(!m_committed, "output directory {} already committed", m_dir.string());
    NPU_ASSERT(name.find('/') == std::string::npos && !name.empty() && name[0] != '.',
               "output file name '{}' must be a plain name", name);
    if (std::find(m_files.begin(), m_files.end(), name) != m_files.end() ||
        std::find(m_folders.begin(), m_folders.end(), name) != m_folders.end()) {
        // Two outputs of one run with one name: the second would replace the first unseen.
        throw Error(fmt::format("{}: two outputs of this run are named {}: nothing written",
                                m_dir.string(), name));
    }
    m_files.push_back(name);
    return m_staging / name;
}

void OutputDir::write_text(const std::string& name, std::string_view text) {
    write_text_atomic(staged(name).string(), text);
}

void OutputDir::write_bytes(const std::string& name, const std::vector<uint8_t>& bytes) {
    const size_t slash = name.find('/');
    if (slash == std::string::npos) {
        write_file_atomic(staged(name).string(), bytes);
        return;
    }
    // FOLDER/FILE: a file in a staged folder (plain names both, one level).
    const std::string folder = name.substr(0, slash), file = name.substr(slash + 1);
    NPU_ASSERT(file.find('/') == std::string::npos && !file.empty() && file[0] != '.',
               "output file name '{}' must be FOLDER/FILE with plain names", name);
    NPU_ASSERT(std::find(m_files.begin(), m_files.end(), folder) == m_files.end(),
               "output folder '{}' is also a file of this run", folder);
    const fs::path path = staged_folder(folder) / file;
    if (fs::exists(path)) {
        throw Error(fmt::format("{}: two outputs of this run are named {}: nothing written",
                                m_dir.string(), name));
    }
    write_file_atomic(path.string(), bytes);
}

fs::path OutputDir::staged_folder(const std::string& name) {
    NPU_ASSERT(!m_committed, "output directory {} already committed", m_dir.string());
    NPU_ASSERT(name.find('/') == std::string::npos && !name.empty() && name[0] != '.',
               "output folder name '{}' must be a plain name", name);
    std::error_code ec;
    fs::create_directory(m_staging / name, ec);
    if (ec) {
        throw Error(
            fmt::format("{}: cannot create {}: {}", m_staging.string(), name, ec.message()));
    }
    if (std::find(m_folders.begin(), m_folders.end(), name) == m_folders.end()) {
        m_folders.push_back(name);
    }
    return m_staging / name;
}

void OutputDir::commit() {
    std::vector<std::string> names = m_files;
    for (const std::string& name : m_folders) {
        std::error_code ec;
        if (!fs::is_empty(m_staging / name, ec)) {
            names.push_back(name);
        }
    }
    std::vector<std::string> present;  // earlier outputs of the same names
    for (const std::string& name : names) {
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(m_dir / name, ec))) {
            continue;
        }
        if (std::find(m_owned.begin(), m_owned.end(), name) == m_owned.end()) {
            throw Error(
                fmt::format("{}: was not written by npusim: nothing written (move it, or "
                            "give another --out)",
                            (m_dir / name).string()));
        }
        present.push_back(name);
    }
    const SignalHold hold;  // an interrupt waits until every output is in place and listed
    move_all(names, present);
    for (const std::string& name : m_folders) {
        if (std::find(names.begin(), names.end(), name) != names.end()) {
            m_files.push_back(name + "/");
        }
    }
    m_owned.insert(m_owned.end(), names.begin(), names.end());
    write_list(m_dir, m_owned);
    m_committed = true;
    // The created folders stay; the staging folder (the old outputs now) is still removed.
    m_on_signal.erase(m_on_signal.begin(), m_on_signal.end() - 1);
}

// The earlier outputs aside (into the staging folder, removed with it), then the new ones in;
// on any failure every move is undone and nothing has changed.
void OutputDir::move_all(const std::vector<std::string>& names,
                         const std::vector<std::string>& present) {
    const fs::path aside = m_staging / ".old";
    std::vector<std::pair<fs::path, fs::path>> done;  // (from, to), in order
    auto undo = [&]() {
        for (auto it = done.rbegin(); it != done.rend(); ++it) {
            std::error_code ec;
            fs::rename(it->second, it->first, ec);
        }
    };
    auto move = [&](const fs::path& from, const fs::path& to, const std::string& name) {
        std::error_code ec;
        fs::rename(from, to, ec);
        if (ec) {
            undo();
            throw Error(fmt::format("{}: cannot move {} into place: {} (nothing written)",
                                    m_dir.string(), name, ec.message()));
        }
        done.emplace_back(from, to);
    };
    std::error_code ec;
    fs::create_directory(aside, ec);
    for (const std::string& name : present) {
        move(m_dir / name, aside / name, name);
    }
    for (const std::string& name : names) {
        move(m_staging / name, m_dir / name, name);
    }
}

std::string replace_between(const std::string& doc, const std::string& begin,
                            const std::string& end, const std::string& text) {
    const size_t b = doc.find(begin), e = doc.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b) {
        throw sim::Error(fmt::format("the document has no {} ... {} section", begin, end));
    }
    const size_t from = b + begin.size();
    return doc.substr(0, from) + "\n" + text + doc.substr(e);
}

}  // namespace npu::sim
