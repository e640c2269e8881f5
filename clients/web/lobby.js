// The lobby: the boards on the server with their status and players and
// the past games (past_games.js), refreshed every few seconds, and the form
// that creates a board.

import { api } from './api.js';
import { catalog, schemeOptions, setupName, setupOptions, statusText } from './catalog.js';
import { $, errorText, fillSelect, h, pageError, show } from './dom.js';
import { PastGames } from './past_games.js';
import { TimeControlChoice } from './time_control.js';
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
  }

  async open() {
    show($('lobby'), true);
    document.title = 'Khet boards';
    this.shown = null;
    this.refresh();
    this.timer ??= setInterval(() => this.refresh(), REFRESH_MS);
    try {
      const { setups, schemes } = await catalog();
      this.setups = setups;
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
    show($('session-list-more'), more);
    list.replaceChildren(...sessions.map((s) => this.entry(s)));
  }

  entry(session) {
    const mine = tokens.player(session.id);
    const seat = (color) => {
      const s = (session.seats ?? []).find((x) => x.color === color);
      if (!s?.occupied) return h('span', { class: 'free' }, 'free');
      return h('span', {}, s.playerName + (s.computer ? ' (computer)' : ''));
    };
    const moves = (session.moves ?? []).length;
    const swatch = (side) => {
      const hex = session.colorScheme?.[side]?.hex;
      return h('span', { class: `swatch ${side}`, 'aria-hidden': 'true',
                         style: hex ? `background:${hex}` : null });
    };
    return h('li', { class: 'session-entry', 'data-session': session.id },
      h('a', { href: `#/s/${encodeURIComponent(session.id)}`, class: 'session-name' },
        session.name || 'Untitled board'),
      h('span', { class: `badge status-${(session.status ?? '').toLowerCase()}` },
        statusText(session.status)),
      h('span', { class: 'muted' }, setupName(this.setups, session.setupId)),
      h('span', { class: 'players' },
        swatch('silver'), 'Silver: ', seat('SILVER'), ' · ', swatch('red'), 'Red: ', seat('RED')),
      h('span', { class: 'muted' }, `${moves} move${moves === 1 ? '' : 's'}`),
      mine ? h('span', { class: 'badge mine' }, `your seat: ${mine.color.toLowerCase()}`) : null);
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
