// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/archive/game_analyses.h"

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/game_analysis.h"
#include "engine/game_record.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "service/archive/game_archive.h"
#include "service/base/status_macros.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

v1::MoveJudgement JudgementToProto(Judgement j) {
  switch (j) {
    case Judgement::kGood:
      return v1::GOOD;
    case Judgement::kInaccuracy:
      return v1::INACCURACY;
    case Judgement::kMistake:
      return v1::MISTAKE;
    case Judgement::kBlunder:
      return v1::BLUNDER;
  }
  return v1::MOVE_JUDGEMENT_UNSPECIFIED;
}

Judgement JudgementFromProto(v1::MoveJudgement j) {
  switch (j) {
    case v1::INACCURACY:
      return Judgement::kInaccuracy;
    case v1::MISTAKE:
      return Judgement::kMistake;
    case v1::BLUNDER:
      return Judgement::kBlunder;
    default:
      return Judgement::kGood;
  }
}

v1::PlyAnalysis PlyToProto(const Position& before, const PlyAnalysis& ply) {
  v1::PlyAnalysis out;
  out.set_ply(ply.ply);
  out.set_mover(ToProto(ply.mover));
  out.set_played(FormatMove(before, ply.played));
  if (!(ply.best == ply.played))
    out.set_best_move(FormatMove(before, ply.best));
  out.set_best_score(ply.best_score);
  out.set_played_score(ply.played_score);
  out.set_loss(ply.loss());
  out.set_judgement(JudgementToProto(ply.judgement));
  return out;
}

absl::StatusOr<int> MsPerPly(int asked) {
  if (asked == 0) return kDefaultAnalysisMsPerPly;
  if (asked < kMinAnalysisMsPerPly || asked > kMaxAnalysisMsPerPly) {
    return absl::InvalidArgumentError(
        absl::StrCat("ms_per_ply must be ", kMinAnalysisMsPerPly, " to ",
                     kMaxAnalysisMsPerPly, ", or 0 for ",
                     kDefaultAnalysisMsPerPly, "; not ", asked));
  }
  return asked;
}

}  // namespace

struct GameAnalyses::Job {
  std::string game_id;
  AddressSlots::Slot slot;  // of the address that asked
  std::atomic<bool> stop{false};
  std::thread thread;  // under GameAnalyses::mu_
  Mutex mu;
  v1::GameAnalysis progress ABSL_GUARDED_BY(mu);
};

GameAnalyses::GameAnalyses(const ServiceCore& core, SearchFunction search)
    : core_(core),
      search_(std::move(search)),
      per_address_(Budget::kAnalyses, "game analyses",
                   core.limits->max_analyses_per_address, absl::Seconds(10)) {}

GameAnalyses::~GameAnalyses() {
  MutexLock lock(&mu_);
  stopping_ = true;
  for (auto& [id, job] : running_) job->stop = true;
  // Each job leaves running_ as its last step, giving its thread to ended_.
  while (!running_.empty()) {
    left_.WaitWithTimeout(&mu_, absl::Milliseconds(100));
  }
  JoinEnded();
}

void GameAnalyses::JoinEnded() {
  for (std::thread& t : ended_) t.join();
  ended_.clear();
}

