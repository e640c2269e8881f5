// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Square names and the squares only one colour may enter (rules section 1).

export const FILES = 'abcdefghij';

// "e1" for file 4, rank 0.
export const squareName = (file, rank) => `${FILES[file]}${rank + 1}`;

// { file, rank } (0-based) of a square name.
export const squareAt = (name) => ({
  file: FILES.indexOf(name[0]),
  rank: Number(name.slice(1)) - 1,
});

// 'SILVER' or 'RED' for a square reserved for that colour, else null.
export function squareOwner(file, rank) {
  if (file === 9 || (file === 1 && (rank === 0 || rank === 7))) return 'SILVER';
  if (file === 0 || (file === 8 && (rank === 0 || rank === 7))) return 'RED';
  return null;
}
