// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A raw HTTP client connection for tests that need byte-level control:
// partial or endless headers, bodies sent slowly or not at all, reading an
// event stream as it arrives. Loopback only; every wait is bounded.
#ifndef KHET_SERVICE_HTTP_TESTING_RAW_CONNECTION_H_
#define KHET_SERVICE_HTTP_TESTING_RAW_CONNECTION_H_

#include <chrono>
#include <string>

namespace khet {

class RawConnection {
 public:
  // Connects to 127.0.0.1:`port` from `source` (any address of 127/8, so a
  // test can appear as several clients) and sends `request`, if any.
  explicit RawConnection(int port, const std::string& request = "",
                         const std::string& source = "127.0.0.1");
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  // Sends all of `text`; false once the server closed or reset.
  bool Send(const std::string& text);
  void Close();

  // Reads until `text` has arrived (true) or `limit` passed or the server
  // closed the connection (false).
  bool WaitFor(const std::string& text,
               std::chrono::milliseconds limit = std::chrono::seconds(5));
  // Reads until the server closes the connection (true) or `limit` passed.
  bool WaitForEnd(std::chrono::milliseconds limit);

  const std::string& received() const { return received_; }
  // Forgets what was received so far.
  void Clear() { received_.clear(); }

 private:
  void Read();

  int fd_ = -1;
  std::string received_;
  bool closed_ = false;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_TESTING_RAW_CONNECTION_H_
