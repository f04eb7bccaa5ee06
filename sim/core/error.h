// Errors for npusim: one exception type for the user's fault (bad config, bad file, bad argument),
// and an assertion macro for our own bugs (gem5's fatal/panic split). Pure C++, no SystemC.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace npu::sim {

// A problem the user can fix: the message names the file/key/field/address and what was expected.
// `main` prints what() on one line (or several, for a list of config problems) and exits with 2.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message)
        : std::runtime_error(message) {}

    // Returns a copy whose message is prefixed with `context`: "context: message".
    [[nodiscard]] Error in(std::string_view context) const {
        return Error(fmt::format("{}: {}", context, what()));
    }
};

// Prints "npusim internal error at file:line: expr: message" to stderr and aborts.
[[noreturn]] void assertion_failed(const char* expr, const char* file, int line,
                                   const std::string& message);

}  // namespace npu::sim

// Checks an invariant of the simulator itself. Never use it for user input: throw sim::Error.
#define NPU_ASSERT(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            ::npu::sim::assertion_failed(#cond, __FILE__, __LINE__, fmt::format(__VA_ARGS__)); \
        }                                                                                      \
    } while (0)
