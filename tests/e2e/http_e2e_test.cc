// End to end over HTTP: the real khetd binary with its gRPC and HTTP ports
// on free loopback ports, driven with httplib's client: a game to a
// Pharaoh hit, long polling, the compact view, the SVG board, the web
// board, the request log, and SIGTERM with a long poll open.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif

namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// khetd with its stdout in a pipe and its stderr in a file; killed with
// SIGKILL if still running when destroyed.
class Khetd {
 public:
  explicit Khetd(const std::string& log_path) : log_path_(log_path) {
    int out[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    const int log =
        open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    std::vector<std::string> argv = {KHETD_PATH, "--listen=127.0.0.1:0",
                                     "--http_listen=127.0.0.1:0",
                                     "--store=memory"};
    std::vector<char*> args;
    for (std::string& arg : argv) args.push_back(arg.data());
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(null_fd, STDIN_FILENO);
      dup2(out[1], STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      execv(args[0], args.data());
      _exit(127);
    }
    close(out[1]);
    close(log);
    close(null_fd);
    stdout_ = fdopen(out[0], "r");
  }
  ~Khetd() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdout_ != nullptr) fclose(stdout_);
  }

  // The next line khetd prints, or "" at its end.
  std::string ReadLine() {
    char line[256];
    if (fgets(line, sizeof(line), stdout_) == nullptr) return "";
    std::string text(line);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }

  // Sends SIGTERM and waits for the exit code (-1 if it took over `limit`).
  int Terminate(std::chrono::seconds limit) {
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

  std::string Log() const { return ReadFile(log_path_); }

 private:
  const std::string log_path_;
  pid_t pid_ = -1;
  FILE* stdout_ = nullptr;
};

json Body(const httplib::Result& result, int status) {
  EXPECT_TRUE(result) << "no answer";
  if (!result) return json();
  EXPECT_EQ(result->status, status) << result->body;
  return json::parse(result->body, nullptr, false);
}

TEST(HttpEndToEndTest, PlaysOverHttpAndStopsOnSigterm) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           absl::StrCat("khet_http_e2e_", getpid()))
                              .string();
  std::filesystem::create_directories(dir);
  Khetd khetd(dir + "/khetd.log");
  const std::string grpc_line = khetd.ReadLine();
  ASSERT_THAT(grpc_line, ::testing::StartsWith("khetd listening on 127.0.0.1:"))
      << khetd.Log();
  const std::string http_line = khetd.ReadLine();
  constexpr absl::string_view kPrefix = "khetd http listening on 127.0.0.1:";
  ASSERT_TRUE(absl::StartsWith(http_line, kPrefix)) << http_line << khetd.Log();
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(http_line.substr(kPrefix.size()), &port));
  ASSERT_GT(port, 0);

  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30, 0);
  const json created = Body(
      client.Post(
          "/v1/sessions",
          R"({"name":"e2e","position":"xs4k4/10/10/10/10/10/10/pnw3K4Xn s 2"})",
          "application/json"),
      200);
  const std::string id = created["session"]["id"];
  const std::string owner = created["ownerToken"];
  const std::string s = "/v1/sessions/" + id;
  const std::string silver =
      Body(client.Post((s + ":join").c_str(), R"({"playerName":"alice"})",
                       "application/json"),
           200)["playerToken"];
  const std::string red =
      Body(client.Post((s + ":join").c_str(), R"({"playerName":"bob"})",
                       "application/json"),
           200)["playerToken"];

  // A long poll from version 3 wakes on Silver's move.
  auto poll = std::async(std::launch::async, [port, s] {
    httplib::Client other("127.0.0.1", port);
    other.set_read_timeout(30, 0);
    auto result = other.Get(
        (s + "/events?afterVersion=3&waitSeconds=10&view=compact").c_str());
    return result ? result->body : std::string();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const json first =
      Body(client.Post((s + ":move?view=compact").c_str(),
                       {{"Authorization", "Bearer " + silver}},
                       R"({"move":{"notation":"e1-d1"}})", "application/json"),
           200);
  EXPECT_EQ(first["move"], "e1-d1");
  EXPECT_EQ(first["turn"], "r");
  const json woken = json::parse(poll.get(), nullptr, false);
  ASSERT_TRUE(woken.is_object());
  EXPECT_EQ(woken["v"], 4);
  EXPECT_EQ(woken["events"][0]["kind"], "move");

  const json win =
      Body(client.Post((s + ":move").c_str(), {{"X-Khet-Token", red}},
                       R"({"move":{"notation":"a1R"}})", "application/json"),
           200);
  EXPECT_EQ(win["result"]["outcome"], "RED_WINS");
  EXPECT_EQ(win["result"]["reason"], "PHARAOH_HIT");
  EXPECT_EQ(Body(client.Get((s + "?view=compact").c_str()), 200)["st"], "F");

  auto svg = client.Get((s + "/board.svg").c_str());
  ASSERT_TRUE(svg);
  EXPECT_THAT(svg->body, HasSubstr("class=\"beam\""));
  auto index = client.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_THAT(index->body, HasSubstr("<html"));
  Body(client.Get("/v1/nowhere"), 404);

  // SIGTERM with a long poll open: the poll answers 503 and khetd exits 0.
  const std::string version = Body(client.Get(s.c_str()), 200)["version"];
  auto open_poll = std::async(std::launch::async, [port, s, version] {
    httplib::Client other("127.0.0.1", port);
    other.set_read_timeout(30, 0);
    auto result = other.Get(
        (s + "/events?waitSeconds=25&afterVersion=" + version).c_str());
    return result ? result->status : -1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(khetd.Terminate(std::chrono::seconds(15)), 0) << khetd.Log();
  EXPECT_EQ(open_poll.get(), 503);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  const std::string log = khetd.Log();
  EXPECT_THAT(log, HasSubstr("http method=POST route=/v1/sessions/{id}:move "
                             "session=" +
                             id + " status=200 code=OK"));
  EXPECT_THAT(log, HasSubstr("status=404 code=NOT_FOUND"));
  EXPECT_THAT(log, HasSubstr("khetd: stopped"));
  for (const std::string& token : {owner, silver, red}) {
    EXPECT_THAT(log, Not(HasSubstr(token)));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
