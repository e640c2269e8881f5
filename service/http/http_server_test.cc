// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The HTTP server on its own, with small limits and short clocks, driven
// over raw loopback sockets the way a hostile or careless client would.
#include "service/http/http_server.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "boost/asio/connect.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/read_until.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/streambuf.hpp"
#include "boost/asio/write.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/mutex.h"
#include "service/http/testing/raw_connection.h"

namespace khet {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string Get(const std::string& path, const std::string& extra = "") {
  return absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: x\r\n", extra, "\r\n");
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.max_header_count = 20;
    options_.max_header_bytes = 2048;
    options_.max_body_bytes = 1024;
    options_.header_timeout = absl::Milliseconds(400);
    options_.body_timeout = absl::Milliseconds(400);
    options_.idle_timeout = absl::Milliseconds(400);
    options_.max_connections = 16;
    options_.max_connections_per_address = 4;
    options_.max_stream_backlog = 64 * 1024;
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(absl::Seconds(1));
  }

  // Opens `count` idle connections from `address`; the server has counted
  // them all once the last one's request is answered.
  std::vector<std::unique_ptr<RawConnection>> OpenCounted(
      int count, const std::string& address) {
    std::vector<std::unique_ptr<RawConnection>> open;
    for (int i = 0; i < count; ++i) {
      open.push_back(std::make_unique<RawConnection>(port_, "", address));
    }
    EXPECT_TRUE(open.back()->Send(Get("/warm")));
    EXPECT_TRUE(open.back()->WaitFor("body=[]")) << open.back()->received();
    return open;
  }

  // Starts the server; requests to "/hold" are kept unanswered in held_,
  // "/stream" starts a stream kept in held_, others answer their path and
  // body.
  void Start() {
    absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Create(
        options_,
        [this](std::shared_ptr<HttpExchange> exchange) {
          const HttpRequest& request = exchange->request();
          if (request.path == "/hold" || request.path == "/stream") {
            exchange->OnGone([this] { ++gone_; });
            if (request.path == "/stream") {
              HttpResponse head;
              head.content_type = "text/plain";
              exchange->StartStream(head);
            }
            MutexLock lock(&mu_);
            held_.push_back(exchange);
            return;
          }
          HttpResponse response;
          response.content_type = "text/plain";
          response.body = absl::StrCat(request.method, " ", request.path,
                                       " body=[", request.body, "]");
          exchange->Respond(std::move(response));
        },
        [this](const HttpRequest&, int status, const absl::Status& problem) {
          ++refused_;
          HttpResponse response;
          response.status = status;
          response.body =
              absl::StrCat("{\"problem\":\"", problem.message(), "\"}");
          return response;
        });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    absl::StatusOr<int> port = server_->Start("127.0.0.1:0");
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
  }

  std::vector<std::shared_ptr<HttpExchange>> Held() {
    MutexLock lock(&mu_);
    return held_;
  }
  // Waits (bounded) until `count` requests are held.
  bool WaitForHeld(size_t count) {
    for (int i = 0; i < 200 && Held().size() < count; ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    return Held().size() >= count;
  }

  HttpServerOptions options_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  Mutex mu_;
  std::vector<std::shared_ptr<HttpExchange>> held_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> gone_{0};
  std::atomic<int> refused_{0};
};

TEST_F(HttpServerTest, AnswersAndKeepsTheConnection) {
  Start();
  RawConnection c(port_, Get("/a"));
  ASSERT_TRUE(c.WaitFor("body=[]")) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(c.received(), HasSubstr("Connection: keep-alive"));
  c.Clear();
  c.Send("POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nxyz");
  ASSERT_TRUE(c.WaitFor("body=[xyz]")) << c.received();
  EXPECT_THAT(c.received(), HasSubstr("POST /b"));
}

TEST_F(HttpServerTest, EveryAnswerIsDated) {
  Start();
  RawConnection c(port_, Get("/a"));
  ASSERT_TRUE(c.WaitFor("body=[]")) << c.received();
  const std::string& text = c.received();
  const size_t at = text.find("\r\nDate: ");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string date =
      text.substr(at + 8, text.find("\r\n", at + 8) - at - 8);
  absl::Time when;
  std::string error;
  ASSERT_TRUE(absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", date,
                              absl::UTCTimeZone(), &when, &error))
      << date << ": " << error;
  EXPECT_LT(absl::AbsDuration(absl::Now() - when), absl::Seconds(60)) << date;
}

