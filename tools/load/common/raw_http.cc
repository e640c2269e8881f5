// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/common/raw_http.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace khet {
namespace {

// Milliseconds for poll until `deadline`, at least 0, rounded up.
int PollMillis(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(absl::ToInt64Milliseconds(left)) + 1;
}

bool IsLoopback(const in_addr& address) {
  return (ntohl(address.s_addr) >> 24) == 127;
}

}  // namespace

std::string RawResponse::Header(absl::string_view name) const {
  for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    if (absl::EqualsIgnoreCase(line.substr(0, colon), name)) {
      return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return "";
}

absl::StatusOr<std::unique_ptr<RawConnection>> RawConnection::Open(
    int port, const std::string& from) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("socket: errno ", errno));
  }
  std::unique_ptr<RawConnection> connection(new RawConnection(fd));
  if (!from.empty()) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    if (inet_pton(AF_INET, from.c_str(), &source.sin_addr) != 1 ||
        !IsLoopback(source.sin_addr)) {
      return absl::InvalidArgumentError(
          absl::StrCat("source address \"", from, "\" is not in 127.0.0.0/8"));
    }
    // The port is chosen at connect, for the whole 4-tuple: many sources
    // need not share one range of ports.
    const int one = 1;
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    if (bind(fd, reinterpret_cast<const sockaddr*>(&source), sizeof source) !=
        0) {
      return absl::UnavailableError(
          absl::StrCat("bind to ", from, ": errno ", errno));
    }
  }
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(static_cast<uint16_t>(port));
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&server), sizeof server) !=
          0 &&
      errno != EINPROGRESS) {
    return absl::UnavailableError(absl::StrCat("connect: errno ", errno));
  }
  pollfd p{fd, POLLOUT, 0};
  int error = 0;
  socklen_t size = sizeof error;
  if (poll(&p, 1, 5000) != 1 ||
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0 || error != 0) {
    return absl::UnavailableError(
        absl::StrCat("connect to port ", port, " failed: errno ", error));
  }
  const int one = 1;  // the client's own writes go out at once
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return connection;
}

RawConnection::~RawConnection() { close(fd_); }

bool RawConnection::Send(absl::string_view bytes, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!bytes.empty()) {
    const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return false;
    pollfd p{fd_, POLLOUT, 0};
    if (poll(&p, 1, PollMillis(deadline)) != 1) return false;
    if ((p.revents & (POLLERR | POLLHUP)) != 0) return false;
  }
  return true;
}

int64_t RawConnection::Flood(absl::string_view chunk, int64_t max_bytes,
                             absl::Duration stall) {
  int64_t sent = 0;
  size_t offset = 0;  // into chunk, for a partial write
  while (sent < max_bytes) {
    pollfd p{fd_, POLLIN | POLLOUT, 0};
    const int ready =
        poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(stall)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready != 1 || (p.revents & (POLLIN | POLLERR | POLLHUP)) != 0) break;
    const size_t size =
        std::min<int64_t>(chunk.size() - offset, max_bytes - sent);
    const ssize_t n = send(fd_, chunk.data() + offset, size, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    sent += n;
    offset = (offset + static_cast<size_t>(n)) % chunk.size();
  }
  return sent;
}

int64_t RawConnection::Fill(absl::Time deadline) {
  char chunk[16384];
  while (true) {
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return n;
    }
    if (n == 0) return 0;
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return -1;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, PollMillis(deadline)) == 0) return -2;
  }
}

absl::Status RawConnection::EndError(int64_t result,
                                     absl::string_view what) const {
  const std::string seen = buffer_.substr(0, 200);
  if (result == -2) {
    return absl::DeadlineExceededError(
        absl::StrCat("no ", what, " in time; got \"", seen, "\""));
  }
  return absl::UnavailableError(absl::StrCat(
      "the server ", result == -1 ? "reset" : "closed",
      " the connection before the ", what, "; got \"", seen, "\""));
}

