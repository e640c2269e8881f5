// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's HTTP/JSON gateway (docs/http-api.md) as promise-returning calls.
// Bodies are the protobuf JSON of proto/khet/v1; a failed call rejects with
// an ApiError carrying the server's code and message.
//
// The shapes are those of the gateway's OpenAPI document (docs/openapi.yaml):
// khet_api.d.ts is what openapi-typescript makes of it. It is generated and
// checked against this file at test time (tests/contract, `tsc --checkJs`),
// not kept here: the board needs no build step.
/** @typedef {import('./khet_api').components['schemas']} S */
/** @typedef {Record<string, string | number | boolean | undefined>} Query */

export class ApiError extends Error {
  /** @param {string} code @param {number} status @param {string} message */
  constructor(code, status, message) {
    super(message);
    this.code = code;      // gRPC code name, e.g. "INVALID_ARGUMENT"
    this.status = status;  // HTTP status
  }
}

/**
 * @template T the answer's schema
 * @param {string} method
 * @param {string} path
 * @param {{body?: object, token?: string, query?: Query, signal?: AbortSignal}} [options]
 * @returns {Promise<T>}
 */
async function call(method, path, { body, token, query, signal } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
  }
  /** @type {Record<string, string>} */
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError('UNAVAILABLE', 0, `The server cannot be reached: ${err.message}`);
  }
  const text = await response.text();
  /** @type {any} */
  let json = {};
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      throw new ApiError('UNKNOWN', response.status,
                         `${method} ${url.pathname}: not JSON (HTTP ${response.status})`);
    }
  }
  if (!response.ok) {
    const error = json.error ?? {};
    throw new ApiError(error.code ?? 'UNKNOWN', response.status,
                       error.message ?? `${method} ${url.pathname}: HTTP ${response.status}`);
  }
  return json;
}

/** @param {string} id */
const session = (id) => `/v1/sessions/${encodeURIComponent(id)}`;
/** @param {string} id @param {string} game */
const gamePath = (id, game) => `${session(id)}/games/${encodeURIComponent(game)}`;

