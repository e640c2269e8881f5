// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Beast's request parser that also stops at a number of header lines, so
// that a flood of tiny header lines costs at most that many fields, not as
// many as fit in the header bytes.
#ifndef KHET_SERVICE_HTTP_HTTP_REQUEST_PARSER_H_
#define KHET_SERVICE_HTTP_HTTP_REQUEST_PARSER_H_

#include <cstddef>

#include "boost/beast/core/string.hpp"
#include "boost/beast/http/error.hpp"
#include "boost/beast/http/field.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/string_body.hpp"
#include "boost/system/error_code.hpp"

namespace khet {

class HttpRequestParser final : public boost::beast::http::request_parser<
                                    boost::beast::http::string_body> {
 public:
  explicit HttpRequestParser(size_t max_lines) : max_lines_(max_lines) {}
  // The parse stopped (header_limit) at one line more than allowed.
  bool too_many_lines() const { return lines_ > max_lines_; }

 private:
  void on_field_impl(boost::beast::http::field name,
                     boost::beast::string_view name_string,
                     boost::beast::string_view value,
                     boost::system::error_code& ec) override {
    if (++lines_ > max_lines_) {
      ec = boost::beast::http::error::header_limit;
      return;
    }
    get().insert(name, name_string, value);
  }

  const size_t max_lines_;
  size_t lines_ = 0;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_REQUEST_PARSER_H_
