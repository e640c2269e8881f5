// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A game's record beside its board: the move list, the download link, the
// computer's analysis, and the replay the list drives. The board page shows
// the session's current game this way (re-read as it grows), the review
// page an archived one.

import { t } from './language.js';
import { Analysis } from './analysis.js';
import { api } from './api.js';
import { h, pageError, show } from './dom.js';
import { MoveList } from './move_list.js';
import { Replay } from './replay.js';

export class GameRecordPanel {
  // panel: the element filled (a .panel); board: the BoardView replayed on;
  // bar: the element for the replay's status; page: the page element; live:
  // whether the board shows a live game besides the replay. onReplay(ply)
  // hears of the ply shown (null: the live game); onRecord(record) of each
  // record read (GetGameRecordResponse).
  constructor(panel, { board, bar, page, live, onReplay = () => {}, onRecord = () => {} }) {
    this.onRecord = onRecord;
    this.sessionId = null;
    this.game = null;  // as asked for: a game id or "current"
    this.reading = false;
    this.readAgain = false;
    this.failed = false;  // the last read failed (and said so)

    // data-i18n: relabelled when the board's language changes (language.js).
    this.download = h('a', { class: 'button secondary record-link', download: '',
                             'data-i18n': 'downloadRecord' }, t('downloadRecord'));
    const analysis = h('div');
    this.listElement = h('ol', { class: 'move-list', 'aria-label': t('moves'),
                                 'data-i18n-attr': 'aria-label:moves' });
    this.empty = h('p', { class: 'muted small', 'data-i18n': 'noMoves' }, t('noMoves'));
    panel.replaceChildren(
      h('div', { class: 'panel-head' },
        h('h3', { 'data-i18n': 'moves' }, t('moves')), this.download),
      this.empty, this.listElement, analysis);
    this.list = new MoveList(this.listElement, { onPick: (ply) => this.replay.show(ply) });
    this.analysis = new Analysis(analysis, { onResult: (plies) => this.list.setAnalysis(plies) });
    this.replay = new Replay(board, bar, page, {
      live,
      side: (color) => this.list.side(color),
      onChange: (ply) => {
        this.select();
        this.list.followFocus();
        onReplay(ply);
      },
    });
  }

  // Names the sides after the board's colour scheme (an id; null: Classic).
  setScheme(scheme) {
    this.list.setScheme(scheme);
    this.replay.draw();
  }

  sideName(color) {
    return this.list.side(color);
  }

  // Writes the words made in code again, in the page's new language.
  relabel() {
    this.list.relabel();
    this.analysis.relabel();
    this.replay.draw();
  }

  get replaying() {
    return this.replay.replaying;
  }

  open(sessionId, game) {
    this.sessionId = sessionId;
    this.game = game;
    this.list.setMoves([]);
    this.list.relabel();  // the language may have changed since the last game shown
    this.replay.setGame(sessionId, null, []);
    show(this.download, false);
    this.refresh();
  }

  close() {
    this.sessionId = null;
  }

  select() {
    this.list.select(this.replay.ply ?? this.list.plies);
  }

  // Reads the record again; calls made while one is in flight are coalesced.
  // Before open() (or after close()) there is no record to read.
  async refresh() {
    if (!this.sessionId || !this.game) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.readAgain = false;
    const { sessionId, game } = this;
    const current = () => sessionId === this.sessionId && game === this.game;
    try {
      const record = await api.gameRecord(sessionId, game);
      if (current()) {
        if (this.failed) pageError(null);
        this.failed = false;
        this.apply(record);
      }
    } catch (error) {
      if (current()) {
        this.failed = true;
        pageError({ message: t('movesNotRead', { error: error.message }) });
      }
    } finally {
      this.reading = false;
      if (this.readAgain && this.sessionId) this.refresh();
    }
  }

  apply(record) {
    const summary = record.game ?? {};
    const moves = record.moves ?? [];
    this.list.setMoves(moves);
    this.replay.setGame(this.sessionId, summary.id, moves);
    this.select();
    show(this.empty, moves.length === 0);
    show(this.listElement, moves.length > 0);
    show(this.download, moves.length > 0);
    this.download.href = api.recordUrl(this.sessionId, summary.id);
    // A game that ended (or was abandoned) has an ending.
    const finished = Boolean(summary.archived || summary.ending);
    this.analysis.setGame(this.sessionId, summary.id,
                          { finished: finished && moves.length > 0, analysis: record.analysis });
    this.onRecord(record);
  }
}
