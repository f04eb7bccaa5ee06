#include "sim/core/signal_cleanup.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

namespace npu::sim {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kMaxDepth = 32;  // deeper folders are left (a run writes two or three levels)

struct Slot {
    std::atomic<int> used{0};
    unsigned long seq = 0;  // later registrations are removed first
    bool tree = false;
    char path[4096] = {};
};
std::array<Slot, 32> g_slots;
std::atomic<unsigned long> g_seq{0};

// `name` under `dir` and everything in it; only async-signal-safe calls.
void remove_tree_at(int dir, const char* name, int depth) {
    const int fd = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        ::unlinkat(dir, name, 0);  // a file (or a link: never followed)
        return;
    }
    // Entries removed while reading may hide others: read again until a pass removes nothing.
    for (bool removed = true; removed && depth < kMaxDepth;) {
        removed = false;
        ::lseek(fd, 0, SEEK_SET);
        alignas(dirent64) char buf[4096];
        for (ssize_t n; (n = ::getdents64(fd, buf, sizeof buf)) > 0;) {
            for (ssize_t at = 0; at < n;) {
                const auto* e = reinterpret_cast<const dirent64*>(buf + at);
                at += e->d_reclen;
                if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
                    continue;
                }
                if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) {
                    remove_tree_at(fd, e->d_name, depth + 1);
                } else {
                    ::unlinkat(fd, e->d_name, 0);
                }
                removed = true;
            }
        }
    }
    ::close(fd);
    ::unlinkat(dir, name, AT_REMOVEDIR);
}

void on_signal(int sig) {
    const int saved = errno;
    unsigned long below = ~0ul;  // the latest registration first, then each earlier one
    for (;;) {
        Slot* next = nullptr;
        for (Slot& s : g_slots) {
            if (s.used.load() != 0 && s.seq < below && (next == nullptr || s.seq > next->seq)) {
                next = &s;
            }
        }
        if (next == nullptr) {
            break;
        }
        below = next->seq;
        if (next->tree) {
            remove_tree_at(AT_FDCWD, next->path, 0);
        } else {
            ::rmdir(next->path);  // only when empty
        }
    }
    errno = saved;
    ::signal(sig, SIG_DFL);  // then the signal's usual course
    ::raise(sig);
}

}  // namespace

void install_signal_cleanup() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    // One cleanup at a time; the handler's raise() is delivered when it returns, by then with the
    // default action.
    sigemptyset(&sa.sa_mask);
    for (int s : kSignals) {
        sigaddset(&sa.sa_mask, s);
    }
    for (int s : kSignals) {
        struct sigaction old {};
        // A signal the parent ignores (nohup) stays ignored.
        if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) {
            ::sigaction(s, &sa, nullptr);
        }
    }
}

CleanupOnSignal::CleanupOnSignal(const std::string& path, Kind kind) {
    if (path.size() >= sizeof(Slot::path)) {
        return;
    }
    for (size_t i = 0; i < g_slots.size(); ++i) {
        Slot& s = g_slots[i];
        if (s.used.load() != 0) {
            continue;
        }
        std::memcpy(s.path, path.c_str(), path.size() + 1);
        s.tree = kind == Kind::tree;
        s.seq = ++g_seq;
        s.used.store(1);  // last: the handler sees a whole slot or none
        m_slot = static_cast<int>(i);
        return;
    }
}

CleanupOnSignal::~CleanupOnSignal() {
    if (m_slot >= 0) {
        g_slots[static_cast<size_t>(m_slot)].used.store(0);
    }
}

SignalHold::SignalHold() {
    sigset_t held;
    sigemptyset(&held);
    for (int s : kSignals) {
        sigaddset(&held, s);
    }
    ::pthread_sigmask(SIG_BLOCK, &held, &m_old);
}

SignalHold::~SignalHold() {
    ::pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
}

}  // namespace npu::sim
