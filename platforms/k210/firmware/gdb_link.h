// The TCP end of `npusim run --gdb PORT`: listens on 127.0.0.1:PORT, takes one debugger, moves
// bytes (POSIX sockets).
#pragma once

#include <cstdint>
#include <string>

namespace npu::k210 {

class GdbLink {
public:
    // Listens on 127.0.0.1:`port`. Throws sim::Error naming the port when it cannot.
    explicit GdbLink(int port);
    ~GdbLink();
    GdbLink(const GdbLink&) = delete;
    GdbLink& operator=(const GdbLink&) = delete;

    // Blocks until a debugger connects.
    void accept();
    // What the debugger sent: with `wait`, blocks until something comes; "" when nothing came
    // (or, see closed(), the debugger went away).
    std::string receive(bool wait);
    void send(const std::string& bytes);
    bool closed() const { return m_closed; }
    int port() const { return m_port; }

private:
    int m_port;
    int m_listen = -1, m_conn = -1;
    bool m_closed = false;
};

}  // namespace npu::k210