// Finding: a POST with no body and no Content-Length waited 5 s for one.
TEST_F(HttpServerTest, APostWithoutContentLengthHasAnEmptyBodyAtOnce) {
  Start();
  const auto start = std::chrono::steady_clock::now();
  RawConnection c(port_, "POST /p HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(c.WaitFor("body=[]", milliseconds(4500))) << c.received();
  // Under the 5 s the finding waited, with a loaded machine's slack.
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(4000));
}

// Finding: many ranges made a huge multipart answer. Ranges are ignored.
TEST_F(HttpServerTest, RangesAreIgnored) {
  Start();
  std::string ranges = "Range: bytes=0-";
  for (int i = 0; i < 200; ++i) absl::StrAppend(&ranges, ",0-", i);
  RawConnection c(port_, Get("/r", ranges + "\r\n"));
  ASSERT_TRUE(c.WaitFor("body=[]")) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(c.received(), Not(HasSubstr("multipart")));
}

TEST_F(HttpServerTest, TooManyHeaderLinesAre431) {
  Start();
  std::string headers;
  for (int i = 0; i < 30; ++i) absl::StrAppend(&headers, "h", i, ": v\r\n");
  RawConnection c(port_, Get("/h", headers));
  ASSERT_TRUE(c.WaitFor("}")) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 431"));
  EXPECT_THAT(c.received(), HasSubstr("more than 20 header lines"));
  EXPECT_THAT(c.received(), HasSubstr("Connection: close"));
  EXPECT_TRUE(c.WaitForEnd(milliseconds(3000)));
}

// Finding: 2,000,000 tiny headers grew the server by 1.7 GB. Reading stops
// at the size limit, whatever follows.
TEST_F(HttpServerTest, AnEndlessHeaderIs431WithoutReadingOn) {
  Start();
  RawConnection c(port_, "GET /flood HTTP/1.1\r\n");
  const std::string lines(16 * 1024, 'a');  // no line break: one endless line
  for (int i = 0; i < 64 && c.Send(lines); ++i) {
  }
  ASSERT_TRUE(c.WaitFor("}")) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 431"));
  EXPECT_TRUE(c.WaitForEnd(milliseconds(3000)));
}

TEST_F(HttpServerTest, ABodyOverTheLimitIs413BeforeItIsSent) {
  Start();
  RawConnection c(port_,
                  "POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: "
                  "100000000\r\n\r\n");
  ASSERT_TRUE(c.WaitFor("}")) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(c.received(), HasSubstr("1024 bytes"));
}

TEST_F(HttpServerTest, AChunkedBodyOverTheLimitIs413) {
  Start();
  RawConnection c(port_,
                  "POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
                  "chunked\r\n\r\n");
  const std::string chunk = "400\r\n" + std::string(1024, 'b') + "\r\n";
  c.Send(chunk);
  c.Send(chunk);
  ASSERT_TRUE(c.WaitFor("}")) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 413"));
}

// Finding: one header byte every 2 s held a thread for as long as it went
// on. Headers must now be whole within the header clock.
TEST_F(HttpServerTest, SlowHeadersAre408) {
  Start();
  RawConnection c(port_, "GET /slow HTTP/1.1\r\nHo");
  ASSERT_TRUE(c.WaitFor("}", milliseconds(3000))) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 408"));
  EXPECT_TRUE(c.WaitForEnd(milliseconds(3000)));
}

TEST_F(HttpServerTest, ASlowBodyIs408) {
  Start();
  RawConnection c(port_,
                  "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"
                  "abc");
  ASSERT_TRUE(c.WaitFor("}", milliseconds(3000))) << c.received();
  EXPECT_THAT(c.received(), StartsWith("HTTP/1.1 408"));
}

