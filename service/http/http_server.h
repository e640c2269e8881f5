// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// An event-driven HTTP/1.1 server (Boost.Beast's parser on Boost.Asio) for
// the gateway. A few I/O threads serve every connection; a handler answers
// through its HttpExchange from any thread, at any later time, so a request
// that waits (a long poll, an event stream) holds no thread.
//
// What it guards against, each by an option below: headers that never end
// or never stop coming (408, 431), bodies over the limit (413, read no
// further), idle or slow connections (closed on a per-stage clock), too
// many connections from one address or in all (new ones answered 429 or 503
// and closed, older ones unharmed), clients that stop reading a stream
// (cut when their backlog passes its bound). Ranges are never honoured.
// Every response goes out in one write with TCP_NODELAY.
#ifndef KHET_SERVICE_HTTP_HTTP_SERVER_H_
#define KHET_SERVICE_HTTP_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "boost/asio/io_context.hpp"
#include "service/fair_use/client_address.h"
#include "service/http/http_message.h"

namespace khet {

struct HttpServerOptions {
  // Threads running the event loop.
  int io_threads = 2;
  // The request line and headers: at most this many header lines and bytes
  // together; beyond either: 431.
  size_t max_header_count = 100;
  size_t max_header_bytes = 16 * 1024;
  // Largest request body; beyond: 413, and the rest is not read.
  size_t max_body_bytes = 64 * 1024;
  // A request's headers (from its first byte, or from the connection's
  // start) and its body must each arrive within these; else 408 and close.
  absl::Duration header_timeout = absl::Seconds(10);
  absl::Duration body_timeout = absl::Seconds(10);
  // A kept-alive connection idle this long between requests is closed.
  absl::Duration idle_timeout = absl::Seconds(5);
  // One response (or one piece of a stream) must be taken by the client
  // within this; else the connection is closed.
  absl::Duration write_timeout = absl::Seconds(10);
  // Connections at once, in all and from one client address. A new one
  // beyond is answered 503 (in all) or 429 (one address) and closed; with
  // TLS it is closed without an answer (no handshake is spent on it).
  // Sized for 10,000 in-world boards (a long poll each) and others.
  int max_connections = 24000;
  int max_connections_per_address = 64;
  // Beyond max_connections_per_address, connections whose every request
  // carries an in-world object key (X-SecondLife-Object-Key), up to this
  // many from one address in all: a simulator host's boards, each holding
  // a long poll. The key can be forged, so this is all a forger gets; a
  // request without one on such a connection is answered 429 and the
  // connection closed.
  // 10,000 boards behind one simulator host, with room for its other calls;
  // half the server's connections, so a forger leaves the other half.
  int max_inworld_connections_per_address = 12000;
  // The proxies in front of the server (khetd's --trusted_proxies): their
  // connections count toward max_connections alone, not toward either
  // per-address limit. A proxy carries many clients (in front of replicas
  // it holds a connection per waiting board, and web pages' and bots'
  // calls arrive on its connections too); each client is limited by the
  // budgets, under the address its X-Forwarded-For names.
  TrustedProxies trusted_proxies;
  // Bytes of a streamed response waiting for a slow client; beyond, the
  // connection is closed.
  size_t max_stream_backlog = 1 << 20;
  // PEM files; both set: HTTPS only.
  std::string tls_cert_file;
  std::string tls_key_file;
};

// The server's side of one request. Thread-safe.
class HttpExchange {
 public:
  virtual ~HttpExchange() = default;
  virtual const HttpRequest& request() const = 0;

  // Answers the request whole. Once, and not after StartStream. A HEAD
  // request gets the headers alone.
  virtual void Respond(HttpResponse response) = 0;

  // Starts an answer sent in pieces (chunked transfer): `head`'s status and
  // headers now, its body as the first piece if not empty.
  virtual void StartStream(HttpResponse head) = 0;
  // Sends a piece of a started stream; false if the client is gone or its
  // backlog passed max_stream_backlog (the connection is then closed).
  virtual bool Write(std::string piece) = 0;
  // Ends the stream's response.
  virtual void EndStream() = 0;

  // Whether the connection ended before the answer was complete.
  virtual bool gone() const = 0;
  // Runs `on_gone` once when the connection ends before the answer was
  // complete (the client left, a timeout, the server stopping): at once on
  // this thread if it has; otherwise from an I/O thread. Never after the
  // answer completed. `on_gone` must be quick. One callback; a later call
  // replaces it.
  virtual void OnGone(std::function<void()> on_gone) = 0;
};

// Called on an I/O thread for every request read whole; must not block.
using HttpHandler = std::function<void(std::shared_ptr<HttpExchange>)>;
// The answer to a request the server refuses itself (400, 408, 413, 429,
// 431, 503), from `http_status` and the problem; also the place to log it.
// Called on an I/O thread; `request` holds what was read of it (perhaps
// nothing).
using HttpErrorPage = std::function<HttpResponse(
    const HttpRequest& request, int http_status, const absl::Status& problem)>;

class HttpServer {
 public:
  // INVALID_ARGUMENT naming the file when the TLS files cannot be read or
  // do not make a key pair, or only one is given.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Create(
      HttpServerOptions options, HttpHandler handler, HttpErrorPage error_page);
  virtual ~HttpServer() = default;

  // Listens on "host:port" ("[::1]:8080" for IPv6; port 0 picks a free one)
  // and starts the I/O threads; returns the port. INVALID_ARGUMENT for a
  // malformed address, UNAVAILABLE if it cannot listen. At most once.
  virtual absl::StatusOr<int> Start(absl::string_view listen) = 0;

  // Stops accepting and closes idle connections at once; requests in
  // flight may answer (each connection closes after its answer) until
  // `grace` has passed, then every connection is closed (their exchanges
  // are gone) and the threads are joined. Idempotent.
  virtual void Shutdown(absl::Duration grace) = 0;

  // For handlers' timers. Valid until Shutdown returns.
  virtual boost::asio::io_context::executor_type executor() = 0;
  // Connections open now.
  virtual int connections() = 0;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_SERVER_H_
