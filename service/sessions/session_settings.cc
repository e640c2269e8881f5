// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/session_settings.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/i18n/messages.h"
#include "service/sessions/announcements.h"
#include "service/sessions/color_schemes.h"
#include "service/sessions/session_access.h"

namespace khet {
namespace {

constexpr int64_t kMaxTimeout = 604800;
constexpr double kMinScale = 1;
constexpr double kMaxScale = 30;

absl::StatusOr<v1::Session> UpdateSettingsIn(
    const ServiceCore& core, SessionEntry& entry,
    const v1::UpdateSettingsRequest& request, const Caller& caller)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  const Session& s = entry.session;
  KHET_RETURN_IF_ERROR(RequireOwner(s, caller));
  v1::Settings settings = s.state().settings();
  KHET_RETURN_IF_ERROR(ApplySettings(request.settings(), &settings,
                                     core.limits->min_timeout_seconds));
  if (settings.SerializeAsString() ==
      s.state().settings().SerializeAsString()) {
    return s.ToProto();  // nothing changed: no event
  }
  Session next = s;
  next.set_settings(settings);
  v1::Event changed = SettingsChangedEvent(next);
  KHET_RETURN_IF_ERROR(
      core.registry->Commit(entry, std::move(next), {std::move(changed)}));
  return entry.session.ToProto();
}

}  // namespace

v1::Event SettingsChangedEvent(const Session& s) {
  const v1::Session view = s.ToProto();
  v1::Event changed;
  changed.set_announcement(SettingsAnnouncement(
      view.settings(), view.color_scheme().name(), s.language()));
  *changed.mutable_settings_changed()->mutable_settings() = view.settings();
  return changed;
}

v1::Settings DefaultSettings() {
  v1::Settings s;
  s.set_timeout_enabled(true);
  s.set_timeout_seconds(3600);
  s.set_quiet(false);
  s.set_color_scheme(std::string(kDefaultColorScheme));
  s.set_scale_meters(3);
  return s;
}

absl::Status ApplySettings(const v1::SettingsUpdate& update,
                           v1::Settings* settings,
                           int64_t min_timeout_seconds) {
  v1::Settings next = *settings;
  if (update.has_timeout_enabled()) {
    next.set_timeout_enabled(update.timeout_enabled());
  }
  if (update.has_timeout_seconds()) {
    if (update.timeout_seconds() < min_timeout_seconds ||
        update.timeout_seconds() > kMaxTimeout) {
      return absl::InvalidArgumentError(
          absl::StrCat("timeout_seconds must be ", min_timeout_seconds, " to ",
                       kMaxTimeout, ", not ", update.timeout_seconds()));
    }
    next.set_timeout_seconds(update.timeout_seconds());
  }
  if (update.has_quiet()) next.set_quiet(update.quiet());
  if (update.has_hints()) next.set_hints_off(!update.hints());
  if (update.has_takebacks()) next.set_takebacks_off(!update.takebacks());
  if (update.has_rated()) next.set_rated(update.rated());
  if (update.has_language()) {
    absl::StatusOr<Language> language = ParseLanguage(update.language());
    if (!language.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("settings.language: ", language.status().message()));
    }
    next.set_language(std::string(LanguageCode(*language)));
  }
  if (update.has_color_scheme()) {
    KHET_RETURN_IF_ERROR(FindColorScheme(update.color_scheme()).status());
    next.set_color_scheme(update.color_scheme());
  }
  if (update.has_scale_meters()) {
    const double scale = update.scale_meters();
    if (!(scale >= kMinScale && scale <= kMaxScale)) {  // NaN fails too
      return absl::InvalidArgumentError(
          absl::StrCat("scale_meters must be ", kMinScale, " to ", kMaxScale,
                       ", not ", scale));
    }
    next.set_scale_meters(scale);
  }
  *settings = next;
  return absl::OkStatus();
}

absl::StatusOr<v1::Session> UpdateSettings(
    const ServiceCore& core, const v1::UpdateSettingsRequest& request,
    const Caller& caller) {
  return core.registry->Change(request.session_id(), [&](SessionEntry& entry) {
    return UpdateSettingsIn(core, entry, request, caller);
  });
}

}  // namespace khet
