// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A byte-level HTTP/1.1 client for the hostile-traffic tests and
// khet-hostile's well-behaved clients: a TCP connection to a loopback port,
// optionally from a chosen loopback source address (127.0.0.N), through
// which the caller writes exactly the bytes it wants (slowly, partly,
// floods) and reads the server's answers with deadlines. Loopback only: it
// refuses any other address.
#ifndef KHET_TOOLS_LOAD_COMMON_RAW_HTTP_H_
#define KHET_TOOLS_LOAD_COMMON_RAW_HTTP_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace khet {

// One answer read from a connection.
struct RawResponse {
  int status = 0;          // from the status line
  std::string head;        // status line and headers, up to the blank line
  std::string body;        // the body, de-chunked; at most the read's cap
  int64_t body_bytes = 0;  // the body's full size, also past the cap
  bool truncated = false;  // the body was larger than the cap
  bool keep_alive = true;  // false with "Connection: close" or HTTP/1.0

  // The value of header `name` (case-insensitive), "" if absent.
  std::string Header(absl::string_view name) const;
};

// How a connection ended, as seen by the client.
enum class Ending {
  kOpen,    // still open when the wait ended
  kClosed,  // the server closed it in order (FIN)
  kReset,   // the server reset it (RST)
};

class RawConnection {
 public:
  // Connects to 127.0.0.1:`port` from `from` ("127.0.0.N"; empty: the
  // kernel's choice), within 5 s. INVALID_ARGUMENT for a source outside
  // 127.0.0.0/8.
  static absl::StatusOr<std::unique_ptr<RawConnection>> Open(
      int port, const std::string& from = "");

  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  ~RawConnection();

  int fd() const { return fd_; }

  // Writes all of `bytes` within `timeout`. False if the server closed or
  // reset the connection, or the time ran out.
  bool Send(absl::string_view bytes, absl::Duration timeout = absl::Seconds(5));

  // Writes `chunk` again and again, up to `max_bytes` in all, until the
  // server answers (something is readable) or stops reading (the write
  // fails or would block for `stall`). Returns the bytes written.
  int64_t Flood(absl::string_view chunk, int64_t max_bytes,
                absl::Duration stall = absl::Seconds(2));

  // Reads one answer within `timeout`, keeping at most `max_body` bytes of
  // its body (the rest is read and counted). The body ends by
  // Content-Length, by the last chunk, or by the close.
  // DEADLINE_EXCEEDED when the time runs out first; UNAVAILABLE when the
  // connection ends before the whole answer came (the message says whether
  // it was closed or reset, and what came).
  absl::StatusOr<RawResponse> Read(absl::Duration timeout,
                                   int64_t max_body = 16 << 20);

  // Reads only the status line and headers of an answer (an event stream's
  // body never ends), with Read's errors.
  absl::StatusOr<RawResponse> ReadHead(absl::Duration timeout);

  // Reads and drops whatever comes until the server ends the connection
  // or `timeout` passes.
  Ending WaitForEnd(absl::Duration timeout);

 private:
  explicit RawConnection(int fd) : fd_(fd) {}

  // Reads what is available into buffer_ within `deadline`; 0 at the end
  // of the stream, -1 on a reset, -2 on timeout, else the bytes read.
  int64_t Fill(absl::Time deadline);
  // Fills buffer_ until it holds `n` bytes; the error names `what`.
  absl::Status FillTo(size_t n, absl::Time deadline, absl::string_view what);
  // Fills buffer_ until it holds `text`; its position.
  absl::StatusOr<size_t> FillUntil(absl::string_view text, absl::Time deadline,
                                   absl::string_view what);
  // The error for an ending (Fill's result) while reading `what`.
  absl::Status EndError(int64_t result, absl::string_view what) const;
  // Moves up to `n` bytes of buffer_ into response->body, within the cap.
  void TakeBody(size_t n, int64_t max_body, RawResponse* response);

  int fd_;
  std::string buffer_;  // read but not yet consumed
};

// One GET request with `extra_headers` (each "Name: value\r\n").
std::string GetRequest(absl::string_view path,
                       absl::string_view extra_headers = "");

}  // namespace khet

#endif  // KHET_TOOLS_LOAD_COMMON_RAW_HTTP_H_
