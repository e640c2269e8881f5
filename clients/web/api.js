// khetd's HTTP/JSON gateway (docs/http-api.md) as promise-returning calls.
// Bodies are the protobuf JSON of proto/khet/v1; a failed call rejects with
// an ApiError carrying the server's code and message.

export class ApiError extends Error {
  constructor(code, status, message) {
    super(message);
    this.code = code;      // gRPC code name, e.g. "INVALID_ARGUMENT"
    this.status = status;  // HTTP status
  }
}

async function call(method, path, { body, token, query, signal } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') url.searchParams.set(key, value);
  }
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

const session = (id) => `/v1/sessions/${encodeURIComponent(id)}`;
const gamePath = (id, game) => `${session(id)}/games/${encodeURIComponent(game)}`;

export const api = {
  setups: () => call('GET', '/v1/setups'),
  colorSchemes: () => call('GET', '/v1/colorSchemes'),
  levels: () => call('GET', '/v1/levels'),
  listSessions: (query) => call('GET', '/v1/sessions', { query }),
  createSession: (body) => call('POST', '/v1/sessions', { body }),
  getSession: (id) => call('GET', session(id)),
  deleteSession: (id, token) => call('DELETE', session(id), { token }),
  join: (id, body) => call('POST', `${session(id)}:join`, { body }),
  leave: (id, token, body = {}) => call('POST', `${session(id)}:leave`, { body, token }),
  seatComputer: (id, token, body) =>
    call('POST', `${session(id)}:seatComputer`, { body, token }),
  chooseSetup: (id, token, body) => call('POST', `${session(id)}:chooseSetup`, { body, token }),
  move: (id, token, body) => call('POST', `${session(id)}:move`, { body, token }),
  legalMoves: (id, square) => call('GET', `${session(id)}/legalMoves`, { query: { square } }),
  resign: (id, token) => call('POST', `${session(id)}:resign`, { body: {}, token }),
  offerDraw: (id, token) => call('POST', `${session(id)}:offerDraw`, { body: {}, token }),
  acceptDraw: (id, token) => call('POST', `${session(id)}:acceptDraw`, { body: {}, token }),
  claimRepetitionDraw: (id, token) =>
    call('POST', `${session(id)}:claimRepetitionDraw`, { body: {}, token }),
  requestTakeback: (id, token) =>
    call('POST', `${session(id)}:requestTakeback`, { body: {}, token }),
  acceptTakeback: (id, token) => call('POST', `${session(id)}:acceptTakeback`, { body: {}, token }),
  declineTakeback: (id, token) =>
    call('POST', `${session(id)}:declineTakeback`, { body: {}, token }),
  updateSettings: (id, token, settings) =>
    call('POST', `${session(id)}:updateSettings`, { body: { settings }, token }),
  reset: (id, token) => call('POST', `${session(id)}:reset`, { body: {}, token }),
  rematch: (id, token) => call('POST', `${session(id)}:rematch`, { body: {}, token }),
  // The computer's move for the side to move (anyone may ask).
  suggest: (id, body, timeoutMs) =>
    call('POST', `${session(id)}:suggest`, { body, query: { timeoutMs } }),
  // Long polling: the events after `afterVersion`, waiting up to waitSeconds.
  events: (id, afterVersion, waitSeconds, signal) =>
    call('GET', `${session(id)}/events`, { query: { afterVersion, waitSeconds }, signal }),
  streamUrl: (id, afterVersion) =>
    `${session(id)}/events:stream?afterVersion=${encodeURIComponent(afterVersion)}`,
  // Games: `game` is a game id or "current" (the session's current game).
  listGames: (query) => call('GET', '/v1/games', { query }),
  gameRecord: (id, game) => call('GET', gamePath(id, game)),
  position: (id, game, ply) => call('GET', `${gamePath(id, game)}/positions/${ply}`),
  // Starts the computer's analysis or reports its progress (GameAnalysis).
  analyzeGame: (id, game, msPerPly) =>
    call('POST', `${gamePath(id, game)}:analyze`, { body: msPerPly ? { msPerPly } : {} }),
  // Ratings: a player (NOT_FOUND before their first rated game) and the
  // rated players, best first.
  getPlayer: (playerId) => call('GET', '/v1/player', { query: { playerId } }),
  listPlayers: (query) => call('GET', '/v1/players', { query }),
  recordUrl: (id, game) => `${gamePath(id, game)}/record`,
};
