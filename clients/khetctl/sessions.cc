// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Sessions: setups, colour schemes, create, get, list, delete, choose a
// setup, reset and the board.
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

// With --preset and no rules flag, the request's rules stay unset (the
// preset sets them); a rules flag beside --preset is left for khetd to
// refuse.
bool PresetWithoutRules(const CommandLine& flags) {
  if (!flags.Has("preset")) return false;
  for (const std::string& flag : kRulesFlags) {
    if (flags.Has(flag)) return false;
  }
  return true;
}

absl::Status RulesFromFlags(const CommandLine& flags, v1::RuleOptions* rules) {
  rules->set_both_pharaohs_hit_draws(flags.Switch("both_pharaohs_hit_draws"));
  rules->set_automatic_repetition_draw(
      flags.Switch("automatic_repetition_draw"));
  absl::StatusOr<int64_t> ply_limit =
      flags.GetInt("ply_limit", 0, 0, 1'000'000);
  if (!ply_limit.ok()) return ply_limit.status();
  rules->set_ply_limit(static_cast<int32_t>(*ply_limit));
  if (flags.Has("fischer") && flags.Has("per_move")) {
    return absl::InvalidArgumentError("give --fischer or --per_move, not both");
  }
  v1::TimeControl* tc = rules->mutable_time_control();
  if (flags.Has("fischer")) {
    // BASE+INCREMENT in seconds, e.g. 300+5.
    const std::string text = flags.Get("fischer");
    const std::vector<std::string> parts = absl::StrSplit(text, '+');
    double base = 0, increment = 0;
    if (parts.size() != 2 || !absl::SimpleAtod(parts[0], &base) ||
        !absl::SimpleAtod(parts[1], &increment) || base <= 0 || increment < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--fischer ", text,
          ": give BASE+INCREMENT in seconds, e.g. --fischer 300+5"));
    }
    tc->set_kind(v1::TimeControl::FISCHER);
    tc->set_base_ms(static_cast<int64_t>(base * 1000));
    tc->set_increment_ms(static_cast<int64_t>(increment * 1000));
  } else if (flags.Has("per_move")) {
    absl::StatusOr<int64_t> seconds =
        flags.GetInt("per_move", 0, 1, 7 * 24 * 3600);
    if (!seconds.ok()) return seconds.status();
    tc->set_kind(v1::TimeControl::PER_MOVE);
    tc->set_per_move_ms(*seconds * 1000);
  } else {
    rules->clear_time_control();
  }
  return absl::OkStatus();
}

int SetupsCommand(const Invocation& call) {
  return call.client.Call(
      &v1::KhetService::Stub::ListSetups, v1::ListSetupsRequest(),
      [](const v1::ListSetupsResponse& r) {
        std::string out;
        for (const v1::Setup& s : r.setups()) {
          absl::StrAppend(
              &out, absl::StrFormat("%-12s %-12s %s%s\n", s.id(), s.name(),
                                    EditionName(s.edition()),
                                    s.beam_splitter() ? ", Eye of Horus" : ""));
        }
        return out;
      });
}

int SchemesCommand(const Invocation& call) {
  return call.client.Call(
      &v1::KhetService::Stub::ListColorSchemes, v1::ListColorSchemesRequest(),
      [](const v1::ListColorSchemesResponse& r) {
        std::string out;
        for (const v1::ColorScheme& s : r.schemes()) {
          absl::StrAppend(
              &out, absl::StrFormat("%-10s %-32s silver %s  red %s  beam %s\n",
                                    s.id(), s.name(), s.silver().hex(),
                                    s.red().hex(), s.beam().hex()));
        }
        return out;
      });
}

int CreateCommand(const Invocation& call) {
  v1::CreateSessionRequest request;
  request.set_name(call.flags.Get("name"));
  request.set_setup_id(call.flags.Get("setup"));
  request.set_position(call.flags.Get("position"));
  if (call.flags.Has("record")) {
    absl::StatusOr<std::string> record =
        ReadRecordFile(call.flags.Get("record"));
    if (!record.ok()) return UsageError(record.status().message());
    request.set_record(*std::move(record));
    absl::StatusOr<int64_t> ply = call.flags.GetInt("ply", 0, 0, 1'000'000);
    if (!ply.ok()) return UsageError(ply.status().message());
    request.set_ply(static_cast<int32_t>(*ply));
  } else {
    if (call.flags.Has("ply")) return UsageError("--ply needs --record FILE");
    request.set_preset(call.flags.Get("preset"));
    if (!PresetWithoutRules(call.flags)) {
      if (absl::Status s = RulesFromFlags(call.flags, request.mutable_rules());
          !s.ok()) {
        return UsageError(s.message());
      }
    }
  }
  if (absl::Status s =
          SettingsFromFlags(call.flags, request.mutable_settings());
      !s.ok()) {
    return UsageError(s.message());
  }
  return call.client.Call(&v1::KhetService::Stub::CreateSession, request,
                          [](const v1::CreateSessionResponse& r) {
                            return absl::StrCat(
                                SessionText(r.session()),
                                "owner token: ", r.owner_token(),
                                "\n(keep it: it is shown only once)\n");
                          });
}