TEST_F(HttpServerTest, AnIdleConnectionIsClosedQuietly) {
  Start();
  RawConnection silent(port_);
  EXPECT_TRUE(silent.WaitForEnd(milliseconds(3000)));
  EXPECT_EQ(silent.received(), "");  // nothing was asked: nothing answered
  RawConnection kept(port_, Get("/k"));
  ASSERT_TRUE(kept.WaitFor("body=[]"));
  EXPECT_TRUE(kept.WaitForEnd(milliseconds(3000)));
}

// Finding: a second request on a kept-alive connection took ~44 ms (the
// answer in two writes, Nagle's algorithm on). Now one write, TCP_NODELAY.
// Nagle's delay meets every kept-alive request (the client's delayed ACK,
// 40 ms on Linux), so the fastest of 21 shows it on any machine; the median
// is printed, a figure a loaded machine may slow.
TEST_F(HttpServerTest, KeptAliveRequestsAreAnsweredWithoutDelay) {
  Start();
  RawConnection c(port_);
  std::vector<double> ms;
  for (int i = 0; i < 21; ++i) {
    c.Clear();
    const auto start = std::chrono::steady_clock::now();
    c.Send(Get(absl::StrCat("/n", i)));
    ASSERT_TRUE(c.WaitFor("body=[]")) << c.received();
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  std::cout << "kept-alive requests: fastest " << ms.front() << " ms, median "
            << ms[ms.size() / 2] << " ms, slowest " << ms.back() << " ms\n";
  EXPECT_LT(ms.front(), 20.0) << "fastest ms";
}

TEST_F(HttpServerTest, ConnectionsPerAddressAreLimited) {
  options_.max_inworld_connections_per_address = 4;
  Start();
  std::vector<std::unique_ptr<RawConnection>> mine =
      OpenCounted(4, "127.0.0.7");
  RawConnection extra(port_, "", "127.0.0.7");
  ASSERT_TRUE(extra.WaitFor("}")) << extra.received();
  EXPECT_THAT(extra.received(), StartsWith("HTTP/1.1 429"));
  EXPECT_THAT(extra.received(), HasSubstr("127.0.0.7"));
  EXPECT_TRUE(extra.WaitForEnd(milliseconds(3000)));
  // Another address is served, and so are the old connections.
  RawConnection other(port_, Get("/other"), "127.0.0.8");
  EXPECT_TRUE(other.WaitFor("body=[]")) << other.received();
  mine[0]->Send(Get("/old"));
  EXPECT_TRUE(mine[0]->WaitFor("body=[]")) << mine[0]->received();
  // A closed connection gives its place back.
  mine.clear();
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    RawConnection again(port_, Get("/again"), "127.0.0.7");
    served = again.WaitFor("body=[]", milliseconds(500));
  }
  EXPECT_TRUE(served);
}

// Past its plain limit an address may hold connections whose every request
// carries an in-world object key, up to its in-world limit; a request
// without a key there is refused and its connection closed.
TEST_F(HttpServerTest, InworldConnectionsPassThePlainLimitWithObjectKeys) {
  options_.max_inworld_connections_per_address = 6;
  Start();
  const std::string key =
      "X-SecondLife-Object-Key: 0a1b2c3d-0000-4000-8000-00000000002a\r\n";
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<RawConnection>(port_, "", "127.0.0.9"));
  }
  ASSERT_TRUE(held.back()->Send(Get("/plain")));
  ASSERT_TRUE(held.back()->WaitFor("body=[]"));
  // The fifth and sixth: served while their requests carry a key.
  for (int i = 0; i < 2; ++i) {
    held.push_back(std::make_unique<RawConnection>(port_, Get("/board", key),
                                                   "127.0.0.9"));
    ASSERT_TRUE(held.back()->WaitFor("body=[]")) << held.back()->received();
  }
  held.back()->Send(Get("/board-again", key));
  EXPECT_TRUE(held.back()->WaitFor("/board-again")) << held.back()->received();
  // Past the in-world limit: the seventh is refused at once.
  RawConnection seventh(port_, "", "127.0.0.9");
  ASSERT_TRUE(seventh.WaitFor("}")) << seventh.received();
  EXPECT_THAT(seventh.received(), StartsWith("HTTP/1.1 429"));
  // On a connection past the plain limit, a request without a key: 429,
  // and the connection is closed.
  held[4]->Send(Get("/no-key"));
  ASSERT_TRUE(held[4]->WaitFor("}")) << held[4]->received();
  EXPECT_THAT(held[4]->received(), HasSubstr("HTTP/1.1 429"));
  EXPECT_THAT(held[4]->received(), HasSubstr("in-world object key"));
  EXPECT_TRUE(held[4]->WaitForEnd(milliseconds(3000)));
}

