// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/computer/suggestions.h"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "engine/movegen.h"
#include "engine/names.h"
#include "engine/play.h"
#include "service/base/mutex.h"
#include "service/base/status_macros.h"
#include "service/search/search_setup.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

constexpr int kDefaultLevel = 3;
constexpr int kMaxDepth = 64;
// How often a SuggestMove call looks at its caller while the search runs.
constexpr absl::Duration kPoll = absl::Milliseconds(10);

// The limits of a SuggestMove that gives them; INVALID_ARGUMENT naming a
// bad one.
absl::StatusOr<SearchLimits> SuggestionLimits(const v1::SearchLimits& l) {
  if (l.max_depth() < 0 || l.max_nodes() < 0 || l.max_time_ms() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "limits must not be negative: max_depth ", l.max_depth(),
        ", max_nodes ", l.max_nodes(), ", max_time_ms ", l.max_time_ms()));
  }
  if (l.max_depth() > kMaxDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_depth must be at most ", kMaxDepth, ", not ", l.max_depth()));
  }
  if (l.max_depth() == 0 && l.max_nodes() == 0 && l.max_time_ms() == 0) {
    return absl::InvalidArgumentError(
        "limits sets none of max_depth, max_nodes and max_time_ms: set one, "
        "or ask for a level");
  }
  SearchLimits out;
  out.max_depth = l.max_depth();
  out.max_nodes = static_cast<uint64_t>(l.max_nodes());
  out.max_time = absl::Milliseconds(l.max_time_ms());
  return out;
}

// The search's line as moves playable one after the other from `pos`; it
// ends early at a move that is not legal or after a Pharaoh is hit.
void LineToProto(const Position& pos, const SearchResult& result,
                 v1::SuggestMoveResponse* out) {
  std::vector<Move> line = result.principal_variation;
  if (line.empty() || !(line.front() == result.best_move)) {
    line.insert(line.begin(), result.best_move);
  }
  Position walk = pos;
  for (const Move m : line) {
    absl::StatusOr<Move> legal = CheckMove(walk, m);
    if (!legal.ok()) break;
    *out->add_principal_variation() = MoveToProto(walk, *legal);
    if (MakeMove(&walk, *legal) != 0) break;
  }
}

}  // namespace

Suggestions::Suggestions(const ServiceCore& core, SearchFunction search)
    : core_(core),
      search_(std::move(search)),
      per_address_(Budget::kSuggestions, "suggestions",
                   core.limits->max_suggestions_per_address, absl::Seconds(1)) {
}

