// What a run leaves behind when it is interrupted: nothing. The program installs handlers for
// SIGINT, SIGTERM and SIGHUP (install_signal_cleanup); an output folder registers its staging
// folder and the folders it created (OutputDir, files.h) until it commits. On such a signal the
// handler removes what is registered — with open, getdents64, unlinkat and close only, all
// async-signal-safe — and the signal then takes its usual course (the process ends by it; its
// exit status says which). A commit holds the signals while it moves files into place, so an
// interrupt never leaves half of them. Pure C++ (POSIX), no SystemC.
#pragma once

#include <csignal>
#include <string>

namespace npu::sim {

// Once, in the program's main (the Python module leaves Python's own handling alone).
void install_signal_cleanup();

// A path removed on a signal while registered: a whole tree, or a folder only when empty.
class CleanupOnSignal {
public:
    enum class Kind { tree, empty_folder };
    CleanupOnSignal(const std::string& path, Kind kind);
    ~CleanupOnSignal();
    CleanupOnSignal(const CleanupOnSignal&) = delete;
    CleanupOnSignal& operator=(const CleanupOnSignal&) = delete;

private:
    int m_slot = -1;  // -1: every slot was taken (the next run removes a stale staging folder)
};

// SIGINT, SIGTERM and SIGHUP held (blocked) for this object's life: what it guards completes.
class SignalHold {
public:
    SignalHold();
    ~SignalHold();
    SignalHold(const SignalHold&) = delete;
    SignalHold& operator=(const SignalHold&) = delete;

private:
    sigset_t m_old;
};

}  // namespace npu::sim