// A trusted proxy carries many clients: in front of replicas it holds a
// connection per waiting board, and a web page's or a bot's call (no
// object key) comes on one more. Its connections pass both per-address
// limits and count toward the total alone; another address keeps its own.
TEST_F(HttpServerTest, ATrustedProxysConnectionsCountTowardTheTotalAlone) {
  options_.max_inworld_connections_per_address = 4;
  absl::StatusOr<TrustedProxies> proxies =
      TrustedProxies::Parse("127.0.0.10/32");
  ASSERT_TRUE(proxies.ok()) << proxies.status();
  options_.trusted_proxies = *std::move(proxies);
  Start();
  std::vector<std::unique_ptr<RawConnection>> proxy;
  for (int i = 0; i < 10; ++i) {
    proxy.push_back(
        std::make_unique<RawConnection>(port_, Get("/plain"), "127.0.0.10"));
    ASSERT_TRUE(proxy.back()->WaitFor("body=[]"))
        << i << ": " << proxy.back()->received();
  }
  // Past both per-address limits (4 and 4), a request without a key on
  // the proxy's tenth connection is served.
  proxy.back()->Send(Get("/again"));
  EXPECT_TRUE(proxy.back()->WaitFor("/again")) << proxy.back()->received();
  // Any other address is still held to its own limit.
  std::vector<std::unique_ptr<RawConnection>> other =
      OpenCounted(4, "127.0.0.11");
  RawConnection extra(port_, "", "127.0.0.11");
  ASSERT_TRUE(extra.WaitFor("}")) << extra.received();
  EXPECT_THAT(extra.received(), StartsWith("HTTP/1.1 429"));
  // And the proxy to the total (16): two more fill it, the next is 503.
  for (int i = 0; i < 2; ++i) {
    proxy.push_back(
        std::make_unique<RawConnection>(port_, Get("/fill"), "127.0.0.10"));
    ASSERT_TRUE(proxy.back()->WaitFor("body=[]")) << proxy.back()->received();
  }
  RawConnection full(port_, "", "127.0.0.10");
  ASSERT_TRUE(full.WaitFor("}")) << full.received();
  EXPECT_THAT(full.received(), StartsWith("HTTP/1.1 503"));
}

TEST_F(HttpServerTest, ConnectionsInAllAreLimited) {
  options_.max_connections = 6;
  options_.max_connections_per_address = 100;
  Start();
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 6; ++i) {
    held.push_back(std::make_unique<RawConnection>(
        port_, "", absl::StrCat("127.0.1.", i + 1)));
  }
  ASSERT_TRUE(held.back()->Send(Get("/warm")));
  ASSERT_TRUE(held.back()->WaitFor("body=[]"));
  RawConnection extra(port_, "", "127.0.1.99");
  ASSERT_TRUE(extra.WaitFor("}")) << extra.received();
  EXPECT_THAT(extra.received(), StartsWith("HTTP/1.1 503"));
  held[0]->Send(Get("/old"));
  EXPECT_TRUE(held[0]->WaitFor("body=[]"));
}

