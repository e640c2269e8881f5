// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A game's result in the page's words: the sentence under a finished board
// (from GameResult's outcome and reason, not the server's English text) and
// the short ending a past game is listed with (GameSummary.ending).

import { t } from './language.js';

// The ending's words per GameSummary.ending (engine/game.cc's
// ResultReasonName, and "abandoned").
const ENDING = {
  'pharaoh hit': 'endingPharaohHit',
  'both pharaohs hit': 'endingBothPharaohsHit',
  resignation: 'endingResignation',
  'agreed draw': 'endingAgreedDraw',
  'repetition claimed': 'endingRepetitionClaimed',
  repetition: 'endingRepetition',
  'ply limit': 'endingPlyLimit',
  'time forfeit': 'endingTimeForfeit',
  abandoned: 'endingAbandoned',
};

// "pharaoh hit" as the page says it; an ending it does not know as given.
export const endingText = (ending) => (ENDING[ending] ? t(ENDING[ending]) : ending);

// The sentences of drawn games; the others name a winner.
const DRAWS = new Set(['resultBothPharaohsDraw', 'resultAgreedDraw', 'resultRepetitionClaimed',
                       'resultRepetition', 'resultTurnLimit']);

// The sentence for a GameResult (JSON): "Silver wins: Red's Pharaoh was
// hit." `side(color)` names a side (the board's colour scheme's words);
// '' while the game goes on.
export function resultSentence(result, side) {
  const outcome = result?.outcome;
  const winner = { SILVER_WINS: 'SILVER', RED_WINS: 'RED' }[outcome];
  const draw = outcome === 'DRAW';
  if (!winner && !draw) return '';
  const loser = winner === 'SILVER' ? 'RED' : 'SILVER';
  const names = winner ? { winner: side(winner), loser: side(loser) } : {};
  const key = {
    PHARAOH_HIT: 'resultPharaohHit',
    BOTH_PHARAOHS_HIT: draw ? 'resultBothPharaohsDraw' : 'resultBothPharaohsLost',
    RESIGNATION: 'resultResigned',
    AGREED_DRAW: 'resultAgreedDraw',
    REPETITION_CLAIMED: 'resultRepetitionClaimed',
    REPETITION: 'resultRepetition',
    PLY_LIMIT: 'resultTurnLimit',
    TIME_FORFEIT: 'resultTimeForfeit',
  }[result.reason];
  // A reason that does not fit the outcome (or none) says the outcome alone.
  if (!key || DRAWS.has(key) !== draw) return draw ? t('resultDraw') : t('resultWins', names);
  return t(key, names);
}