absl::Status RawConnection::FillTo(size_t n, absl::Time deadline,
                                   absl::string_view what) {
  while (buffer_.size() < n) {
    const int64_t result = Fill(deadline);
    if (result <= 0) return EndError(result, what);
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> RawConnection::FillUntil(absl::string_view text,
                                                absl::Time deadline,
                                                absl::string_view what) {
  size_t from = 0;
  while (true) {
    const size_t at = absl::string_view(buffer_).find(text, from);
    if (at != std::string::npos) return at;
    from = buffer_.size() < text.size() ? 0 : buffer_.size() - text.size();
    const int64_t result = Fill(deadline);
    if (result <= 0) return EndError(result, what);
  }
}

void RawConnection::TakeBody(size_t n, int64_t max_body,
                             RawResponse* response) {
  n = std::min(n, buffer_.size());
  const int64_t room = std::max<int64_t>(
      0, max_body - static_cast<int64_t>(response->body.size()));
  response->body.append(buffer_, 0, std::min<int64_t>(room, n));
  response->body_bytes += static_cast<int64_t>(n);
  if (static_cast<int64_t>(n) > room) response->truncated = true;
  buffer_.erase(0, n);
}

absl::StatusOr<RawResponse> RawConnection::ReadHead(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::StatusOr<size_t> end = FillUntil("\r\n\r\n", deadline, "answer");
  if (!end.ok()) return end.status();
  RawResponse response;
  response.head = buffer_.substr(0, *end);
  buffer_.erase(0, *end + 4);
  const std::string first_line =
      response.head.substr(0, response.head.find("\r\n"));
  const std::vector<absl::string_view> status_line =
      absl::StrSplit(first_line, absl::MaxSplits(' ', 2));
  if (status_line.size() < 2 || !absl::StartsWith(status_line[0], "HTTP/") ||
      !absl::SimpleAtoi(status_line[1], &response.status)) {
    return absl::UnavailableError(absl::StrCat(
        "not a status line: \"", response.head.substr(0, 200), "\""));
  }
  const std::string connection =
      absl::AsciiStrToLower(response.Header("Connection"));
  response.keep_alive = status_line[0] == "HTTP/1.0"
                            ? connection == "keep-alive"
                            : connection != "close";
  return response;
}

absl::StatusOr<RawResponse> RawConnection::Read(absl::Duration timeout,
                                                int64_t max_body) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::StatusOr<RawResponse> response = ReadHead(timeout);
  if (!response.ok()) return response;
  if (response->status / 100 == 1 || response->status == 204 ||
      response->status == 304) {
    return response;
  }
  if (absl::EqualsIgnoreCase(response->Header("Transfer-Encoding"),
                             "chunked")) {
    while (true) {
      absl::StatusOr<size_t> line_end = FillUntil("\r\n", deadline, "chunk");
      if (!line_end.ok()) return line_end.status();
      size_t size = 0;
      const std::string size_text = buffer_.substr(0, *line_end);
      if (!absl::SimpleHexAtoi(size_text.substr(0, size_text.find(';')),
                               &size)) {
        return absl::UnavailableError(
            absl::StrCat("bad chunk size \"", size_text, "\""));
      }
      buffer_.erase(0, *line_end + 2);
      if (size == 0) {  // no trailers are expected
        absl::StatusOr<size_t> last = FillUntil("\r\n", deadline, "last chunk");
        if (!last.ok()) return last.status();
        buffer_.erase(0, *last + 2);
        return response;
      }
      while (size > 0) {
        if (buffer_.empty()) {
          if (absl::Status filled = FillTo(1, deadline, "chunk");
              !filled.ok()) {
            return filled;
          }
        }
        const size_t take = std::min(size, buffer_.size());
        TakeBody(take, max_body, &*response);
        size -= take;
      }
      if (absl::Status filled = FillTo(2, deadline, "chunk"); !filled.ok()) {
        return filled;
      }
      buffer_.erase(0, 2);
    }
  }
  const std::string length_text = response->Header("Content-Length");
  if (length_text.empty()) {  // the body ends with the connection
    while (true) {
      TakeBody(buffer_.size(), max_body, &*response);
      const int64_t result = Fill(deadline);
      if (result == 0 || result == -1) break;
      if (result == -2) return EndError(result, "end of the body");
    }
    TakeBody(buffer_.size(), max_body, &*response);
    response->keep_alive = false;
    return response;
  }
  int64_t length = 0;
  if (!absl::SimpleAtoi(length_text, &length) || length < 0) {
    return absl::UnavailableError(
        absl::StrCat("bad Content-Length \"", length_text, "\""));
  }
  while (length > 0) {
    if (buffer_.empty()) {
      if (absl::Status filled = FillTo(1, deadline, "body"); !filled.ok()) {
        return filled;
      }
    }
    const int64_t take = std::min<int64_t>(length, buffer_.size());
    TakeBody(static_cast<size_t>(take), max_body, &*response);
    length -= take;
  }
  return response;
}

Ending RawConnection::WaitForEnd(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    buffer_.clear();
    const int64_t result = Fill(deadline);
    if (result == 0) return Ending::kClosed;
    if (result == -1) return Ending::kReset;
    if (result == -2) return Ending::kOpen;
  }
}

std::string GetRequest(absl::string_view path,
                       absl::string_view extra_headers) {
  return absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                      extra_headers, "\r\n");
}

}  // namespace khet
