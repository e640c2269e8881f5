// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The tokens this browser holds, kept in localStorage so that a reload keeps
// the seat: per session the owner token and the player's seat
// ({token, color, name}). Tokens are shown only once by the server, so losing
// them loses the seat; nothing else is stored.

const key = (sessionId) => `khet.session.${sessionId}`;

function read(sessionId) {
  try {
    return JSON.parse(localStorage.getItem(key(sessionId))) ?? {};
  } catch {
    return {};
  }
}

function write(sessionId, value) {
  if (!value.owner && !value.player) localStorage.removeItem(key(sessionId));
  else localStorage.setItem(key(sessionId), JSON.stringify(value));
}

export const tokens = {
  owner: (sessionId) => read(sessionId).owner ?? null,
  player: (sessionId) => read(sessionId).player ?? null,
  setOwner(sessionId, token) {
    write(sessionId, { ...read(sessionId), owner: token });
  },
  setPlayer(sessionId, player) {
    write(sessionId, { ...read(sessionId), player });
  },
  clearPlayer(sessionId) {
    const { player, ...rest } = read(sessionId);
    write(sessionId, rest);
  },
  forget(sessionId) {
    localStorage.removeItem(key(sessionId));
  },
  // The name last typed into a join form, offered again next time.
  get playerName() {
    return localStorage.getItem('khet.playerName') ?? '';
  },
  set playerName(name) {
    localStorage.setItem('khet.playerName', name);
  },
  // The player id last typed when joining (it identifies the player for
  // ratings; not a secret), offered again next time.
  get playerId() {
    return localStorage.getItem('khet.playerId') ?? '';
  },
  set playerId(id) {
    if (id) localStorage.setItem('khet.playerId', id);
    else localStorage.removeItem('khet.playerId');
  },
};
