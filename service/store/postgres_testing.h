// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A fresh PostgreSQL database for one test, on the server the tests were
// given: the file named by KHET_TEST_POSTGRES_FILE (written by
// tests/pg/pg_cluster.sh, which ctest's `postgres` fixture runs) or the
// conninfo in KHET_TEST_POSTGRES, in keyword form ("host=... port=...").
// Links with libpq.
#ifndef KHET_SERVICE_STORE_POSTGRES_TESTING_H_
#define KHET_SERVICE_STORE_POSTGRES_TESTING_H_

#include <libpq-fe.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace khet {

// The test server's conninfo; nullopt if the tests were given none.
inline std::optional<std::string> TestPostgresServer() {
  if (const char* file = getenv("KHET_TEST_POSTGRES_FILE");
      file != nullptr && *file != '\0') {
    std::ifstream in(file);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) {
      return std::string(absl::StripAsciiWhitespace(line));
    }
  }
  if (const char* conninfo = getenv("KHET_TEST_POSTGRES");
      conninfo != nullptr && *conninfo != '\0') {
    return std::string(conninfo);
  }
  return std::nullopt;
}

inline constexpr char kNoTestPostgres[] =
    "no PostgreSQL server given: set KHET_TEST_POSTGRES_FILE (ctest's "
    "`postgres` fixture does) or KHET_TEST_POSTGRES to a conninfo";

// Runs one statement on the test server's maintenance database.
inline absl::Status RunOnTestServer(const std::string& server,
                                    const std::string& sql) {
  PGconn* conn = PQconnectdb(server.c_str());
  absl::Status status;
  if (PQstatus(conn) != CONNECTION_OK) {
    status = absl::UnavailableError(
        absl::StrCat("cannot connect to ", server, ": ", PQerrorMessage(conn)));
  } else {
    PGresult* result = PQexec(conn, sql.c_str());
    if (PQresultStatus(result) != PGRES_COMMAND_OK &&
        PQresultStatus(result) != PGRES_TUPLES_OK) {
      status = absl::InternalError(
          absl::StrCat(sql, ": ", PQresultErrorMessage(result)));
    }
    PQclear(result);
  }
  PQfinish(conn);
  return status;
}

// A database created for one test and dropped (connections and all) when
// this is destroyed.
class TestDatabase {
 public:
  // nullopt-like: a null pointer with *skip_reason set when no server was
  // given; an error if one was given and the database could not be made.
  static absl::StatusOr<std::unique_ptr<TestDatabase>> Create(
      std::string* skip_reason) {
    std::optional<std::string> server = TestPostgresServer();
    if (!server.has_value()) {
      *skip_reason = kNoTestPostgres;
      return std::unique_ptr<TestDatabase>();
    }
    static std::atomic<int> counter = 0;
    const std::string name =
        absl::StrCat("khet_test_", getpid(), "_", counter++, "_", random());
    if (absl::Status s =
            RunOnTestServer(*server, absl::StrCat("CREATE DATABASE ", name));
        !s.ok()) {
      return s;
    }
    return std::unique_ptr<TestDatabase>(new TestDatabase(*server, name));
  }

  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;
  ~TestDatabase() {
    RunOnTestServer(server_, absl::StrCat("DROP DATABASE IF EXISTS ", name_,
                                          " WITH (FORCE)"))
        .IgnoreError();
  }

  // The conninfo of this database (the server's, with dbname replaced).
  std::string conninfo() const {
    return absl::StrCat(server_, " dbname=", name_);
  }
  const std::string& name() const { return name_; }

 private:
  TestDatabase(std::string server, std::string name)
      : server_(std::move(server)), name_(std::move(name)) {}

  const std::string server_;
  const std::string name_;
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_POSTGRES_TESTING_H_