// Finding: abandoned long polls kept their places until their wait ended.
// The server tells the handler at once.
TEST_F(HttpServerTest, AClientThatLeavesIsNoticedAtOnce) {
  Start();
  {
    RawConnection c(port_, Get("/hold"));
    ASSERT_TRUE(WaitForHeld(1));
  }
  for (int i = 0; i < 200 && gone_ == 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(gone_, 1);
  EXPECT_TRUE(Held()[0]->gone());
  Held()[0]->Respond(HttpResponse());  // too late: nothing happens
}

TEST_F(HttpServerTest, AnAnswerFromAnotherThreadLater) {
  Start();
  RawConnection c(port_, Get("/hold"));
  ASSERT_TRUE(WaitForHeld(1));
  std::thread later([exchange = Held()[0]] {
    absl::SleepFor(absl::Milliseconds(50));
    HttpResponse response;
    response.body = "later";
    exchange->Respond(response);
  });
  EXPECT_TRUE(c.WaitFor("later")) << c.received();
  later.join();
  EXPECT_EQ(gone_, 0);
}

TEST_F(HttpServerTest, StreamsInChunksAndCutsAClientThatStopsReading) {
  Start();
  RawConnection c(port_, Get("/stream"));
  ASSERT_TRUE(WaitForHeld(1));
  std::shared_ptr<HttpExchange> stream = Held()[0];
  ASSERT_TRUE(stream->Write("hello"));
  ASSERT_TRUE(c.WaitFor("5\r\nhello\r\n")) << c.received();
  EXPECT_THAT(c.received(), HasSubstr("Transfer-Encoding: chunked"));
  // The client reads no more: the backlog bound cuts it.
  bool accepted = true;
  const std::string piece(16 * 1024, 'x');
  for (int i = 0; i < 10000 && accepted; ++i) accepted = stream->Write(piece);
  EXPECT_FALSE(accepted);
  for (int i = 0; i < 200 && !stream->gone(); ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_TRUE(stream->gone());
}

TEST_F(HttpServerTest, HeadGetsHeadersAlone) {
  Start();
  RawConnection c(port_, "HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(c.WaitFor("\r\n\r\n")) << c.received();
  // The length of the GET answer, "HEAD /x body=[]".
  EXPECT_THAT(c.received(), HasSubstr("Content-Length: 15"));
  absl::SleepFor(absl::Milliseconds(100));
  c.WaitFor("never", milliseconds(100));
  EXPECT_THAT(c.received(), Not(HasSubstr("body=")));
}

// Finding: 80 slow clients kept SIGTERM waiting 39 s. Shutdown ends within
// its grace whatever the clients do.
TEST_F(HttpServerTest, ShutdownEndsWithinItsGraceWhateverClientsDo) {
  options_.header_timeout = absl::Seconds(60);
  options_.idle_timeout = absl::Seconds(60);
  options_.max_connections_per_address = 100;
  options_.max_connections = 100;
  Start();
  std::vector<std::unique_ptr<RawConnection>> clients;
  for (int i = 0; i < 20; ++i) {
    clients.push_back(
        std::make_unique<RawConnection>(port_, "GET /slow HTTP/1.1\r\nH"));
  }
  RawConnection held(port_, Get("/hold"));
  RawConnection idle(port_, Get("/idle"));
  ASSERT_TRUE(idle.WaitFor("body=[]"));
  ASSERT_TRUE(WaitForHeld(1));
  const auto start = std::chrono::steady_clock::now();
  server_->Shutdown(absl::Milliseconds(500));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, milliseconds(2500));
  EXPECT_GE(took, milliseconds(400));  // the held request had its grace
  EXPECT_EQ(gone_, 1);
  EXPECT_EQ(server_->connections(), 0);
  for (auto& client : clients)
    EXPECT_TRUE(client->WaitForEnd(milliseconds(1000)));
  server_.reset();
}

TEST_F(HttpServerTest, ShutdownLetsAnAnswerInFlightGoOut) {
  Start();
  RawConnection c(port_, Get("/hold"));
  ASSERT_TRUE(WaitForHeld(1));
  std::thread answer([exchange = Held()[0]] {
    absl::SleepFor(absl::Milliseconds(100));
    HttpResponse response;
    response.body = "in time";
    exchange->Respond(response);
  });
  server_->Shutdown(absl::Seconds(3));
  answer.join();
  EXPECT_TRUE(c.WaitFor("in time")) << c.received();
  EXPECT_THAT(c.received(), HasSubstr("Connection: close"));
}

TEST(HttpServerCreateTest, TlsFilesMustBothBeThereAndMatch) {
  HttpServerOptions options;
  options.tls_cert_file = "/nonexistent/cert.pem";
  auto only_cert = HttpServer::Create(options, nullptr, nullptr);
  EXPECT_EQ(only_cert.status().code(), absl::StatusCode::kInvalidArgument);
  options.tls_key_file = "/nonexistent/key.pem";
  auto missing = HttpServer::Create(options, nullptr, nullptr);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("cert.pem"));
}

// A certificate for localhost made with the openssl command, in a
// temporary directory.
class TlsFiles {
 public:
  TlsFiles() {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("khet-tls-", ::getpid(), "-", counter_++);
    std::filesystem::create_directories(dir_);
    for (const std::string& name : {std::string("a"), std::string("b")}) {
      const std::string command = absl::StrCat(
          "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "
          "/CN=localhost"
          " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ",
          (dir_ / (name + "-key.pem")).string(), " -out ",
          (dir_ / (name + "-cert.pem")).string(), " 2>/dev/null");
      ok_ = ok_ && std::system(command.c_str()) == 0;
    }
  }
  ~TlsFiles() { std::filesystem::remove_all(dir_); }
  bool ok() const { return ok_; }
  std::string cert(const std::string& name) const {
    return (dir_ / (name + "-cert.pem")).string();
  }
  std::string key(const std::string& name) const {
    return (dir_ / (name + "-key.pem")).string();
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  bool ok_ = true;
};

TEST(HttpServerTlsTest, ServesHttpsAndRefusesAKeyOfAnotherCertificate) {
  TlsFiles files;
  ASSERT_TRUE(files.ok()) << "the openssl command failed";
  HttpServerOptions options;
  options.tls_cert_file = files.cert("a");
  options.tls_key_file = files.key("b");
  auto mismatched = HttpServer::Create(options, nullptr, nullptr);
  EXPECT_EQ(mismatched.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mismatched.status().message(), HasSubstr("does not match"));

  options.tls_key_file = files.key("a");
  std::atomic<int> gone{0};
  auto server = HttpServer::Create(
      options,
      [&gone](std::shared_ptr<HttpExchange> exchange) {
        if (exchange->request().path == "/hold") {
          exchange->OnGone([&gone, exchange] { ++gone; });
          return;  // held by its own callback until the client leaves
        }
        HttpResponse response;
        response.body = "secret " + exchange->request().path;
        exchange->Respond(response);
      },
      [](const HttpRequest&, int status, const absl::Status&) {
        HttpResponse response;
        response.status = status;
        return response;
      });
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<int> port = (*server)->Start("127.0.0.1:0");
  ASSERT_TRUE(port.ok());

  namespace net = boost::asio;
  net::io_context io;
  net::ssl::context context(net::ssl::context::tls_client);
  context.load_verify_file(files.cert("a"));
  context.set_verify_mode(net::ssl::verify_peer);
  net::ssl::stream<net::ip::tcp::socket> tls(io, context);
  SSL_set_tlsext_host_name(tls.native_handle(), "localhost");
  tls.next_layer().connect(
      {net::ip::make_address("127.0.0.1"), static_cast<uint16_t>(*port)});
  tls.handshake(net::ssl::stream_base::client);
  net::write(tls, net::buffer(Get("/over-tls")));
  net::streambuf answer;
  boost::system::error_code ec;
  net::read_until(tls, answer, "/over-tls", ec);
  const std::string text(net::buffers_begin(answer.data()),
                         net::buffers_end(answer.data()));
  EXPECT_THAT(text, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(text, HasSubstr("secret /over-tls"));

  // A client that leaves a held request over TLS is noticed too (its
  // close_notify arrives before the FIN).
  net::write(tls, net::buffer(Get("/hold")));
  absl::SleepFor(absl::Milliseconds(100));
  // close_notify goes out; the answer to it never comes.
  tls.async_shutdown([](const boost::system::error_code&) {});
  io.run_for(std::chrono::milliseconds(300));
  tls.next_layer().close();
  for (int i = 0; i < 400 && gone == 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(gone, 1);

  // Plain HTTP on the TLS port gets no answer in plain text.
  RawConnection plain(*port, Get("/plain"));
  plain.WaitForEnd(milliseconds(2000));
  EXPECT_THAT(plain.received(), Not(HasSubstr("secret")));
  (*server)->Shutdown(absl::Seconds(1));
}

}  // namespace
}  // namespace khet
