#include "platforms/k210/firmware/gdb_link.h"

#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/core/error.h"

namespace npu::k210 {

GdbLink::GdbLink(int port)
    : m_port(port) {
    m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(m_listen, 1) != 0) {
        const std::string why = std::strerror(errno);
        if (m_listen >= 0) {
            ::close(m_listen);
        }
        throw sim::Error(
            fmt::format("--gdb {}: cannot listen on 127.0.0.1:{}: {}", port, port, why));
    }
}

GdbLink::~GdbLink() {
    if (m_conn >= 0) {
        ::close(m_conn);
    }
    ::close(m_listen);
}

void GdbLink::accept() {
    m_conn = ::accept(m_listen, nullptr, nullptr);
    if (m_conn < 0) {
        m_closed = true;
        return;
    }
    const int one = 1;
    ::setsockopt(m_conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string GdbLink::receive(bool wait) {
    if (m_closed) {
        return "";
    }
    pollfd p{m_conn, POLLIN, 0};
    if (::poll(&p, 1, wait ? -1 : 0) <= 0) {
        return "";
    }
    char buf[4096];
    const ssize_t n = ::recv(m_conn, buf, sizeof buf, 0);
    if (n <= 0) {
        m_closed = true;
        return "";
    }
    return std::string(buf, static_cast<size_t>(n));
}

void GdbLink::send(const std::string& bytes) {
    size_t done = 0;
    while (!m_closed && done < bytes.size()) {
        const ssize_t n = ::send(m_conn, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (n <= 0) {
            m_closed = true;
        } else {
            done += static_cast<size_t>(n);
        }
    }
}

}  // namespace npu::k210
