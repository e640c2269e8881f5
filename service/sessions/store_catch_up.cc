// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/store_catch_up.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"

namespace khet {
namespace {

// Events read at once when catching up.
constexpr int kCatchUpPage = 500;

}  // namespace

StoreCatchUp::StoreCatchUp(SessionRegistry* registry, SessionStore* store)
    : registry_(registry), store_(store) {
  for (int i = 0; i < kNoticeThreads; ++i) {
    notice_threads_.push_back(std::make_unique<NoticeThread>());
  }
}

StoreCatchUp::~StoreCatchUp() { StopListening(); }

void StoreCatchUp::Listen() {
  listening_ = true;
  for (auto& notices : notice_threads_) {
    {
      MutexLock lock(&notices->mu);
      notices->stop = false;
    }
    notices->thread =
        std::thread([this, &notices = *notices] { RunNotices(notices); });
  }
  store_->SetChangeListener(
      [this](const StoreChange& change) { OnStoreChange(change); });
}

void StoreCatchUp::StopListening() {
  if (!listening_) return;
  listening_ = false;
  store_->SetChangeListener(nullptr);
  for (auto& notices : notice_threads_) {
    MutexLock lock(&notices->mu);
    notices->stop = true;
    notices->order.clear();
    notices->waiting.clear();
    notices->ready.SignalAll();
  }
  for (auto& notices : notice_threads_) notices->thread.join();
}

absl::Status StoreCatchUp::Refresh(SessionEntry& entry) {
  if (entry.deleted) return absl::OkStatus();
  // Most calls find the copy current: the version alone tells.
  absl::StatusOr<int64_t> stored_version = store_->GetVersion(entry.id);
  if (stored_version.ok() && *stored_version == entry.session.version()) {
    return absl::OkStatus();
  }
  return ReadStored(entry);
}

absl::Status StoreCatchUp::CatchUp(SessionEntry& entry) {
  if (entry.deleted) return absl::OkStatus();
  return ReadStored(entry);
}

absl::Status StoreCatchUp::ReadStored(SessionEntry& entry) {
  absl::StatusOr<SessionRecord> record = store_->Get(entry.id);
  if (absl::IsNotFound(record.status())) {
    registry_->Forget(entry);
    return absl::OkStatus();
  }
  if (!record.ok()) return record.status();
  const int64_t cached = entry.session.version();
  if (record->version <= cached) return absl::OkStatus();
  KHET_ASSIGN_OR_RETURN(Session session, SessionFromRecord(*record));
  std::vector<v1::Event> missed;
  for (int64_t after = cached; after < record->version;) {
    KHET_ASSIGN_OR_RETURN(std::vector<EventRecord> page,
                          store_->EventsAfter(entry.id, after, kCatchUpPage));
    if (page.empty()) break;  // deleted meanwhile: the next read says so
    for (const EventRecord& stored : page) {
      if (stored.version > record->version) break;
      v1::Event& event = missed.emplace_back();
      if (!event.ParseFromString(stored.event)) {
        return absl::InternalError(absl::StrCat("session \"", entry.id,
                                                "\": stored event ",
                                                stored.version, " is corrupt"));
      }
    }
    after = page.back().version;
  }
  registry_->Replace(entry, std::move(session), missed);
  return absl::OkStatus();
}

void StoreCatchUp::OnStoreChange(const StoreChange& change) {
  if (change.id.empty()) {
    // Notices may have been lost: everything is read again.
    SyncAll();
    return;
  }
  NoticeThread& notices =
      *notice_threads_[absl::HashOf(change.id) % notice_threads_.size()];
  MutexLock lock(&notices.mu);
  auto [waiting, added] =
      notices.waiting.try_emplace(change.id, Waiting{change, absl::Now()});
  if (added) {
    notices.order.push_back(change.id);
    notices.ready.Signal();
    return;
  }
  // Joins the session's waiting notice: the later version, or its deletion.
  StoreChange& joined = waiting->second.change;
  joined.version = std::max(joined.version, change.version);
  joined.deleted = joined.deleted || change.deleted;
}

void StoreCatchUp::RunNotices(NoticeThread& notices) {
  while (true) {
    StoreChange change;
    {
      MutexLock lock(&notices.mu);
      while (!notices.stop && notices.order.empty()) {
        notices.ready.WaitWithTimeout(&notices.mu, absl::Seconds(1));
      }
      if (notices.stop) return;
      const std::string id = std::move(notices.order.front());
      notices.order.pop_front();
      auto waiting = notices.waiting.find(id);
      change = std::move(waiting->second.change);
      notices.waiting.erase(waiting);
    }
    HandleChange(change);
  }
}

NoticeBacklog StoreCatchUp::Backlog() {
  NoticeBacklog backlog;
  const absl::Time now = absl::Now();
  for (auto& notices : notice_threads_) {
    MutexLock lock(&notices->mu);
    backlog.waiting += static_cast<int>(notices->order.size());
    if (!notices->order.empty()) {
      const absl::Time heard =
          notices->waiting.find(notices->order.front())->second.heard;
      backlog.oldest = std::max(backlog.oldest, now - heard);
    }
  }
  return backlog;
}

void StoreCatchUp::HandleChange(const StoreChange& change) {
  std::shared_ptr<SessionEntry> entry = registry_->Known(change.id);
  if (entry == nullptr) {
    // New elsewhere: adopt it (a failure leaves it to the next request).
    if (!change.deleted) registry_->Find(change.id).IgnoreError();
    return;
  }
  SessionLock lock(*entry);
  if (!change.deleted && change.version <= entry->session.version()) return;
  // A failure leaves the catching up to the next change, request or sweep.
  CatchUp(*entry).IgnoreError();
}

void StoreCatchUp::SyncAll() {
  registry_->ReadBackLost();
  absl::StatusOr<std::vector<SessionVersion>> versions = store_->ListVersions();
  if (!versions.ok()) return;
  std::map<std::string, std::shared_ptr<SessionEntry>> known;
  for (std::shared_ptr<SessionEntry>& entry : registry_->Entries()) {
    const std::string id = entry->id;
    known.emplace(id, std::move(entry));
  }
  for (const SessionVersion& stored : *versions) {
    auto it = known.find(stored.id);
    if (it == known.end()) {
      registry_->Find(stored.id).IgnoreError();  // adopts it
      continue;
    }
    std::shared_ptr<SessionEntry> entry = std::move(it->second);
    known.erase(it);
    SessionLock lock(*entry);
    if (stored.version > entry->session.version()) {
      Refresh(*entry).IgnoreError();
    }
  }
  // Not in the list: deleted, or created after it was read.
  for (auto& [id, entry] : known) {
    SessionLock lock(*entry);
    Refresh(*entry).IgnoreError();
  }
}

}  // namespace khet
