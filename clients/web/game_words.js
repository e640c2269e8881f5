// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What a board's page says about its session in words, in the page's
// language: whose turn it is and what waits for an answer (a draw offered, a
// takeback asked), how long until the inactivity timeout, and the side whose
// time ran out. game.js puts them on the page.

import { t } from './language.js';

// The colour of a session field that names one, or null when unset.
export const colorOf = (value) => (value && value !== 'COLOR_UNSPECIFIED' ? value : null);

// The side whose time ran out in a game that ended so, else null.
export function flaggedSide(result) {
  if (result?.reason !== 'TIME_FORFEIT') return null;
  return { SILVER_WINS: 'RED', RED_WINS: 'SILVER' }[result.outcome] ?? null;
}

// "12 min" or "45 s", in the page's language.
export function duration(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds >= 120 ? t('minutes', { count: Math.round(seconds / 60) })
    : t('seconds', { count: seconds });
}

// The line above the board for session `s`: the free seats while it waits
// for players, else whose move it is, a draw offered, a takeback asked and a
// third repetition. `me` is the seat this page holds (or null); side(color)
// names a side as the board's colour scheme paints it.
export function turnText(s, me, side) {
  const offeredBy = s.drawOfferedBy && s.drawOfferedBy !== 'COLOR_UNSPECIFIED'
    ? s.drawOfferedBy : null;
  if (s.status === 'WAITING_FOR_PLAYERS') {
    const free = (s.seats ?? []).filter((seat) => !seat.occupied)
      .map((seat) => side(seat.color));
    if (free.length > 1) {
      return t('waitingMany', { free: t('listAnd', { list: free[0], last: free[1] }) });
    }
    return t('waitingOne', { free: free[0] });
  }
  if (s.status !== 'IN_PROGRESS') return t('gameOver');
  const mover = side(s.board?.sideToMove);
  const parts = [me && s.board?.sideToMove === me.color ? t('yourMove', { side: mover })
    : t('sideToMove', { side: mover })];
  if (offeredBy) {
    parts.push(offeredBy === me?.color ? t('youOfferedDraw')
      : t('sideOffersDraw', { side: side(offeredBy) }));
  }
  const asker = colorOf(s.takebackRequestedBy);
  if (asker) {
    parts.push(asker === me?.color ? t('youAskedTakeback')
      : t('sideAsksTakeback', { side: side(asker) }));
  }
  if (s.repetitionCount >= 3) parts.push(t('repeatedThrice'));
  return parts.join(' ');
}
