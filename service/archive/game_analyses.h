// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// AnalyzeGame: the computer's analysis of an archived game (engine/
// game_analysis.h), made in the background and kept with the game.
//
// The first call for a game starts its analysis on a thread of its own and
// answers RUNNING; calls while it runs answer its progress; once done it is
// written to the store (SessionStore::SetGameAnalysis) and every later call,
// GetGameRecord too, answers it DONE from there. At most
// ServiceLimits::max_concurrent_analyses run at once (RESOURCE_EXHAUSTED
// beyond). An analysis runs in the process that was asked; on a shared
// store another replica asked meanwhile starts its own, and the last one
// written stays. A session deleted meanwhile drops its analysis.
#ifndef KHET_SERVICE_ARCHIVE_GAME_ANALYSES_H_
#define KHET_SERVICE_ARCHIVE_GAME_ANALYSES_H_

#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/base/mutex.h"
#include "service/fair_use/address_slots.h"
#include "service/search/computer_players.h"
#include "service/sessions/service_core.h"

namespace khet {

// The search's budget per ply: the default, and the range a caller may ask.
inline constexpr int kDefaultAnalysisMsPerPly = 200;
inline constexpr int kMinAnalysisMsPerPly = 10;
inline constexpr int kMaxAnalysisMsPerPly = 2000;

class GameAnalyses {
 public:
  GameAnalyses(const ServiceCore& core, SearchFunction search);
  // Stops every analysis running and waits for its thread.
  ~GameAnalyses();
  GameAnalyses(const GameAnalyses&) = delete;
  GameAnalyses& operator=(const GameAnalyses&) = delete;

  // NOT_FOUND for an unknown session or game; FAILED_PRECONDITION for the
  // current game while it goes on, or a game without moves;
  // INVALID_ARGUMENT for ms_per_ply outside 0 or the range above;
  // RESOURCE_EXHAUSTED when too many run, in all or for `address` (the
  // caller's, Caller::address; empty: not counted), which a new analysis
  // counts toward until it ends.
  absl::StatusOr<v1::GameAnalysis> Analyze(
      const v1::AnalyzeGameRequest& request, const std::string& address);

 private:
  struct Job;

  // Runs on the job's thread: scores the game, keeps the result, then
  // leaves the table of running jobs.
  void Run(std::shared_ptr<Job> job, std::string record);
  // Joins the threads of jobs that have ended.
  void JoinEnded() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ServiceCore core_;
  const SearchFunction search_;
  // Before the jobs, which hold its slots.
  AddressSlots per_address_;
  Mutex mu_;
  // Running analyses by game id.
  absl::flat_hash_map<std::string, std::shared_ptr<Job>> running_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> ended_ ABSL_GUARDED_BY(mu_);
  CondVar left_;  // a job left running_
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

// `text` (a game record) with the analysis's comments: its heading before
// the first move, and after each move judged worse than good its mark,
// score and the better move (engine/game_analysis.h, AnalysisComment).
// `text` itself if it does not read or the analysis does not match it.
std::string RecordWithAnalysis(std::string_view text,
                               const v1::GameAnalysis& analysis);

}  // namespace khet

#endif  // KHET_SERVICE_ARCHIVE_GAME_ANALYSES_H_
