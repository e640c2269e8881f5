// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A past game under review (#/s/<session id>/games/<game id>): its board at
// any ply, its moves, the computer's analysis and the record to download.
// Nothing can be played here.

import { t } from './language.js';
import { api } from './api.js';
import { BoardView } from './board.js';
import { catalog, setupName } from './catalog.js';
import { $, show } from './dom.js';
import { GameRecordPanel } from './game_record.js';
import { resultSentence } from './result_words.js';
import { dateText, gameTitle, resultText, turnCount } from './past_games.js';

export class ReviewPage {
  constructor() {
    this.board = new BoardView($('review-board'), { onSquare: () => {} });
    this.setups = [];
    this.shownRecord = null;  // the record described, for relabel()
    this.record = new GameRecordPanel($('review-moves'), {
      board: this.board, bar: $('review-bar'), page: $('review'), live: false,
      onRecord: (record) => this.describe(record),
    });
  }

  async open(sessionId, gameId) {
    show($('review'), true);
    $('review-title').textContent = t('loading');
    $('review-meta').textContent = '';
    show($('review-result'), false);
    $('review-board-link').href = `#/s/${encodeURIComponent(sessionId)}`;
    this.record.open(sessionId, gameId);
    try {
      ({ setups: this.setups } = await catalog());
    } catch {
      this.setups = [];  // setup ids stand in for their names
    }
    // The board in its session's colours, its sides named after them.
    this.record.setScheme(null);
    api.getSession(sessionId).then((session) => {
      this.board.setScheme(session.colorScheme);
      this.record.setScheme(session.settings?.colorScheme);
      if (this.shownRecord) this.describe(this.shownRecord);
    }, () => {});
  }

  close() {
    show($('review'), false);
    this.record.close();
  }

  // The words made here, again in the page's new language.
  relabel() {
    this.record.relabel();
    if (this.shownRecord) this.describe(this.shownRecord);
  }

  describe(record) {
    this.shownRecord = record;
    const game = record.game ?? {};
    const title = gameTitle(game);
    document.title = `${title} · Khet`;
    $('review-title').textContent = title;
    const when = game.endedAt ?? game.startedAt;
    const ended = when ? new Date(when) : null;
    $('review-meta').textContent = [
      setupName(this.setups, game.setupId), resultText(game), turnCount(game.plies ?? 0),
      ended ? dateText(ended) : null,
    ].filter(Boolean).join(' · ');
    const sentence = resultSentence(record.result, (color) => this.record.sideName(color));
    $('review-result').textContent = sentence;
    show($('review-result'), Boolean(sentence));
  }
}
