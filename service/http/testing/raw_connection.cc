// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/testing/raw_connection.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/strings/match.h"

namespace khet {

RawConnection::RawConnection(int port, const std::string& request,
                             const std::string& source) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &local.sin_addr);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0 ||
      ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
          0) {
    Close();
    return;
  }
  timeval timeout{0, 50 * 1000};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  if (!request.empty()) Send(request);
}

RawConnection::~RawConnection() { Close(); }

void RawConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConnection::Send(const std::string& text) {
  size_t sent = 0;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (fd_ >= 0 && sent < text.size() &&
         std::chrono::steady_clock::now() < deadline) {
    const ssize_t n =
        ::send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      return false;
    }
  }
  return sent == text.size();
}

bool RawConnection::WaitFor(const std::string& text,
                            std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!absl::StrContains(received_, text)) {
    if (std::chrono::steady_clock::now() > deadline || closed_) return false;
    Read();
  }
  return true;
}

bool RawConnection::WaitForEnd(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!closed_ && std::chrono::steady_clock::now() < deadline) Read();
  return closed_;
}

void RawConnection::Read() {
  if (fd_ < 0) {
    closed_ = true;
    return;
  }
  char buffer[4096];
  const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
  if (n > 0) received_.append(buffer, static_cast<size_t>(n));
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
    closed_ = true;
  }
}

}  // namespace khet
