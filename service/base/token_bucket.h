// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A token bucket: a caller may spend up to `burst` calls at once, and
// `per_second` more each second after; each call takes one token.
#ifndef KHET_SERVICE_BASE_TOKEN_BUCKET_H_
#define KHET_SERVICE_BASE_TOKEN_BUCKET_H_

#include <algorithm>

#include "absl/time/time.h"

namespace khet {

struct TokenRate {
  double per_second = 1;  // > 0
  double burst = 1;       // >= 1
};

class TokenBucket {
 public:
  // Full at `now`.
  TokenBucket(const TokenRate& rate, absl::Time now)
      : tokens_(rate.burst), updated_(now) {}

  // Adds the tokens earned since the last refill, up to the burst. A clock
  // that went back adds none.
  void Refill(const TokenRate& rate, absl::Time now) {
    if (now > updated_) {
      tokens_ =
          std::min(rate.burst, tokens_ + absl::ToDoubleSeconds(now - updated_) *
                                             rate.per_second);
      updated_ = now;
    }
  }
  bool has_token() const { return tokens_ >= 1; }
  // REQUIRES: has_token().
  void Take() { tokens_ -= 1; }
  // How long until a token is there; zero if one is.
  absl::Duration Wait(const TokenRate& rate) const {
    if (has_token()) return absl::ZeroDuration();
    return absl::Seconds((1 - tokens_) / rate.per_second);
  }
  // Full again by `now`: its caller was idle long enough that forgetting
  // the bucket (and making a full one later) changes nothing.
  bool full(const TokenRate& rate, absl::Time now) const {
    const double idle =
        now > updated_ ? absl::ToDoubleSeconds(now - updated_) : 0;
    return tokens_ + idle * rate.per_second >= rate.burst;
  }
  // When it was last spent from (or refilled): its caller's last call.
  absl::Time updated() const { return updated_; }

 private:
  double tokens_;
  absl::Time updated_;
};

}  // namespace khet

#endif  // KHET_SERVICE_BASE_TOKEN_BUCKET_H_
