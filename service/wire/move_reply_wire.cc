#include "service/wire/move_reply_wire.h"

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "service/wire/wire_bytes.h"

namespace khet {
namespace {

using wire::AppendLengthDelimited;
using wire::AppendVarint;
using wire::kFixed32;
using wire::kFixed64;
using wire::kLengthDelimited;
using wire::kVarint;

// v1::Event.move_made, and the fields of v1::MoveMade and
// v1::MakeMoveResponse (proto/khet/v1/khet_service.proto).
constexpr uint32_t kEventClocks = 5;
constexpr uint32_t kEventMoveMade = 13;
constexpr uint32_t kMadeMove = 2;
constexpr uint32_t kMadeShot = 3;
constexpr uint32_t kMadeRemovals = 4;
constexpr uint32_t kMadeResult = 5;
constexpr uint32_t kMadeBoard = 6;
constexpr uint32_t kReplyMove = 1;
constexpr uint32_t kReplyShot = 2;
constexpr uint32_t kReplyRemovals = 3;
constexpr uint32_t kReplyResult = 4;
constexpr uint32_t kReplyVersion = 5;
constexpr uint32_t kReplyAnnouncement = 6;
constexpr uint32_t kReplyBoard = 7;
constexpr uint32_t kReplyClocks = 8;

bool ReadVarint(absl::string_view& in, uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in.empty()) return false;
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = v;
      return true;
    }
  }
  return false;
}

// One field of a message: its number, wire type and, when length-delimited,
// its contents.
struct Field {
  uint32_t number = 0;
  int wire_type = 0;
  absl::string_view contents;
};

// Reads the next field of `in`; nullopt at the end, or on malformed bytes
// (then `*bad` is set).
std::optional<Field> NextField(absl::string_view& in, bool* bad) {
  if (in.empty()) return std::nullopt;
  uint64_t tag = 0;
  if (!ReadVarint(in, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) {
    *bad = true;
    return std::nullopt;
  }
  Field f;
  f.number = static_cast<uint32_t>(tag >> 3);
  f.wire_type = static_cast<int>(tag & 7);
  uint64_t n = 0;
  switch (f.wire_type) {
    case kVarint:
      if (!ReadVarint(in, &n)) break;
      return f;
    case kFixed64:
      if (in.size() < 8) break;
      in.remove_prefix(8);
      return f;
    case kFixed32:
      if (in.size() < 4) break;
      in.remove_prefix(4);
      return f;
    case kLengthDelimited:
      if (!ReadVarint(in, &n) || n > in.size()) break;
      f.contents = in.substr(0, static_cast<size_t>(n));
      in.remove_prefix(static_cast<size_t>(n));
      return f;
    default:
      break;
  }
  *bad = true;
  return std::nullopt;
}

absl::Status NotAMove() {
  return absl::InternalError("the MoveMade event's bytes do not parse");
}

}  // namespace

absl::StatusOr<std::string> MoveReplyWire(absl::string_view event_wire,
                                          int64_t version,
                                          absl::string_view announcement) {
  bool bad = false;
  std::optional<absl::string_view> made;
  std::optional<absl::string_view> clocks;
  for (absl::string_view in = event_wire;;) {
    std::optional<Field> f = NextField(in, &bad);
    if (!f.has_value()) break;
    if (f->wire_type != kLengthDelimited) continue;
    // The last occurrence wins, as in parsing (the event's own writer
    // never repeats a field).
    if (f->number == kEventMoveMade) made = f->contents;
    if (f->number == kEventClocks) clocks = f->contents;
  }
  if (bad || !made.has_value()) return NotAMove();

  std::string out;
  // The reply is the MoveMade without its mover, plus a few bytes of tags
  // and the version, announcement and clocks.
  out.reserve(made->size() + announcement.size() +
              (clocks.has_value() ? clocks->size() : 0) + 32);
  std::optional<absl::string_view> board;
  for (absl::string_view in = *made;;) {
    std::optional<Field> f = NextField(in, &bad);
    if (!f.has_value()) break;
    if (f->wire_type != kLengthDelimited) continue;  // the mover
    switch (f->number) {
      case kMadeMove:
        AppendLengthDelimited(out, kReplyMove, f->contents);
        break;
      case kMadeShot:
        AppendLengthDelimited(out, kReplyShot, f->contents);
        break;
      case kMadeRemovals:
        AppendLengthDelimited(out, kReplyRemovals, f->contents);
        break;
      case kMadeResult:
        AppendLengthDelimited(out, kReplyResult, f->contents);
        break;
      case kMadeBoard:
        board = f->contents;
        break;
      default:
        break;
    }
  }
  if (bad) return NotAMove();
  // proto3: a zero version and an empty announcement are not written.
  if (version != 0) {
    AppendVarint(out, (uint64_t{kReplyVersion} << 3) | kVarint);
    AppendVarint(out, static_cast<uint64_t>(version));
  }
  if (!announcement.empty()) {
    AppendLengthDelimited(out, kReplyAnnouncement, announcement);
  }
  if (board.has_value()) AppendLengthDelimited(out, kReplyBoard, *board);
  if (clocks.has_value()) AppendLengthDelimited(out, kReplyClocks, *clocks);
  return out;
}

}  // namespace khet
