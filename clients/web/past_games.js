// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The lobby's list of past games (archived, newest first), each opening the
// game for review; and the words for a game's players and result.

import { language, t } from './language.js';
import { api } from './api.js';
import { setupName } from './catalog.js';
import { $, h, show } from './dom.js';
import { endingText } from './result_words.js';

const PAGE_SIZE = 20;

const RESULT = { '1-0': 'silverWon', '0-1': 'redWon', '1/2-1/2': 'draw', '*': 'unfinished' };

// "Ada (Silver) v Bo (Red)"; an empty seat is "nobody".
export function gameTitle(game) {
  const name = (player) => player || t('nobody');
  return t('gameTitle', { silver: name(game.silverPlayer), red: name(game.redPlayer) });
}

// "Silver won: Pharaoh hit", "Unfinished: abandoned", in the page's words.
export function resultText(game) {
  const result = RESULT[game.result] ? t(RESULT[game.result]) : game.result ?? '';
  return game.ending ? t('resultEnding', { result, ending: endingText(game.ending) }) : result;
}

// "12 turns" for a game of 12 plies.
export const turnCount = (plies) => t(plies === 1 ? 'turnCountOne' : 'turnCountOther',
                                      { count: plies });

// A time as the page's language writes it ("27 Nov 2026, 10:00").
export const dateText = (date) =>
  date.toLocaleString(language(), { dateStyle: 'medium', timeStyle: 'short' });

export const reviewHash = (game) =>
  `#/s/${encodeURIComponent(game.sessionId)}/games/${encodeURIComponent(game.id)}`;

export class PastGames {
  constructor() {
    this.shown = null;  // the games listed, as JSON
  }

  // The next refresh draws the list again (in the page's new language).
  forget() {
    this.shown = null;
  }

  // Reads the list again; `setups` names the setups. Rejects on failure.
  async refresh(setups) {
    const reply = await api.listGames({ pageSize: PAGE_SIZE });
    const games = reply.games ?? [];
    const shown = JSON.stringify([games, setups.length]);
    if (shown === this.shown) return;  // keeps focus in the list
    this.shown = shown;
    show($('game-list-empty'), games.length === 0);
    $('game-list-more').textContent = t('gamesCapped', { count: PAGE_SIZE });
    show($('game-list-more'), Boolean(reply.nextPageToken));
    $('game-list').replaceChildren(...games.map((game) => this.entry(game, setups)));
  }

  entry(game, setups) {
    const ended = game.endedAt ? new Date(game.endedAt) : null;
    const plies = game.plies ?? 0;
    const outcome = { '1-0': 'silver', '0-1': 'red', '1/2-1/2': 'draw' }[game.result] ?? 'none';
    return h('li', { class: 'session-entry game-entry', 'data-game': game.id },
      h('a', { href: reviewHash(game), class: 'session-name' }, gameTitle(game)),
      h('span', { class: `badge result-${outcome}` }, resultText(game)),
      h('span', { class: 'muted' }, setupName(setups, game.setupId)),
      h('span', { class: 'muted' }, turnCount(plies)),
      ended ? h('time', { class: 'muted', datetime: game.endedAt }, dateText(ended)) : null);
  }
}
