// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The compact view (docs/http-api.md, "Compact view"): short JSON for
// in-world objects whose HTTP answers are cut at 2048 bytes. The board is
// its position string (docs/notation.md) and the laser a path string:
//   beams separated by one space; each beam its points as squares ("j1"),
//   where it starts, turns and ends, then one letter for how it ended:
//   N, E, S or W  left the board travelling that way (the last point is
//                 the edge square it left from)
//   x  hit the piece on the last point     a  absorbed by a Sphinx there
//   b  blocked by an Anubis's front there  y  split on an Eye there (two
//                                             child beams follow later)
//   o  looped there (the rest was traced by an earlier beam)
// e.g. "j1j4h4h5j5j8N". A Khet 1.0 beam starts on j1 (Silver's emitter is
// below it) or a8 (Red's, above it). A last token "+" means beams were
// left out to keep the answer within its size.
// Every function's answer is at most kCompactLimit bytes: when it would be
// longer, the announcement is shortened first (ending in "..."), down to
// its first 160 bytes; then the player and session names; then the legal
// moves ("lm") become "+"; then the laser loses its last beams; then the
// announcement the rest.
// While a game is in progress every answer and event that carries "pos"
// carries "lm" after it: the side to move's legal moves
// (compact_moves.h), so that a board lights a piece's squares without
// asking. Tokens, ids,
// versions and positions are never cut.
#ifndef KHET_SERVICE_HTTP_COMPACT_VIEW_H_
#define KHET_SERVICE_HTTP_COMPACT_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "khet/v1/khet_service.pb.h"

namespace khet {

inline constexpr size_t kCompactLimit = 2048;

// The laser path string of a shot; "" for none.
std::string CompactLaser(const v1::LaserShot& shot);

// GetSession: {"id","name","v","st","turn","pos","lm","last","laser","rm",
// "res","why","silver","red","draw","tb","setup","scheme",...}; also the answer
// of every route that answers a Session.
std::string CompactSession(const v1::Session& session);

// CreateSession: {"owner":<owner token>, then CompactSession's fields}.
std::string CompactCreated(const v1::CreateSessionResponse& created);

// JoinSeat: {"token":<player token>,"color":"s" or "r", then
// CompactSession's fields}.
std::string CompactJoined(const v1::JoinSeatResponse& joined);

// MakeMove: {"v","move","laser","rm","st","turn","res","why","pos","lm",
// "ann"}.
std::string CompactMoveReply(const v1::MakeMoveResponse& reply);

// ListLegalMoves: {"moves":"e4-e5 e4R ...","more":false}; "more" is true
// when moves were left out to keep within the limit.
std::string CompactLegalMoves(const v1::ListLegalMovesResponse& moves);

// One event in at most `limit` bytes: {"v","kind",...,"ann"} with the
// fields of its kind (see docs/http-api.md).
std::string CompactEvent(const v1::Event& event, size_t limit = kCompactLimit);

// A long poll's answer {"v":N,"events":[...],"more":false} holding the
// first events that fit in kCompactLimit, at least one; "v" is the last
// one's version, or `after_version` when `events` is empty; "more" tells
// that events were left out, or that `events_follow` (poll again at once).
struct CompactEventList {
  std::string json;
  int count = 0;  // how many of the events it holds
};
CompactEventList CompactEvents(absl::Span<const v1::Event> events,
                               int64_t after_version,
                               bool events_follow = false);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_COMPACT_VIEW_H_
