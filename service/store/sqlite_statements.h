// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What SqliteStore's files share to run SQL: a statement reset when done
// with (StatementScope), values bound by type (BindAll, Blob), rows stepped
// through (ForEachRow, ColumnBytes). Internal to the store.
#ifndef KHET_SERVICE_STORE_SQLITE_STATEMENTS_H_
#define KHET_SERVICE_STORE_SQLITE_STATEMENTS_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace khet::sqlite_statements {

// Resets a statement and clears its bindings when it goes out of scope, so
// that no cached statement holds a read transaction open between calls.
class StatementScope {
 public:
  explicit StatementScope(sqlite3_stmt* statement) : statement_(statement) {}
  StatementScope(const StatementScope&) = delete;
  StatementScope& operator=(const StatementScope&) = delete;
  ~StatementScope() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }

 private:
  sqlite3_stmt* statement_;
};

// A value bound as a BLOB; text binds as TEXT, integers as INTEGER.
struct Blob {
  std::string_view bytes;
};

inline int Bind(sqlite3_stmt* statement, int index, int64_t value) {
  return sqlite3_bind_int64(statement, index, value);
}
inline int Bind(sqlite3_stmt* statement, int index, double value) {
  return sqlite3_bind_double(statement, index, value);
}
inline int Bind(sqlite3_stmt* statement, int index, std::string_view text) {
  // A null pointer would bind SQL NULL; an empty view may have one.
  return sqlite3_bind_text64(statement, index, text.empty() ? "" : text.data(),
                             text.size(), SQLITE_STATIC, SQLITE_UTF8);
}
inline int Bind(sqlite3_stmt* statement, int index, Blob blob) {
  return sqlite3_bind_blob64(statement, index,
                             blob.bytes.empty() ? "" : blob.bytes.data(),
                             blob.bytes.size(), SQLITE_STATIC);
}

// Binds `values` to parameters 1, 2, ... and returns the first failure.
template <typename... Values>
int BindAll(sqlite3_stmt* statement, const Values&... values) {
  int index = 0;
  int code = SQLITE_OK;
  ((code = code == SQLITE_OK ? Bind(statement, ++index, values) : code), ...);
  return code;
}

// Steps a bound statement (`code`: the binding's result) through its rows,
// calling `row` with the statement on each; SQLITE_DONE when every row was
// read, else SQLite's error code.
template <typename RowFn>
int ForEachRow(sqlite3_stmt* statement, int code, RowFn row) {
  while (code == SQLITE_OK || code == SQLITE_ROW) {
    code = sqlite3_step(statement);
    if (code != SQLITE_ROW) break;
    row(statement);
  }
  return code;
}

inline std::string ColumnBytes(sqlite3_stmt* statement, int column) {
  const void* data = sqlite3_column_blob(statement, column);
  const int size = sqlite3_column_bytes(statement, column);
  if (data == nullptr) return std::string();  // an empty BLOB
  return std::string(static_cast<const char*>(data), size);
}

}  // namespace khet::sqlite_statements

#endif  // KHET_SERVICE_STORE_SQLITE_STATEMENTS_H_