export const api = {
  /** @type {() => Promise<S['ListSetupsResponse']>} */
  setups: () => call('GET', '/v1/setups'),
  /** @type {() => Promise<S['ListColorSchemesResponse']>} */
  colorSchemes: () => call('GET', '/v1/colorSchemes'),
  /** @type {() => Promise<S['ListLevelsResponse']>} */
  levels: () => call('GET', '/v1/levels'),
  /** @type {(query?: Query) => Promise<S['ListSessionsResponse']>} */
  listSessions: (query) => call('GET', '/v1/sessions', { query }),
  /** @type {(body: S['CreateSessionRequest']) => Promise<S['CreateSessionResponse']>} */
  createSession: (body) => call('POST', '/v1/sessions', { body }),
  /** @type {(id: string) => Promise<S['Session']>} */
  getSession: (id) => call('GET', session(id)),
  /** @type {(id: string, token: string) => Promise<S['DeleteSessionResponse']>} */
  deleteSession: (id, token) => call('DELETE', session(id), { token }),
  /** @type {(id: string, body: S['JoinSeatRequest']) => Promise<S['JoinSeatResponse']>} */
  join: (id, body) => call('POST', `${session(id)}:join`, { body }),
  /** @type {(id: string, token: string, body?: S['LeaveSeatRequest']) => Promise<S['Session']>} */
  leave: (id, token, body = {}) => call('POST', `${session(id)}:leave`, { body, token }),
  /** @type {(id: string, token: string, body: S['SeatComputerRequest']) => Promise<S['Session']>} */
  seatComputer: (id, token, body) =>
    call('POST', `${session(id)}:seatComputer`, { body, token }),
  /** @type {(id: string, token: string, body: S['ChooseSetupRequest']) => Promise<S['Session']>} */
  chooseSetup: (id, token, body) => call('POST', `${session(id)}:chooseSetup`, { body, token }),
  /** @type {(id: string, token: string, body: S['MakeMoveRequest']) => Promise<S['MakeMoveResponse']>} */
  move: (id, token, body) => call('POST', `${session(id)}:move`, { body, token }),
  /** @type {(id: string, square?: string) => Promise<S['ListLegalMovesResponse']>} */
  legalMoves: (id, square) => call('GET', `${session(id)}/legalMoves`, { query: { square } }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  resign: (id, token) => call('POST', `${session(id)}:resign`, { body: {}, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  offerDraw: (id, token) => call('POST', `${session(id)}:offerDraw`, { body: {}, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  acceptDraw: (id, token) => call('POST', `${session(id)}:acceptDraw`, { body: {}, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  claimRepetitionDraw: (id, token) =>
    call('POST', `${session(id)}:claimRepetitionDraw`, { body: {}, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  requestTakeback: (id, token) =>
    call('POST', `${session(id)}:requestTakeback`, { body: {}, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  acceptTakeback: (id, token) => call('POST', `${session(id)}:acceptTakeback`, { body: {}, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  declineTakeback: (id, token) =>
    call('POST', `${session(id)}:declineTakeback`, { body: {}, token }),
  /** @type {(id: string, token: string, settings: S['SettingsUpdate']) => Promise<S['Session']>} */
  updateSettings: (id, token, settings) =>
    call('POST', `${session(id)}:updateSettings`, { body: { settings }, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  reset: (id, token) => call('POST', `${session(id)}:reset`, { body: {}, token }),
  /** @type {(id: string, token: string) => Promise<S['Session']>} */
  rematch: (id, token) => call('POST', `${session(id)}:rematch`, { body: {}, token }),
  // The computer's move for the side to move (anyone may ask).
  /** @type {(id: string, body: S['SuggestMoveRequest'], timeoutMs?: number) => Promise<S['SuggestMoveResponse']>} */
  suggest: (id, body, timeoutMs) =>
    call('POST', `${session(id)}:suggest`, { body, query: { timeoutMs } }),
  // Long polling: the events after `afterVersion`, waiting up to waitSeconds.
  /** @type {(id: string, afterVersion: string | number, waitSeconds: number, signal?: AbortSignal) => Promise<S['EventPoll']>} */
  events: (id, afterVersion, waitSeconds, signal) =>
    call('GET', `${session(id)}/events`, { query: { afterVersion, waitSeconds }, signal }),
  /** @type {(id: string, afterVersion: string | number) => string} */
  streamUrl: (id, afterVersion) =>
    `${session(id)}/events:stream?afterVersion=${encodeURIComponent(afterVersion)}`,
  // Games: `game` is a game id or "current" (the session's current game).
  /** @type {(query?: Query) => Promise<S['ListGamesResponse']>} */
  listGames: (query) => call('GET', '/v1/games', { query }),
  /** @type {(id: string, game: string) => Promise<S['GetGameRecordResponse']>} */
  gameRecord: (id, game) => call('GET', gamePath(id, game)),
  /** @type {(id: string, game: string, ply: number) => Promise<S['GetPositionResponse']>} */
  position: (id, game, ply) => call('GET', `${gamePath(id, game)}/positions/${ply}`),
  // Starts the computer's analysis or reports its progress (GameAnalysis).
  /** @type {(id: string, game: string, msPerPly?: number) => Promise<S['GameAnalysis']>} */
  analyzeGame: (id, game, msPerPly) =>
    call('POST', `${gamePath(id, game)}:analyze`, { body: msPerPly ? { msPerPly } : {} }),
  // Ratings: a player (NOT_FOUND before their first rated game) and the
  // rated players, best first.
  /** @type {(playerId: string) => Promise<S['Player']>} */
  getPlayer: (playerId) => call('GET', '/v1/player', { query: { playerId } }),
  /** @type {(query?: Query) => Promise<S['ListPlayersResponse']>} */
  listPlayers: (query) => call('GET', '/v1/players', { query }),
  /** @type {(id: string, game: string) => string} */
  recordUrl: (id, game) => `${gamePath(id, game)}/record`,
};
