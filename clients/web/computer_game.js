// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A game against the computer in one step: a new board (the default setup,
// or a position), the player in Silver's seat and the computer in Red's at
// a level; the board speaks the player's language and the browser keeps
// the owner's and the player's tokens. Answers the new session's id.

import { api } from './api.js';
import { language, t } from './language.js';
import { tokens } from './tokens.js';

export async function startComputerGame({ playerName, level, position, boardName }) {
  const name = playerName || t('defaultPlayer');
  const created = await api.createSession({
    name: boardName ?? t('quickBoardName', { name }),
    ...(position ? { position } : {}),
    settings: { language: language() },
  });
  const id = created.session.id;
  tokens.setOwner(id, created.ownerToken);
  const joined = await api.join(id, { color: 'SILVER', playerName: name });
  tokens.playerName = name;
  tokens.setPlayer(id, { token: joined.playerToken, color: joined.color, name });
  await api.seatComputer(id, created.ownerToken, { color: 'RED', level });
  return id;
}
