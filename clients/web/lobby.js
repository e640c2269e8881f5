// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The lobby: a one-click game against the computer, the boards on the
// server with their status and players and the past games (past_games.js),
// refreshed every few seconds, the form that creates a board and the one
// that makes a board go on from a game record (a file or pasted). A board
// made here speaks the creator's language.

import { api } from './api.js';
import { startComputerGame } from './computer_game.js';
import { catalog, schemeOptions, setupDescription, setupName, setupOptions, statusText }
  from './catalog.js';
import { $, errorText, fillSelect, h, pageError, show } from './dom.js';
import { language, t } from './language.js';
import { PastGames } from './past_games.js';
import { TimeControlChoice } from './time_control.js';
import { sideName } from './sides.js';
import { tokens } from './tokens.js';

const REFRESH_MS = 4000;
const PAGE_SIZE = 100;  // the server's largest page
// A record file larger than this is refused here: khetd's default
// --max_message_bytes (65536) bounds the whole request.
const RECORD_MAX_BYTES = 60000;

export class LobbyPage {
  constructor() {
    this.timer = null;
    this.setups = [];
    this.shown = null;  // the sessions listed, as JSON
    this.games = new PastGames();
    this.timeControl = new TimeControlChoice($('create-form'));
    $('status-filter').addEventListener('change', () => this.refresh());
    $('create-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.create();
    });
    $('create-setup').addEventListener('change', () => this.describeSetup());
    $('import-file').addEventListener('change', () => this.readRecordFile());
    $('import-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.importRecord();
    });
    $('quick-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.playComputer();
    });
  }

  // A board of the default setup with the player as Silver and the computer
  // as Red at the level chosen, opened at once.
  async playComputer() {
    const button = $('quick-play');
    button.disabled = true;
    try {
      const id = await startComputerGame({ playerName: $('quick-name').value.trim(),
                                           level: Number($('quick-level').value) });
      show($('quick-message'), false);
      window.location.hash = `#/s/${encodeURIComponent(id)}`;
    } catch (error) {
      $('quick-message').textContent = errorText(error);
      show($('quick-message'), true);
    } finally {
      button.disabled = false;
    }
  }

  async open() {
    show($('lobby'), true);
    document.title = t('siteTitle');
    this.shown = null;
    this.games.forget();  // the language may have changed on another page
    $('quick-name').value ||= tokens.playerName;
    this.refresh();
    this.timer ??= setInterval(() => this.refresh(), REFRESH_MS);
    try {
      const { setups, schemes, levels } = await catalog();
      this.setups = setups;
      this.schemes = schemes;
      fillSelect($('quick-level'), levels.map((l) => ({ value: String(l.number),
                                                         label: `${l.number}: ${l.name}` })),
                 $('quick-level').value || '1');
      this.fillChoices();
      this.shown = null;  // setup names are known now
      this.refresh();
    } catch (error) {
      pageError(error);
    }
  }

  // The setups and colour schemes offered, in the page's words.
  fillChoices() {
    fillSelect($('create-setup'), setupOptions(this.setups),
               $('create-setup').value || 'classic-2');
    fillSelect($('create-scheme'), schemeOptions(this.schemes ?? []),
               $('create-scheme').value || 'classic');
    this.describeSetup();
  }

  // The words made here, again in the page's new language.
  relabel() {
    document.title = t('siteTitle');
    this.fillChoices();
    this.shown = null;
    this.games.forget();
    this.refresh();
  }

  close() {
    show($('lobby'), false);
    clearInterval(this.timer);
    this.timer = null;
  }

  describeSetup() {
    const setup = this.setups.find((s) => s.id === $('create-setup').value);
    $('create-setup-description').textContent = setupDescription(setup);
  }

  async refresh() {
    try {
      const status = $('status-filter').value;
      const reply = await api.listSessions({ pageSize: PAGE_SIZE, status });
      this.renderList(reply.sessions ?? [], Boolean(reply.nextPageToken));
      await this.games.refresh(this.setups);
      pageError(null);
    } catch (error) {
      pageError(error);
    }
  }

  // Redraws the list only when something changed, so that focus and
  // selection in it survive the refresh.
  renderList(sessions, more) {
    const shown = JSON.stringify(sessions);
    if (shown === this.shown) return;
    this.shown = shown;
    const list = $('session-list');
    show($('session-list-empty'), sessions.length === 0);
    $('session-list-more').textContent = t('boardsCapped', { count: PAGE_SIZE });
    show($('session-list-more'), more);
    list.replaceChildren(...sessions.map((s) => this.entry(s)));
  }

  entry(session) {
    const mine = tokens.player(session.id);
    const seat = (color) => {
      const s = (session.seats ?? []).find((x) => x.color === color);
      if (!s?.occupied) return h('span', { class: 'free' }, t('free'));
      return h('span', {}, s.computer ? t('playerComputer', { name: s.playerName })
        : s.playerName);
    };
    const moves = (session.moves ?? []).length;
    const scheme = session.settings?.colorScheme;
    const swatch = (side) => {
      const hex = session.colorScheme?.[side]?.hex;
      return h('span', { class: `swatch ${side}`, 'aria-hidden': 'true',
                         style: hex ? `background:${hex}` : null });
    };
    return h('li', { class: 'session-entry', 'data-session': session.id },
      h('a', { href: `#/s/${encodeURIComponent(session.id)}`, class: 'session-name' },
        session.name || t('untitledBoard')),
      h('span', { class: `badge status-${(session.status ?? '').toLowerCase()}` },
        statusText(session.status)),
      h('span', { class: 'muted' }, setupName(this.setups, session.setupId)),
      h('span', { class: 'players' },
        swatch('silver'), t('sideLabel', { side: sideName(scheme, 'SILVER') }), seat('SILVER'),
        ' · ', swatch('red'), t('sideLabel', { side: sideName(scheme, 'RED') }), seat('RED')),
      h('span', { class: 'muted' },
        t(moves === 1 ? 'turnCountOne' : 'turnCountOther', { count: moves })),
      mine ? h('span', { class: 'badge mine' },
               t(mine.color === 'RED' ? 'yourSeatRed' : 'yourSeatSilver')) : null);
  }

  async create() {
    const form = $('create-form');
    const data = new FormData(form);
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const reply = await api.createSession({
        name: data.get('name').trim(),
        setupId: data.get('setup'),
        rules: {
          bothPharaohsHitDraws: data.get('bothPharaohsHitDraws') === 'on',
          automaticRepetitionDraw: data.get('automaticRepetitionDraw') === 'on',
          plyLimit: Number(data.get('plyLimit') || 0),
          timeControl: this.timeControl.value(),
        },
        settings: { colorScheme: data.get('scheme'), language: language() },
      });
      tokens.setOwner(reply.session.id, reply.ownerToken);
      show($('create-message'), false);
      window.location.hash = `#/s/${encodeURIComponent(reply.session.id)}`;
    } catch (error) {
      $('create-message').textContent = errorText(error);
      show($('create-message'), true);
    } finally {
      button.disabled = false;
    }
  }

  // A chosen record file goes into the text field (and names the board if
  // it has no name yet).
  async readRecordFile() {
    const file = $('import-file').files[0];
    if (!file) return;
    show($('import-message'), false);
    if (file.size > RECORD_MAX_BYTES) {
      this.importError(t('recordTooLarge', { name: file.name }));
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    let text;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      this.importError(t('recordNotText', { name: file.name }));
      return;
    }
    $('import-text').value = text;
    $('import-name').value ||= file.name.replace(/\.(khet|txt)$/i, '').slice(0, 64);
  }

  importError(text) {
    $('import-message').textContent = text;
    show($('import-message'), true);
  }

  // A new board that goes on from the record (to its end, or after the
  // turns asked for), both seats free; the creator keeps its key.
  async importRecord() {
    const form = $('import-form');
    const data = new FormData(form);
    const record = String(data.get('record') ?? '');
    if (!record.trim()) {
      this.importError(t('recordMissing'));
      return;
    }
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const ply = Number(data.get('ply') || 0);
      const reply = await api.createSession({
        name: String(data.get('name') ?? '').trim() || t('importedBoardName'),
        record,
        ...(ply > 0 ? { ply } : {}),
        settings: { language: language() },
      });
      tokens.setOwner(reply.session.id, reply.ownerToken);
      show($('import-message'), false);
      form.reset();
      window.location.hash = `#/s/${encodeURIComponent(reply.session.id)}`;
    } catch (error) {
      this.importError(t('recordRefused', { error: errorText(error) }));
    } finally {
      button.disabled = false;
    }
  }
}
