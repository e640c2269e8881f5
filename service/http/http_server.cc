#include "service/http/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/http/error.hpp"
#include "boost/beast/http/read.hpp"
#include "boost/beast/http/status.hpp"
#include "boost/beast/http/string_body.hpp"
#include "boost/beast/ssl/ssl_stream.hpp"
#include "service/mutex.h"

namespace khet {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using ErrorCode = boost::system::error_code;

std::chrono::nanoseconds Chrono(absl::Duration d) {
  return absl::ToChronoNanoseconds(d);
}

std::string Seconds(absl::Duration d) {
  return absl::StrCat(absl::ToDoubleSeconds(d), " s");
}

std::string ReasonPhrase(int status) {
  if (status == 499) return "Client Closed Request";
  const std::string reason(http::obsolete_reason(
      http::int_to_status(static_cast<unsigned>(status))));
  return reason == "<unknown-status>" ? "Unknown" : reason;
}

// Now as an HTTP date ("Tue, 24 Nov 2026 08:49:37 GMT"), formatted once a
// second per thread.
const std::string& HttpDateNow() {
  thread_local int64_t second = -1;
  thread_local std::string text;
  const absl::Time now = absl::Now();
  if (absl::ToUnixSeconds(now) != second) {
    second = absl::ToUnixSeconds(now);
    text =
        absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", now, absl::UTCTimeZone());
  }
  return text;
}

// The status line and headers of `response` (with the Date every origin
// server with a clock sends); the caller adds the framing header and the
// blank line.
std::string HeadText(const HttpResponse& response, bool keep_alive) {
  std::string text = absl::StrCat("HTTP/1.1 ", response.status, " ",
                                  ReasonPhrase(response.status), "\r\n",
                                  "Date: ", HttpDateNow(), "\r\n");
  if (!response.content_type.empty()) {
    absl::StrAppend(&text, "Content-Type: ", response.content_type, "\r\n");
  }
  for (const auto& [name, value] : response.headers) {
    absl::StrAppend(&text, name, ": ", value, "\r\n");
  }
  absl::StrAppend(&text, "Connection: ", keep_alive ? "keep-alive" : "close",
                  "\r\n");
  return text;
}

// Whether the peer of the TCP socket `fd` has sent its FIN.
bool PeerClosed(int fd) {
  tcp_info info{};
  socklen_t size = sizeof(info);
  return ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) == 0 &&
         info.tcpi_state == TCP_CLOSE_WAIT;
}

// Beast's request parser that also stops at a number of header lines, so
// that a flood of tiny header lines costs at most that many fields, not as
// many as fit in the header bytes.
class RequestParser final : public http::request_parser<http::string_body> {
 public:
  explicit RequestParser(size_t max_lines) : max_lines_(max_lines) {}
  // The parse stopped (header_limit) at one line more than allowed.
  bool too_many_lines() const { return lines_ > max_lines_; }

 private:
  void on_field_impl(http::field name, beast::string_view name_string,
                     beast::string_view value, ErrorCode& ec) override {
    if (++lines_ > max_lines_) {
      ec = http::error::header_limit;
      return;
    }
    get().insert(name, name_string, value);
  }

  const size_t max_lines_;
  size_t lines_ = 0;
};

std::string Chunk(absl::string_view data) {
  char size[20];
  const int n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string out(size, static_cast<size_t>(n));
  out.append(data.data(), data.size());
  out += "\r\n";
  return out;
}

}  // namespace

class ServerImpl;

// What the server keeps of a connection to stop it.
class ConnectionBase {
 public:
  virtual ~ConnectionBase() = default;
  // Closes the connection now if no request is being answered, else after
  // its answer. Called on any thread.
  virtual void StopWhenIdle() = 0;
  // Closes the connection now. Called on any thread.
  virtual void CloseSoon() = 0;
};

class ServerImpl final : public HttpServer {
 public:
  ServerImpl(HttpServerOptions options, HttpHandler handler,
             HttpErrorPage error_page, std::optional<ssl::context> tls)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        error_page_(std::move(error_page)),
        tls_(std::move(tls)),
        acceptor_(net::make_strand(io_)),
        work_(net::make_work_guard(io_)) {}

