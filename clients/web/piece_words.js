// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Pieces and what a laser hit, in the page's words: "Silver Pyramid" (a
// side's name in the board's colour scheme, no orientation letters), and a
// move's hit note read from the record's English hit comment
// (docs/notation.md, "Hit comments") and said again in the page's language.

import { t } from './language.js';

// Piece types (the API's and the record's names) to their words' keys.
const TYPE = {
  PHARAOH: 'piecePharaoh',
  PYRAMID: 'piecePyramid',
  SCARAB: 'pieceScarab',
  DJED: 'pieceDjed',
  ANUBIS: 'pieceAnubis',
  SPHINX: 'pieceSphinx',
  EYE_OF_HORUS: 'pieceEye',
  OBELISK: 'pieceObelisk',
  OBELISK_STACK: 'pieceObeliskStack',
};
const RECORD_TYPE = {
  Pharaoh: 'PHARAOH',
  Pyramid: 'PYRAMID',
  Scarab: 'SCARAB',
  Djed: 'DJED',
  Anubis: 'ANUBIS',
  Sphinx: 'SPHINX',
  'Eye of Horus': 'EYE_OF_HORUS',
  Obelisk: 'OBELISK',
};

// A piece of `type` of side `color` (SILVER or RED): "Silver Pyramid".
// `side(color)` names the side.
export function sidePiece(type, color, side) {
  return t('pieceOfSide', { side: side(color), piece: TYPE[type] ? t(TYPE[type]) : type });
}

// A Piece (JSON) on a board of `edition`: a Khet 1.0 Scarab is a Djed, two
// Obelisks a stack.
export function pieceName(piece, edition, side) {
  let type = piece.type;
  if (type === 'SCARAB' && edition === 'KHET_1') type = 'DJED';
  if (type === 'OBELISK' && piece.height > 1) type = 'OBELISK_STACK';
  return sidePiece(type, piece.color, side);
}

const PIECE_HIT = new RegExp(`^(top of the )?(Silver|Red) (${Object.keys(RECORD_TYPE).join('|')})`
                             + '( stack)? on ([a-j][1-8])$');

// "A", "A and B", "A, B and C" in the page's words.
function list(items) {
  if (items.length < 2) return items.join('');
  return t('listAnd', { list: items.slice(0, -1).join(', '), last: items[items.length - 1] });
}

// Splits the record's "A, B and C" into its items.
const items = (text) => text.split(/, | and /);

// The record's hit comment ("beam split on f5; Red Pyramid on h5 and Red
// Pharaoh on f8 hit") in the page's words; a comment it cannot read is
// given as written.
export function hitNote(comment, side) {
  const whole = /^(?:beam split on ([a-j1-8 and]+); )?(.+) hit$/.exec(comment ?? '');
  if (!whole) return comment;
  const pieces = [];
  for (const item of items(whole[2])) {
    const hit = PIECE_HIT.exec(item);
    if (!hit) return comment;
    const [, top, color, type, , square] = hit;
    const piece = sidePiece(RECORD_TYPE[type], color.toUpperCase(), side);
    pieces.push(t(top ? 'hitStackTop' : 'hitPiece', { piece, square }));
  }
  const hits = t('hitNote', { pieces: list(pieces) });
  if (!whole[1]) return hits;
  return t('hitAfterSplit', { squares: list(items(whole[1])), hits });
}
