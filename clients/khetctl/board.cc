// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Boards for people: RenderBoard's text with a finished game's last line
// saying who won and why (the engine's line names the side that would move
// next), and the key to the pieces under it.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

std::string BoardForPeople(absl::string_view board_text,
                           const v1::Session& session) {
  std::string board(board_text);
  if (GameOver(session.result())) {
    // The last line is "Red to move, Khet 2.0".
    const size_t end = board.find_last_not_of('\n');
    const size_t start = board.rfind('\n', end) + 1;  // 0 if only one line
    board = absl::StrCat(board.substr(0, start),
                         "Game over: ", session.result().text(), " (",
                         EditionName(session.board().edition()), ")\n");
  }
  return absl::StrCat(board, LegendLine(board));
}

grpc::Status FetchBoard(Client& client, const std::string& session_id,
                        bool without_laser, std::string* text) {
  v1::RenderBoardRequest request;
  request.set_session_id(session_id);
  request.set_without_laser(without_laser);
  v1::RenderBoardResponse board;
  grpc::Status status =
      client.stub().RenderBoard(client.Context().get(), request, &board);
  if (!status.ok()) return status;
  v1::GetSessionRequest get;
  get.set_session_id(session_id);
  v1::Session session;
  status = client.stub().GetSession(client.Context().get(), get, &session);
  if (!status.ok()) return status;
  *text = BoardForPeople(board.text(), session);
  return grpc::Status::OK;
}

}  // namespace khet::ctl
