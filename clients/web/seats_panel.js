// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The board page's seats: per colour who sits there (a person, "you" or the
// computer at its level) with the rating of a player id, and the buttons to
// join a free seat, seat the computer there or take it away.

import { api } from './api.js';
import { $, h } from './dom.js';
import { t } from './language.js';

export class SeatsPanel {
  // side(color) names a side as the board's colour scheme paints it;
  // levels() answers the computer's levels ({number, name}); join(color)
  // seats this page's player; seatComputer(color, level) and
  // removeComputer(color) seat the computer and take it away; rated() hears
  // of a rating read (to draw the seats again).
  constructor({ side, levels, join, seatComputer, removeComputer, rated }) {
    Object.assign(this, { side, levels, join, seatComputer, removeComputer, rated });
    this.ratings = new Map();  // player id -> { key, rating } (rating null: none yet)
  }

  // The seats of session `s`, for `me` (the seat this page holds, or null)
  // and `owner` (the board's key, or null).
  render(s, me, owner) {
    const canSeatComputer = Boolean(owner || me);
    const seated = Boolean(me) || (s.seats ?? []).every((seat) => seat.occupied);
    $('player-name-label').hidden = seated;
    $('player-id-field').hidden = seated;
    $('seats').replaceChildren(...(s.seats ?? []).map((seat) => {
      const color = seat.color;
      const name = this.side(color);
      const mine = me?.color === color;
      const player = seat.computer
        ? t('playerComputerLevel', { name: seat.playerName, level: seat.computerLevel })
        : seat.playerName;
      const who = !seat.occupied ? h('span', { class: 'free' }, t('free'))
        : h('span', { class: 'seat-player' }, mine ? t('playerYou', { name: player }) : player);
      const rated = seat.occupied && !seat.computer ? this.rating(seat.playerId, s) : null;
      const rating = rated ? h('span', {
        class: 'seat-rating', title: t('ratingGames', { count: rated.games }),
      }, t('seatRating', { rating: rated.rating })) : null;
      const actions = [];
      if (!seat.occupied && !me) {
        actions.push(h('button', { type: 'button', onclick: () => this.join(color) },
                       t('joinAs', { side: name })));
      }
      if (!seat.occupied && canSeatComputer) {
        const level = h('select', { 'aria-label': t('computerLevelFor', { side: name }) },
          ...this.levels().map((l) => h('option', { value: l.number, selected: l.number === 3 },
                                        `${l.number}: ${l.name}`)));
        actions.push(level, h('button', {
          type: 'button', class: 'secondary',
          onclick: () => this.seatComputer(color, Number(level.value)),
        }, t('computerAs', { side: name })));
      }
      if (seat.computer && canSeatComputer) {
        actions.push(h('button', {
          type: 'button', class: 'secondary',
          onclick: () => this.removeComputer(color),
        }, t('removeComputer')));
      }
      return h('div', { class: `seat seat-${color.toLowerCase()}`, 'data-color': color },
        h('div', { class: 'seat-who' },
          h('span', { class: `swatch ${color.toLowerCase()}`, 'aria-hidden': 'true' }),
          h('strong', {}, name), ' ', who, rating ? ' ' : null, rating),
        actions.length ? h('div', { class: 'controls' }, ...actions) : null);
    }));
  }

  // The rating of a seat's player id, read once per game and status (so a
  // rated game's end shows the new one); null until known or while unrated.
  rating(playerId, s) {
    if (!playerId) return null;
    const key = `${s.gameId}|${s.status}`;
    const known = this.ratings.get(playerId);
    if (known?.key === key) return known.rating;
    this.ratings.set(playerId, { key, rating: known?.rating ?? null });
    api.getPlayer(playerId).then(
      (player) => ({ rating: Math.round(player.rating), games: player.games }),
      (error) => (error.code === 'NOT_FOUND' ? null : known?.rating ?? null),
    ).then((rating) => {
      if (this.ratings.get(playerId)?.key !== key) return;
      this.ratings.set(playerId, { key, rating });
      this.rated();
    });
    return known?.rating ?? null;
  }
}
