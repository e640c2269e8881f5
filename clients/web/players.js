// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The players page (#/players): every rated player, best rating first, a
// page at a time from the server, with their rating, its uncertainty and
// their record in rated games.

import { api } from './api.js';
import { $, h, pageError, show } from './dom.js';
import { t } from './language.js';

const PAGE_SIZE = 50;

export class PlayersPage {
  constructor() {
    this.nextToken = '';
    this.opened = 0;  // counts opens, so that an old answer is dropped
    $('players-more').addEventListener('click', () => this.load(this.opened));
  }

  open() {
    this.opened += 1;
    this.nextToken = '';
    document.title = `${t('playersTitle')} · Khet`;
    $('player-rows').replaceChildren();
    show($('players-empty'), false);
    show($('players-more'), false);
    show($('players'), true);
    this.load(this.opened);
  }

  // The words made here, again in the page's new language.
  relabel() {
    document.title = `${t('playersTitle')} · Khet`;
  }

  close() {
    this.opened += 1;
    show($('players'), false);
  }

  async load(opened) {
    try {
      const answer = await api.listPlayers({ pageSize: PAGE_SIZE, pageToken: this.nextToken });
      if (opened !== this.opened) return;
      pageError(null);
      const rows = $('player-rows');
      for (const player of answer.players ?? []) {
        const rank = rows.children.length + 1;
        rows.append(h('tr', { 'data-player-id': player.playerId },
          h('td', {}, String(rank)),
          h('td', {}, h('strong', {}, player.name || player.playerId), ' ',
            h('span', { class: 'muted small' }, player.playerId)),
          h('td', { class: 'rating' },
            `${Math.round(player.rating)} ± ${Math.round(player.deviation)}`),
          h('td', {}, String(player.games)),
          h('td', {}, `${player.wins} / ${player.draws} / ${player.losses}`)));
      }
      this.nextToken = answer.nextPageToken ?? '';
      show($('players-empty'), rows.children.length === 0);
      show($('players-more'), Boolean(this.nextToken));
    } catch (error) {
      if (opened === this.opened) pageError(error);
    }
  }
}