  ~ServerImpl() override { Shutdown(absl::ZeroDuration()); }

  absl::StatusOr<int> Start(absl::string_view listen) override;
  void Shutdown(absl::Duration grace) override;
  net::any_io_executor executor() override { return io_.get_executor(); }
  int connections() override {
    MutexLock lock(&mu_);
    return total_;
  }

  const HttpServerOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }
  const HttpErrorPage& error_page() const { return error_page_; }
  net::io_context& io() { return io_; }

  // Counts a new connection from `address`: 0 if it may stay, else the
  // status to refuse it with.
  int Admit(const std::string& address);
  void Register(ConnectionBase* connection,
                std::weak_ptr<ConnectionBase> handle);
  void Forget(ConnectionBase* connection, const std::string& address);

 private:
  void Accept();
  template <bool kTls>
  void Serve(tcp::socket socket, const std::string& address);
  void Refuse(tcp::socket socket, int status, const absl::Status& problem);
  // Calls `action` on every open connection.
  void ForEach(void (ConnectionBase::*action)());
  // Waits until no connection is open or `deadline`.
  void WaitForNone(absl::Time deadline);

  const HttpServerOptions options_;
  const HttpHandler handler_;
  const HttpErrorPage error_page_;
  std::optional<ssl::context> tls_;

  // Before io_: handlers that io_ destroys last reach them.
  Mutex mu_;
  CondVar changed_;  // signalled when a connection is forgotten
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  int total_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> per_address_ ABSL_GUARDED_BY(mu_);
  std::map<ConnectionBase*, std::weak_ptr<ConnectionBase>> open_
      ABSL_GUARDED_BY(mu_);

  net::io_context io_;
  tcp::acceptor acceptor_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
};

