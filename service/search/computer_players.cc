// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/search/computer_players.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "service/search/search_tables.h"

namespace khet {
namespace {

// How long an idle thread sleeps before it looks again by itself; Schedule
// and Shutdown wake it sooner.
constexpr absl::Duration kIdleWait = absl::Seconds(10);

}  // namespace

ComputerPlayers::ComputerPlayers(Options options, DoneFunction done, Gate gate)
    : search_(SearchOrDefault(std::move(options.search),
                              std::max(1, options.threads))),
      gate_(std::move(gate)),
      done_(std::move(done)) {
  const int threads = std::max(1, options.threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

ComputerPlayers::ComputerPlayers(Options options, DoneFunction done)
    : ComputerPlayers(std::move(options), std::move(done), Gate()) {}

ComputerPlayers::~ComputerPlayers() { Shutdown(); }

void ComputerPlayers::Schedule(ComputerTurn turn, absl::Duration delay) {
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    auto it = jobs_.find(turn.session_id);
    if (it != jobs_.end()) {
      Job& job = it->second;
      if (job.turn.position == turn.position && job.turn.level == turn.level) {
        job.turn.version = turn.version;  // the same search still fits
        return;
      }
      job.stop->store(true);
      jobs_.erase(it);
    }
    Job job;
    job.id = next_id_++;
    job.turn = std::move(turn);
    job.not_before = absl::Now() + delay;
    job.stop = std::make_shared<std::atomic<bool>>(false);
    std::string id = job.turn.session_id;
    jobs_.emplace(std::move(id), std::move(job));
  }
  changed_.SignalAll();
}

void ComputerPlayers::Cancel(const std::string& session_id) {
  MutexLock lock(&mu_);
  auto it = jobs_.find(session_id);
  if (it == jobs_.end()) return;
  it->second.stop->store(true);
  jobs_.erase(it);
}

void ComputerPlayers::Shutdown() {
  MutexLock join_lock(&join_mu_);
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    for (auto& [id, job] : jobs_) job.stop->store(true);
    jobs_.clear();
  }
  changed_.SignalAll();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

int ComputerPlayers::pending() {
  MutexLock lock(&mu_);
  return static_cast<int>(jobs_.size());
}

ComputerPlayers::Job* ComputerPlayers::NextJob(absl::Time now,
                                               absl::Time* wake) {
  Job* next = nullptr;
  for (auto& [id, job] : jobs_) {
    if (job.running) continue;
    if (job.not_before > now) {
      *wake = std::min(*wake, job.not_before);
      continue;
    }
    if (next == nullptr || job.id < next->id) next = &job;
  }
  return next;
}

void ComputerPlayers::Work() {
  mu_.Lock();
  while (!stopping_) {
    const absl::Time now = absl::Now();
    absl::Time wake = now + kIdleWait;
    Job* job = NextJob(now, &wake);
    if (job == nullptr) {
      changed_.WaitWithTimeout(&mu_, wake - now);
      continue;
    }
    job->running = true;
    const uint64_t id = job->id;
    ComputerTurn turn = job->turn;
    const std::shared_ptr<std::atomic<bool>> stop = job->stop;
    mu_.Unlock();

    if (gate_.may_search && !gate_.may_search(turn)) {
      mu_.Lock();
      auto it = jobs_.find(turn.session_id);
      if (it != jobs_.end() && it->second.id == id) {
        it->second.running = false;
        it->second.not_before = absl::Now() + gate_.recheck;
      }
      continue;
    }
    const SearchResult result =
        search_(turn.position, turn.limits, turn.style, stop.get());

    mu_.Lock();
    bool stopped = stop->load();
    auto it = jobs_.find(turn.session_id);
    if (it != jobs_.end() && it->second.id == id) {
      turn.version = it->second.turn.version;  // Schedule may have moved it on
      jobs_.erase(it);
    } else {
      stopped = true;  // cancelled or replaced meanwhile
    }
    mu_.Unlock();
    done_(turn, result, stopped);
    mu_.Lock();
  }
  mu_.Unlock();
}

}  // namespace khet
