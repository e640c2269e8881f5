// The lobby: a one-click game against the computer, the boards on the
// server with their status and players and the past games (past_games.js),
// refreshed every few seconds, and the form that creates a board.

import { api } from './api.js';
import { startComputerGame } from './computer_game.js';
import { catalog, schemeOptions, setupName, setupOptions, statusText } from './catalog.js';
import { $, errorText, fillSelect, h, pageError, show } from './dom.js';
import { t } from './language.js';
import { PastGames } from './past_games.js';
import { TimeControlChoice } from './time_control.js';
import { sideName } from './sides.js';
import { tokens } from './tokens.js';

const REFRESH_MS = 4000;
const PAGE_SIZE = 100;  // the server's largest page

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
    $('quick-name').value ||= tokens.playerName;
    this.refresh();
    this.timer ??= setInterval(() => this.refresh(), REFRESH_MS);
    try {
      const { setups, schemes, levels } = await catalog();
      this.setups = setups;
      fillSelect($('quick-level'), levels.map((l) => ({ value: String(l.number),
                                                         label: `${l.number}: ${l.name}` })),
                 $('quick-level').value || '1');
      fillSelect($('create-setup'), setupOptions(setups), $('create-setup').value || 'classic-2');
      fillSelect($('create-scheme'), schemeOptions(schemes), $('create-scheme').value || 'classic');
      this.describeSetup();
      this.shown = null;  // setup names are known now
      this.refresh();
    } catch (error) {
      pageError(error);
    }
  }

  close() {
    show($('lobby'), false);
    clearInterval(this.timer);
    this.timer = null;
  }

  describeSetup() {
    const setup = this.setups.find((s) => s.id === $('create-setup').value);
    $('create-setup-description').textContent = setup?.description ?? '';
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
        t(moves === 1 ? 'moveCountOne' : 'moveCountOther', { count: moves })),
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
        settings: { colorScheme: data.get('scheme') },
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
}