namespace {

// The exchange of one request, handed to the handler. Its calls go to the
// connection's strand.
template <typename Conn>
class Exchange final : public HttpExchange,
                       public std::enable_shared_from_this<Exchange<Conn>> {
 public:
  Exchange(std::shared_ptr<Conn> connection, HttpRequest request)
      : connection_(std::move(connection)), request_(std::move(request)) {}

  const HttpRequest& request() const override { return request_; }

  void Respond(HttpResponse response) override {
    Post([response = std::move(response)](Conn& c, Exchange* self) mutable {
      c.SendWhole(self, std::move(response));
    });
  }
  void StartStream(HttpResponse head) override {
    Post([head = std::move(head)](Conn& c, Exchange* self) mutable {
      c.SendHead(self, std::move(head));
    });
  }
  bool Write(std::string piece) override {
    if (gone()) return false;
    const std::shared_ptr<Conn> connection = connection_.lock();
    if (connection == nullptr || !connection->AddBacklog(piece.size())) {
      return false;
    }
    Post([piece = std::move(piece)](Conn& c, Exchange* self) mutable {
      c.SendPiece(self, std::move(piece));
    });
    return true;
  }
  void EndStream() override {
    Post([](Conn& c, Exchange* self) { c.SendEnd(self); });
  }

  bool gone() const override { return gone_.load(); }
  void OnGone(std::function<void()> on_gone) override {
    {
      MutexLock lock(&mu_);
      if (!gone_.load()) {
        on_gone_ = std::move(on_gone);
        return;
      }
    }
    on_gone();
  }

  // By the connection: the answer is complete; OnGone never runs now.
  void MarkComplete() {
    MutexLock lock(&mu_);
    complete_ = true;
    on_gone_ = nullptr;
  }
  // By the connection: it ended before the answer was complete.
  void MarkGone() {
    std::function<void()> on_gone;
    {
      MutexLock lock(&mu_);
      if (complete_ || gone_.load()) return;
      gone_ = true;
      on_gone = std::move(on_gone_);
      on_gone_ = nullptr;
    }
    if (on_gone) on_gone();
  }

 private:
  template <typename Action>
  void Post(Action action) {
    std::shared_ptr<Conn> connection = connection_.lock();
    if (connection == nullptr) return;  // closed and gone
    net::any_io_executor executor = connection->executor();
    net::post(executor, [connection = std::move(connection),
                         self = this->shared_from_this(),
                         action = std::move(action)]() mutable {
      action(*connection, self.get());
    });
  }

  // Weak: while an answer is awaited the connection's own pending watch
  // keeps it; an exchange held longer never keeps a closed one (nor the
  // server's event loop) alive.
  const std::weak_ptr<Conn> connection_;
  const HttpRequest request_;
  mutable Mutex mu_;
  std::atomic<bool> gone_{false};
  bool complete_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> on_gone_ ABSL_GUARDED_BY(mu_);
};

// One client connection, plain (kTls false) or TLS. Everything but the
// Exchange's entry points and AddBacklog runs on its strand.
template <bool kTls>
class Connection final : public ConnectionBase,
                         public std::enable_shared_from_this<Connection<kTls>> {
 public:
  using Stream = std::conditional_t<kTls, beast::ssl_stream<beast::tcp_stream>,
                                    beast::tcp_stream>;
  using ThisExchange = Exchange<Connection>;

  template <typename... StreamArgs>
  Connection(ServerImpl* server, std::string address, StreamArgs&&... args)
      : server_(server),
        options_(server->options()),
        address_(std::move(address)),
        stream_(std::forward<StreamArgs>(args)...),
        idle_timer_(stream_.get_executor()),
        stage_timer_(stream_.get_executor()),
        gone_timer_(stream_.get_executor()) {}

  ~Connection() override { ForgetOnce(); }

  net::any_io_executor executor() { return stream_.get_executor(); }

  void Run() {
    if constexpr (kTls) {
      Lowest().expires_after(Chrono(options_.header_timeout));
      stream_.async_handshake(
          ssl::stream_base::server,
          [self = this->shared_from_this()](const ErrorCode& ec) {
            if (ec) return self->Close();
            self->ReadHeader();
          });
    } else {
      ReadHeader();
    }
  }

  void StopWhenIdle() override {
    net::post(executor(), [self = this->shared_from_this()] {
      self->stopping_ = true;
      if (self->exchange_ == nullptr && !self->after_write_close_ &&
          self->out_.empty()) {
        self->Close();
      }
    });
  }
  void CloseSoon() override {
    net::post(executor(), [self = this->shared_from_this()] { self->Close(); });
  }

  // From any thread: counts `bytes` more waiting to be written; false (and
  // the connection is closed) if that passes the bound.
  bool AddBacklog(size_t bytes) {
    if (backlog_.fetch_add(bytes) + bytes > options_.max_stream_backlog) {
      CloseSoon();
      return false;
    }
    return true;
  }

  // The answers, from the Exchange on this strand.
  void SendWhole(ThisExchange* from, HttpResponse response) {
    if (closed_ || from != exchange_.get() || streaming_) return;
    const bool keep_alive = keep_alive_ && !stopping_;
    std::string text = HeadText(response, keep_alive);
    absl::StrAppend(&text, "Content-Length: ", response.body.size(),
                    "\r\n\r\n");
    if (!head_) text += response.body;
    Complete(keep_alive);
    Queue(std::move(text));
  }
  void SendHead(ThisExchange* from, HttpResponse head) {
    if (closed_ || from != exchange_.get() || streaming_) return;
    streaming_ = true;
    std::string text = HeadText(head, keep_alive_ && !head_);
    text += "Transfer-Encoding: chunked\r\n\r\n";
    if (!head.body.empty()) text += Chunk(head.body);
    Queue(std::move(text));
  }
  void SendPiece(ThisExchange* from, std::string piece) {
    if (closed_ || from != exchange_.get() || !streaming_) return;
    backlog_ -= piece.size();
    Queue(Chunk(piece));
  }
  void SendEnd(ThisExchange* from) {
    if (closed_ || from != exchange_.get() || !streaming_) return;
    streaming_ = false;
    Complete(keep_alive_ && !stopping_ && !head_);
    Queue("0\r\n\r\n");
  }

 private:
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  // Waits for the next request of a kept-alive connection at most the idle
  // timeout; the header clock starts with its first byte.
  void ReadNext() {
    if (stopping_) return Close();
    if (buffer_.size() > 0) return ReadHeader();
    idle_timer_.expires_after(Chrono(options_.idle_timeout));
    idle_timer_.async_wait(
        [self = this->shared_from_this()](const ErrorCode& ec) {
          if (!ec) self->Close();
        });
    Lowest().socket().async_wait(
        tcp::socket::wait_read,
        [self = this->shared_from_this()](const ErrorCode& ec) {
          self->idle_timer_.cancel();
          if (ec || self->closed_) return self->Close();
          self->ReadHeader();
        });
  }

  // Reads run on the stage clock, which cancels them without closing so
  // that the client still learns why (408).
  void StartStageClock(absl::Duration limit) {
    timed_out_ = false;
    stage_timer_.expires_after(Chrono(limit));
    stage_timer_.async_wait(
        [self = this->shared_from_this()](const ErrorCode& ec) {
          if (ec || self->closed_) return;
          self->timed_out_ = true;
          ErrorCode ignored;
          self->Lowest().socket().cancel(ignored);
        });
  }

  void ReadHeader() {
    reading_ = true;
    parser_.emplace(options_.max_header_count);
    parser_->header_limit(
        static_cast<std::uint32_t>(options_.max_header_bytes));
    parser_->body_limit(options_.max_body_bytes);
    Lowest().expires_never();
    StartStageClock(options_.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](const ErrorCode& ec, size_t) {
          self->OnHeader(ec);
        });
  }