absl::StatusOr<v1::GameAnalysis> GameAnalyses::Analyze(
    const v1::AnalyzeGameRequest& request, const std::string& address) {
  KHET_ASSIGN_OR_RETURN(const int ms_per_ply, MsPerPly(request.ms_per_ply()));
  KHET_ASSIGN_OR_RETURN(FoundGame found,
                        FindGame(core_, request.session_id(), request.game_id(),
                                 /*with_analysis=*/true));
  const std::string& id = found.summary.id();
  if (!found.summary.archived()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "game \"", id, "\" is still going: it can be analysed once it ends"));
  }
  if (found.summary.plies() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("game \"", id, "\" has no moves to analyse"));
  }
  if (!found.analysis.empty()) {
    v1::GameAnalysis done;
    if (done.ParseFromString(found.analysis)) return done;
    // Unreadable: made again below.
  }

  MutexLock lock(&mu_);
  JoinEnded();
  if (auto it = running_.find(id); it != running_.end()) {
    MutexLock job_lock(&it->second->mu);
    return it->second->progress;
  }
  if (stopping_) {
    return absl::UnavailableError("the server is shutting down");
  }
  if (static_cast<int>(running_.size()) >=
      core_.limits->max_concurrent_analyses) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many games are being analysed (", running_.size(),
                     "): ask again when one is done"));
  }
  KHET_ASSIGN_OR_RETURN(AddressSlots::Slot slot, per_address_.Take(address));
  auto job = std::make_shared<Job>();
  job->game_id = id;
  job->slot = std::move(slot);
  v1::GameAnalysis progress;
  progress.set_game_id(id);
  progress.set_state(v1::GameAnalysis::RUNNING);
  progress.set_plies(found.summary.plies());
  progress.set_ms_per_ply(ms_per_ply);
  {
    MutexLock job_lock(&job->mu);
    job->progress = progress;
  }
  running_[id] = job;
  job->thread =
      std::thread(&GameAnalyses::Run, this, job, std::move(found.text));
  return progress;
}

void GameAnalyses::Run(std::shared_ptr<Job> job, std::string record) {
  absl::StatusOr<GameRecord> read = ParseGameRecord(record);
  int ms_per_ply = 0;
  {
    MutexLock lock(&job->mu);
    ms_per_ply = job->progress.ms_per_ply();
  }
  if (read.ok()) {
    SearchLimits limits;
    limits.max_time = absl::Milliseconds(ms_per_ply);
    const Game& game = read->game;
    Position before = game.start();
    const std::vector<PlyAnalysis> plies = AnalyzeGame(
        game,
        [&](const Position& pos, const SearchStyle& style) {
          return search_(pos, limits, style, &job->stop);
        },
        [&](const PlyAnalysis& ply) {
          v1::PlyAnalysis scored = PlyToProto(before, ply);
          MakeMove(&before, ply.played);
          MutexLock lock(&job->mu);
          *job->progress.add_moves() = std::move(scored);
          job->progress.set_plies_analyzed(ply.ply);
        },
        &job->stop);
    if (!job->stop && static_cast<int>(plies.size()) == game.ply()) {
      std::string bytes;
      {
        MutexLock lock(&job->mu);
        job->progress.set_state(v1::GameAnalysis::DONE);
        bytes = job->progress.SerializeAsString();
      }
      // A session deleted meanwhile took its game along: nothing to keep.
      core_.registry->store()
          ->SetGameAnalysis(job->game_id, bytes)
          .IgnoreError();
    }
  }
  MutexLock lock(&mu_);
  ended_.push_back(std::move(job->thread));
  running_.erase(job->game_id);
  left_.SignalAll();
}

std::string RecordWithAnalysis(std::string_view text,
                               const v1::GameAnalysis& analysis) {
  absl::StatusOr<GameRecord> record = ParseGameRecord(text);
  if (!record.ok() || analysis.moves_size() != record->game.ply()) {
    return std::string(text);
  }
  record->comments.resize(record->game.ply() + 1);
  record->comments[0].push_back(AnalysisHeading(analysis.ms_per_ply()));
  for (const v1::PlyAnalysis& ply : analysis.moves()) {
    const std::string comment =
        AnalysisComment(JudgementFromProto(ply.judgement()), ply.played_score(),
                        ply.best_move(), ply.best_score());
    if (!comment.empty() && ply.ply() >= 1 && ply.ply() <= record->game.ply()) {
      record->comments[ply.ply()].push_back(comment);
    }
  }
  return FormatGameRecord(*record);
}

}  // namespace khet
