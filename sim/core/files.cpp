#include "sim/core/files.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include "sim/core/error.h"

namespace npu::sim {

namespace fs = std::filesystem;

std::vector<uint8_t> read_file(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        throw Error(fmt::format("{}: is a directory, expected a file", path));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(fmt::format("{}: cannot open file: {}", path, std::strerror(errno)));
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (in.bad()) {
        throw Error(fmt::format("{}: read error", path));
    }
    return bytes;
}

std::string read_text_file(const std::string& path) {
    const auto bytes = read_file(path);
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

}  // namespace

OutputDir::OutputDir(fs::path dir)
    : m_dir(std::move(dir)) {
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
    for (const std::string& name : m_files) {
        std::error_code ec;
        fs::rename(m_staging / name, m_dir / name, ec);
        if (ec) {
            throw Error(fmt::format("{}: cannot move {} into place: {}", m_dir.string(), name,
                                    ec.message()));
        }
    }
    for (const std::string& name : m_folders) {
        std::error_code ec;
        if (fs::is_empty(m_staging / name, ec)) {
            continue;
        }
        // An earlier run's folder goes only once the new one can take its place.
        const fs::path old = m_staging / (name + ".old");
        if (fs::exists(m_dir / name, ec)) {
            fs::rename(m_dir / name, old, ec);
        }
        if (!ec) {
            fs::rename(m_staging / name, m_dir / name, ec);
        }
        if (ec) {
            throw Error(fmt::format("{}: cannot move {}/ into place: {}", m_dir.string(), name,
                                    ec.message()));
        }
        m_files.push_back(name + "/");
    }
    m_committed = true;
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