  void OnHeader(const ErrorCode& ec) {
    stage_timer_.cancel();
    if (closed_) return;
    if (ec) return ReadFailed(ec, options_.header_timeout, "headers");
    if (parser_->is_done()) return Dispatch();
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      Queue("HTTP/1.1 100 Continue\r\n\r\n");
      Lowest().expires_never();  // the body's read runs on the stage clock
    }
    StartStageClock(options_.body_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](const ErrorCode& body_ec, size_t) {
          self->stage_timer_.cancel();
          if (self->closed_) return;
          if (body_ec) {
            return self->ReadFailed(body_ec, self->options_.body_timeout,
                                    "body");
          }
          self->Dispatch();
        });
  }

  // Answers a request that could not be read, or just closes when there is
  // nobody to answer.
  void ReadFailed(const ErrorCode& ec, absl::Duration limit,
                  absl::string_view part) {
    if (ec == http::error::header_limit && parser_->too_many_lines()) {
      return Refuse(431,
                    absl::ResourceExhaustedError(absl::StrCat(
                        "the request has more than ", options_.max_header_count,
                        " header lines; at most ", options_.max_header_count,
                        " are accepted")));
    }
    if (ec == http::error::header_limit) {
      return Refuse(431, absl::ResourceExhaustedError(absl::StrCat(
                             "the request line and headers are larger than ",
                             options_.max_header_bytes, " bytes")));
    }
    if (ec == http::error::body_limit) {
      return Refuse(413, absl::ResourceExhaustedError(absl::StrCat(
                             "the request body is larger than the limit of ",
                             options_.max_body_bytes, " bytes")));
    }
    if (timed_out_) {
      if (part == "headers" && buffer_.size() == 0 && !parser_->got_some()) {
        return Close();  // an idle connection, nothing to answer
      }
      return Refuse(408, absl::DeadlineExceededError(absl::StrCat(
                             "the request's ", part, " did not arrive within ",
                             Seconds(limit))));
    }
    // Anything but a parse error means the connection is gone (or its TLS
    // failed): nobody to answer.
    if (ec.category() !=
            http::make_error_code(http::error::bad_method).category() ||
        ec == http::error::end_of_stream ||
        ec == http::error::partial_message) {
      return Close();
    }
    return Refuse(400, absl::InvalidArgumentError(absl::StrCat(
                           "malformed HTTP request: ", ec.message())));
  }

  // Answers the server's own error and closes the connection after it.
  void Refuse(int status, const absl::Status& problem) {
    HttpRequest request;
    if (parser_.has_value() && parser_->is_header_done()) {
      request = ToRequest(/*with_body=*/false);
    }
    request.remote_address = address_;
    HttpResponse response = server_->error_page()(request, status, problem);
    std::string text = HeadText(response, /*keep_alive=*/false);
    absl::StrAppend(&text, "Content-Length: ", response.body.size(), "\r\n\r\n",
                    response.body);
    Complete(/*keep_alive=*/false);
    Queue(std::move(text));
  }

  HttpRequest ToRequest(bool with_body) {
    auto& message = parser_->get();
    HttpRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.path = request.target.substr(0, request.target.find('?'));
    for (const auto& field : message) {
      request.headers.emplace_back(std::string(field.name_string()),
                                   std::string(field.value()));
    }
    if (with_body) request.body = std::move(message.body());
    request.remote_address = address_;
    return request;
  }

  void Dispatch() {
    reading_ = false;
    keep_alive_ = parser_->get().keep_alive();
    head_ = parser_->get().method() == http::verb::head;
    exchange_ = std::make_shared<ThisExchange>(this->shared_from_this(),
                                               ToRequest(/*with_body=*/true));
    parser_.reset();
    WatchForGone();
    server_->handler()(exchange_);
  }

  // While a request is answered, notices a client that closes its side.
  void WatchForGone() {
    const uint64_t generation = ++watch_generation_;
    Lowest().socket().async_wait(
        tcp::socket::wait_read,
        [self = this->shared_from_this(), generation](const ErrorCode& ec) {
          if (generation != self->watch_generation_ ||
              self->exchange_ == nullptr || self->closed_) {
            return;
          }
          if (ec) return self->Close();
          const int fd = self->Lowest().socket().native_handle();
          char byte;
          const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
          if (n == 0 || PeerClosed(fd)) return self->Close();  // gone
          if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            return self->Close();
          }
          if (n < 0) return self->WatchForGone();  // woken for nothing
          // Bytes wait (a pipelined request, or TLS's close_notify before
          // the FIN): the socket stays readable, so look again in a while.
          self->gone_timer_.expires_after(std::chrono::seconds(1));
          self->gone_timer_.async_wait(
              [self, generation](const ErrorCode& timer_ec) {
                if (!timer_ec && generation == self->watch_generation_) {
                  self->WatchForGone();
                }
              });
        });
  }

  // The current answer is complete: what happens after its last write.
  void Complete(bool keep_alive) {
    ++watch_generation_;  // the watch for a gone client ends
    if (exchange_ != nullptr) exchange_->MarkComplete();
    exchange_.reset();
    after_write_close_ = !keep_alive;
    after_write_next_ = keep_alive;
  }

  void Queue(std::string text) {
    out_.push_back(std::move(text));
    if (!writing_) WriteFront();
  }

  void WriteFront() {
    writing_ = true;
    Lowest().expires_after(Chrono(options_.write_timeout));
    net::async_write(
        stream_, net::buffer(out_.front()),
        [self = this->shared_from_this()](const ErrorCode& ec, size_t) {
          self->writing_ = false;
          if (ec || self->closed_) return self->Close();
          self->out_.pop_front();
          if (!self->out_.empty()) return self->WriteFront();
          self->AfterWrites();
        });
  }

  void AfterWrites() {
    if (after_write_close_) {
      after_write_close_ = false;
      return LingerThenClose();
    }
    if (after_write_next_ && exchange_ == nullptr && !reading_) {
      after_write_next_ = false;
      ReadNext();
    }
  }

  // Closes after a refusal or a last answer without resetting the
  // connection under a client still sending: our side is shut, what the
  // client still sends is read and dropped for a moment, then closed.
  void LingerThenClose() {
    ErrorCode ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    Lowest().expires_after(std::chrono::seconds(2));  // the whole linger
    Drain(0);
  }
  void Drain(size_t drained) {
    constexpr size_t kMaxDrained = 1 << 20;
    if (drained > kMaxDrained) return Close();
    Lowest().async_read_some(net::buffer(scratch_),
                             [self = this->shared_from_this(), drained](
                                 const ErrorCode& ec, size_t n) {
                               if (ec) return self->Close();
                               self->Drain(drained + n);
                             });
  }

  // The server stops counting the connection when it closes, whoever still
  // holds its exchange.
  void ForgetOnce() {
    if (forgotten_) return;
    forgotten_ = true;
    server_->Forget(this, address_);
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    if (exchange_ != nullptr) exchange_->MarkGone();
    exchange_.reset();
    idle_timer_.cancel();
    stage_timer_.cancel();
    gone_timer_.cancel();
    Lowest().close();
    ForgetOnce();
  }

  ServerImpl* const server_;
  const HttpServerOptions& options_;
  const std::string address_;
  Stream stream_;
  net::steady_timer idle_timer_;
  net::steady_timer stage_timer_;  // the header or body clock
  net::steady_timer gone_timer_;   // the next look for a gone client
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  std::shared_ptr<ThisExchange> exchange_;  // the request being answered
  std::deque<std::string> out_;             // waiting to be written
  std::atomic<size_t> backlog_{0};          // stream bytes not yet queued
  std::array<char, 4096> scratch_;
  uint64_t watch_generation_ = 0;
  bool reading_ = false;
  bool writing_ = false;
  bool streaming_ = false;
  bool keep_alive_ = false;
  bool head_ = false;
  bool stopping_ = false;
  bool closed_ = false;
  bool timed_out_ = false;  // the stage clock cancelled the read
  bool forgotten_ = false;  // the server no longer counts it
  bool after_write_close_ = false;
  bool after_write_next_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Create(
    HttpServerOptions options, HttpHandler handler, HttpErrorPage error_page) {
  std::optional<ssl::context> tls;
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "TLS needs both a certificate file and a key file");
  }
  if (!options.tls_cert_file.empty()) {
    tls.emplace(ssl::context::tls_server);
    tls->set_options(ssl::context::default_workarounds |
                     ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    ErrorCode ec;
    tls->use_certificate_chain_file(options.tls_cert_file, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read the TLS certificate \"",
                       options.tls_cert_file, "\": ", ec.message()));
    }
    tls->use_private_key_file(options.tls_key_file, ssl::context::pem, ec);
    if (ec && absl::StrContains(ec.message(), "mismatch")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the TLS key \"", options.tls_key_file,
          "\" does not match the certificate \"", options.tls_cert_file, "\""));
    }
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read the TLS key \"", options.tls_key_file,
                       "\": ", ec.message()));
    }
    if (SSL_CTX_check_private_key(tls->native_handle()) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the TLS key \"", options.tls_key_file,
          "\" does not match the certificate \"", options.tls_cert_file, "\""));
    }
  }
  return std::unique_ptr<HttpServer>(
      new ServerImpl(std::move(options), std::move(handler),
                     std::move(error_page), std::move(tls)));
}