absl::StatusOr<v1::SuggestMoveResponse> Suggestions::SuggestMove(
    const v1::SuggestMoveRequest& request, const CallControl& control) {
  SearchLimits limits;
  SearchStyle style;
  v1::SuggestMoveResponse out;
  if (request.strength_case() == v1::SuggestMoveRequest::kLimits) {
    KHET_ASSIGN_OR_RETURN(limits, SuggestionLimits(request.limits()));
  } else {
    KHET_ASSIGN_OR_RETURN(
        Level level,
        LevelOf(request.strength_case() == v1::SuggestMoveRequest::kLevel
                    ? request.level()
                    : kDefaultLevel));
    limits = level.limits;
    style = level.style;
    out.set_level(level.number);
    out.set_level_name(std::string(level.name));
  }

  // The search works on a copy: no lock is held while it runs.
  Position pos;
  KHET_RETURN_IF_ERROR(core_.registry->Read(
      request.session_id(), [&](SessionEntry& entry) -> absl::Status {
        const Session& s = entry.session;
        if (s.status() == v1::FINISHED) {
          return absl::FailedPreconditionError(
              absl::StrCat("the game in session \"", s.id(),
                           "\" is over: ", s.state().result().text()));
        }
        if (s.status() == v1::IN_PROGRESS && s.state().settings().hints_off()) {
          return absl::FailedPreconditionError(absl::StrCat(
              "hints are off on board \"", s.id(),
              "\" while a game is in progress (the owner's setting hints)"));
        }
        pos = s.game().position();
        style = StyleForGame(s.game(), style);
        out.set_version(s.version());
        return absl::OkStatus();
      }));

  const absl::Time start = absl::Now();
  absl::Duration allowed = core_.limits->max_suggestion_time;
  if (control.deadline != absl::InfiniteFuture()) {
    // Stop early enough for the answer to reach the caller in time.
    const absl::Duration left = control.deadline - start;
    const absl::Duration margin =
        std::clamp(left / 10, absl::Milliseconds(10), absl::Milliseconds(250));
    if (left - margin <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          "the call's deadline leaves no time to search");
    }
    allowed = std::min(allowed, left - margin);
  }
  const bool time_capped =
      limits.max_time == absl::ZeroDuration() || limits.max_time > allowed;
  limits = CapTime(limits, allowed);
  limits.started = start;  // the slot, the thread and the table count

  KHET_ASSIGN_OR_RETURN(AddressSlots::Slot mine,
                        per_address_.Take(control.address));
  KHET_ASSIGN_OR_RETURN(Slot slot, Reserve());
  absl::Status stopped_by;
  const SearchResult result =
      Run(pos, limits, style, start + allowed, control, &stopped_by);
  const absl::Duration elapsed = absl::Now() - start;
  if (!stopped_by.ok()) return stopped_by;
  if (result.best_move.is_null()) {
    MoveList moves;
    GenerateMoves(pos, &moves);
    if (moves.size == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(ColorName(pos.side_to_move()), " has no legal move"));
    }
    return absl::DeadlineExceededError(
        absl::StrCat("the search found no move in the ",
                     absl::ToInt64Milliseconds(allowed), " ms it had"));
  }
  out.set_side_to_move(ToProto(pos.side_to_move()));
  *out.mutable_move() = MoveToProto(pos, result.best_move);
  out.set_score(result.score);
  LineToProto(pos, result, &out);
  out.set_nodes(static_cast<int64_t>(result.nodes));
  out.set_depth(result.depth);
  out.set_elapsed_ms(absl::ToInt64Milliseconds(elapsed));
  // Cut short: the time it was given ended it before its own limits (or a
  // forced win or loss) did.
  const bool ended_by_itself =
      (limits.max_depth > 0 && result.depth >= limits.max_depth) ||
      (limits.max_nodes > 0 && result.nodes >= limits.max_nodes) ||
      std::abs(result.score) >= kMateThreshold;
  out.set_cut_short(time_capped && !ended_by_itself);
  return out;
}

absl::StatusOr<Suggestions::Slot> Suggestions::Reserve() {
  const int limit = core_.limits->max_concurrent_suggestions;
  if (running_.fetch_add(1) >= limit) {
    running_.fetch_sub(1);
    return absl::ResourceExhaustedError(absl::StrCat(
        "the server is already searching ", limit,
        " suggestions (max_concurrent_suggestions); try again shortly"));
  }
  return Slot(&running_);
}

SearchResult Suggestions::Run(const Position& pos, const SearchLimits& limits,
                              const SearchStyle& style, absl::Time stop_at,
                              const CallControl& control,
                              absl::Status* stopped_by) {
  struct Shared {
    std::atomic<bool> stop{false};
    Mutex mu;
    CondVar finished;
    bool done ABSL_GUARDED_BY(mu) = false;
    SearchResult result ABSL_GUARDED_BY(mu);
  } run;
  std::thread searcher([&] {
    SearchResult result = search_(pos, limits, style, &run.stop);
    MutexLock lock(&run.mu);
    run.result = std::move(result);
    run.done = true;
    run.finished.SignalAll();
  });
  while (true) {
    {
      MutexLock lock(&run.mu);
      if (!run.done) run.finished.WaitWithTimeout(&run.mu, kPoll);
      if (run.done) break;
    }
    if (stopped_by->ok() && control.check) *stopped_by = control.check();
    if (!stopped_by->ok() || absl::Now() >= stop_at) run.stop = true;
  }
  searcher.join();
  MutexLock lock(&run.mu);
  return std::move(run.result);
}

}  // namespace khet