int GetCommand(const Invocation& call) {
  v1::GetSessionRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::GetSession, request,
                          SessionText);
}

int ListCommand(const Invocation& call) {
  v1::ListSessionsRequest request;
  absl::StatusOr<int64_t> page_size =
      call.flags.GetInt("page_size", 0, 0, 1000);
  if (!page_size.ok()) return UsageError(page_size.status().message());
  request.set_page_size(static_cast<int32_t>(*page_size));
  request.set_page_token(call.flags.Get("page_token"));
  if (call.flags.Has("status")) {
    const std::string status = absl::AsciiStrToLower(call.flags.Get("status"));
    if (status == "waiting") {
      request.set_status(v1::WAITING_FOR_PLAYERS);
    } else if (status == "in_progress") {
      request.set_status(v1::IN_PROGRESS);
    } else if (status == "finished") {
      request.set_status(v1::FINISHED);
    } else {
      return UsageError(absl::StrCat(
          "--status=", status, ": must be waiting, in_progress or finished"));
    }
  }
  return call.client.Call(
      &v1::KhetService::Stub::ListSessions, request,
      [](const v1::ListSessionsResponse& r) {
        std::string out;
        for (const v1::Session& s : r.sessions()) {
          absl::StrAppend(
              &out, absl::StrFormat("%-14s %-20s v%-5d %-12s %s\n", s.id(),
                                    StatusName(s.status()), s.version(),
                                    s.setup_id(), s.name()));
        }
        if (!r.next_page_token().empty()) {
          absl::StrAppend(&out, "more: --page_token ", r.next_page_token(),
                          "\n");
        }
        return out;
      });
}

int DeleteCommand(const Invocation& call) {
  v1::DeleteSessionRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::DeleteSession, request,
                          [&](const v1::DeleteSessionResponse&) {
                            return absl::StrCat("deleted ", call.session, "\n");
                          });
}

int SetupCommand(const Invocation& call) {
  v1::ChooseSetupRequest request;
  request.set_session_id(call.session);
  request.set_setup_id(call.flags.Get("setup"));
  request.set_position(call.flags.Get("position"));
  request.set_preset(call.flags.Get("preset"));
  if (!PresetWithoutRules(call.flags)) {
    if (absl::Status s = RulesFromFlags(call.flags, request.mutable_rules());
        !s.ok()) {
      return UsageError(s.message());
    }
  }
  return call.client.Call(&v1::KhetService::Stub::ChooseSetup, request,
                          SessionText);
}

int PresetsCommand(const Invocation& call) {
  return call.client.Call(
      &v1::KhetService::Stub::ListPresets, v1::ListPresetsRequest(),
      [](const v1::ListPresetsResponse& r) {
        std::string out;
        for (const v1::Preset& p : r.presets()) {
          absl::StrAppend(
              &out, absl::StrFormat("%-16s %s\n", p.id(), p.description()));
        }
        return out;
      });
}

int ResetCommand(const Invocation& call) {
  v1::ResetGameRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::ResetGame, request,
                          SessionText);
}

int RematchCommand(const Invocation& call) {
  v1::RematchRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::Rematch, request,
                          SessionText);
}

int BoardCommand(const Invocation& call) {
  v1::RenderBoardRequest request;
  request.set_session_id(call.session);
  request.set_without_laser(call.flags.Switch("without_laser"));
  if (call.client.json()) {
    return call.client.Call(
        &v1::KhetService::Stub::RenderBoard, request,
        [](const v1::RenderBoardResponse& r) { return r.text(); });
  }
  std::string text;
  const grpc::Status status =
      FetchBoard(call.client, call.session, request.without_laser(), &text);
  if (!status.ok()) return RpcError(status);
  std::cout << text << std::flush;
  return kExitOk;
}

}  // namespace khet::ctl