absl::StatusOr<int> ServerImpl::Start(absl::string_view listen) {
  const size_t colon = listen.rfind(':');
  int port = 0;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("the HTTP address \"", listen,
                     "\" is not of the form host:port (port 0 to 65535)"));
  }
  std::string host(listen.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  ErrorCode ec;
  tcp::resolver resolver(io_);
  const auto endpoints =
      resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
  if (ec || endpoints.empty()) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for HTTP on ", listen, ": ", ec.message()));
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for HTTP on ", listen, ": ", ec.message()));
  }
  const int bound = acceptor_.local_endpoint().port();
  Accept();
  for (int i = 0; i < std::max(1, options_.io_threads); ++i) {
    threads_.emplace_back([this] { io_.run(); });
  }
  return bound;
}

void ServerImpl::Accept() {
  acceptor_.async_accept(
      net::make_strand(io_), [this](const ErrorCode& ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted || !acceptor_.is_open()) {
          return;
        }
        if (!ec) {
          ErrorCode ignored;
          socket.set_option(tcp::no_delay(true), ignored);
          const tcp::endpoint remote = socket.remote_endpoint(ignored);
          const std::string address = remote.address().to_string();
          const int refusal = Admit(address);
          if (refusal == 429) {
            Refuse(std::move(socket), 429,
                   absl::ResourceExhaustedError(absl::StrCat(
                       "too many connections from ", address, " (at most ",
                       options_.max_connections_per_address, ")")));
          } else if (refusal != 0) {
            Refuse(std::move(socket), 503,
                   absl::ResourceExhaustedError(
                       absl::StrCat("the server has the maximum of ",
                                    options_.max_connections, " connections")));
          } else if (tls_.has_value()) {
            Serve<true>(std::move(socket), address);
          } else {
            Serve<false>(std::move(socket), address);
          }
        }
        // Errors such as too many open files: keep accepting.
        Accept();
      });
}

template <bool kTls>
void ServerImpl::Serve(tcp::socket socket, const std::string& address) {
  std::shared_ptr<Connection<kTls>> connection;
  if constexpr (kTls) {
    connection = std::make_shared<Connection<true>>(this, address,
                                                    std::move(socket), *tls_);
  } else {
    connection =
        std::make_shared<Connection<false>>(this, address, std::move(socket));
  }
  Register(connection.get(), connection);
  connection->Run();
}

void ServerImpl::Refuse(tcp::socket socket, int status,
                        const absl::Status& problem) {
  if (tls_.has_value()) return;  // no handshake spent on it: just closed
  HttpRequest nothing;
  const HttpResponse response = error_page_(nothing, status, problem);
  auto text = std::make_shared<std::string>(HeadText(response, false));
  absl::StrAppend(text.get(), "Content-Length: ", response.body.size(),
                  "\r\n\r\n", response.body);
  auto shared = std::make_shared<tcp::socket>(std::move(socket));
  net::async_write(*shared, net::buffer(*text),
                   [shared, text](const ErrorCode&, size_t) {
                     ErrorCode ignored;
                     shared->shutdown(tcp::socket::shutdown_both, ignored);
                     shared->close(ignored);
                   });
}

int ServerImpl::Admit(const std::string& address) {
  MutexLock lock(&mu_);
  if (total_ >= options_.max_connections) return 503;
  int& from_address = per_address_[address];
  if (from_address >= options_.max_connections_per_address) {
    if (from_address == 0) per_address_.erase(address);
    return 429;
  }
  ++from_address;
  ++total_;
  return 0;
}

void ServerImpl::Register(ConnectionBase* connection,
                          std::weak_ptr<ConnectionBase> handle) {
  bool stopping;
  {
    MutexLock lock(&mu_);
    open_[connection] = std::move(handle);
    stopping = stopping_;
  }
  if (stopping) connection->StopWhenIdle();
}

void ServerImpl::Forget(ConnectionBase* connection,
                        const std::string& address) {
  MutexLock lock(&mu_);
  open_.erase(connection);
  --total_;
  auto it = per_address_.find(address);
  if (it != per_address_.end() && --it->second <= 0) per_address_.erase(it);
  changed_.SignalAll();
}

void ServerImpl::ForEach(void (ConnectionBase::*action)()) {
  std::vector<std::shared_ptr<ConnectionBase>> open;
  {
    MutexLock lock(&mu_);
    for (const auto& [raw, weak] : open_) {
      if (std::shared_ptr<ConnectionBase> c = weak.lock()) open.push_back(c);
    }
  }
  for (const auto& c : open) ((*c).*action)();
}

void ServerImpl::WaitForNone(absl::Time deadline) {
  MutexLock lock(&mu_);
  while (total_ > 0 && absl::Now() < deadline) {
    changed_.WaitWithDeadline(&mu_, deadline);
  }
}

void ServerImpl::Shutdown(absl::Duration grace) {
  {
    MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  net::post(acceptor_.get_executor(), [this] {
    ErrorCode ignored;
    acceptor_.close(ignored);
  });
  if (!threads_.empty()) {
    ForEach(&ConnectionBase::StopWhenIdle);
    WaitForNone(absl::Now() + grace);
    ForEach(&ConnectionBase::CloseSoon);
    WaitForNone(absl::Now() + absl::Seconds(1));
  }
  work_.reset();
  io_.stop();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

}  // namespace khet
