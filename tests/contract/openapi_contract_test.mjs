// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The HTTP gateway against its OpenAPI document (ctest contract_openapi).
// Starts a real khetd on loopback, reads the document khetd serves at
// /v1/openapi.json, and drives a scripted session through every operation
// of it, errors included; every request (path, query, headers, body) and
// every answer (status, content type, headers, body) is validated against
// the document with Ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect), and so
// is every event khetd pushes to a board's URL (a receiver of this test on
// loopback), with its signature. It fails on an answer the document does not
// describe (a status, a field: the schemas forbid fields they do not name),
// on an operation the session did not reach, and when the document and the
// route table (every file given as --routes) or docs/http-api.md's table
// differ.
//
// node openapi_contract_test.mjs --khetd PATH --routes http_routes.cc
//                                [--routes callback_routes.cc ...]
//                                --http-api docs/http-api.md

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// --name value; --routes may come more than once (its files in a list).
const args = { routes: [] };
for (let i = 2; i < process.argv.length; i += 2) {
  const name = process.argv[i].replace(/^--/, '');
  if (name === 'routes') args.routes.push(process.argv[i + 1]);
  else args[name] = process.argv[i + 1];
}
for (const name of ['khetd', 'routes', 'http-api']) {
  if (!args[name]?.length) throw new Error(`--${name} is missing`);
}

const failures = [];
// While a request meant to be invalid is checked, its problems land here
// instead of failing the test.
let expectedProblems = null;
function fail(message) {
  if (expectedProblems) {
    expectedProblems.push(message);
    return;
  }
  failures.push(message);
  console.log(`FAIL ${message}`);
}
function check(condition, message) {
  if (!condition) fail(message);
  return condition;
}

// ---- khetd ------------------------------------------------------------------

// A small budget of unjoined sessions, so that the session reaches a 429.
// Kept-alive connections stay open for a minute: compiling a schema blocks
// this event loop, and a connection khetd closed meanwhile (after its
// default 5 s) would be reused and fail.
const khetd = spawn(args.khetd, [
  '--listen', '127.0.0.1:0', '--http_listen', '127.0.0.1:0', '--store', 'memory',
  '--max_unclaimed_sessions_per_address', '4', '--http_idle_timeout_seconds', '60',
], { stdio: ['ignore', 'pipe', 'pipe'] });
khetd.stderr.resume();
process.on('exit', () => khetd.kill('SIGKILL'));
const base = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('khetd did not start in 20 s')), 20000);
  khetd.on('exit', (code) => reject(new Error(`khetd exited (${code})`)));
  createInterface({ input: khetd.stdout }).on('line', (line) => {
    const found = /^khetd http listening on (.+)$/.exec(line);
    if (found) {
      clearTimeout(timer);
      resolve(`http://${found[1]}`);
    }
  });
});

// ---- the document -------------------------------------------------------------

const doc = await (await fetch(`${base}/v1/openapi.json`)).json();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat('int32', { type: 'number', validate: (n) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
ajv.addFormat('int64', { type: 'string', validate: (s) => /^-?[0-9]+$/.test(s) });
ajv.addSchema({ $id: 'openapi.json', ...doc }, 'openapi.json');

// Follows a local $ref ("#/components/...") of the document.
function resolve(object) {
  let value = object;
  while (value && value.$ref) {
    value = value.$ref.slice(2).split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((at, key) => at[key], doc);
  }
  return value;
}
// A validator of a schema of the document, with its $refs made absolute.
const validators = new Map();
function validatorOf(schema) {
  const key = JSON.stringify(schema);
  if (!validators.has(key)) {
    const absolute = JSON.parse(key.replaceAll('"#/', '"openapi.json#/'));
    validators.set(key, ajv.compile(absolute));
  }
  return validators.get(key);
}
function validate(schema, value, what) {
  const validator = validatorOf(schema);
  if (validator(value)) return true;
  fail(`${what}: ${ajv.errorsText(validator.errors, { separator: '; ' })}`.slice(0, 1500));
  return false;
}

// The operations by path template, the templates with fewer parameters
// first so that a literal path wins ("/metrics" before "/{file}"). A
// parameter is as the route table reads it: up to the next '/' or ':'.
const operations = [];
for (const [template, item] of Object.entries(doc.paths)) {
  const pattern = new RegExp(`^${template
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\{[^}]+\}/g, '([^/:]+)')}$`);
  const params = (template.match(/\{/g) ?? []).length;
  for (const method of ['get', 'post', 'delete']) {
    if (item[method]) {
      operations.push({ template, method, pattern, params, op: item[method], shared: item.parameters ?? [] });
    }
  }
}
operations.sort((a, b) => a.params - b.params);
const covered = new Map();  // "METHOD template" -> statuses seen

function operationOf(method, path) {
  const candidates = operations.filter((o) => o.pattern.test(path));
  return candidates.find((o) => o.method === method.toLowerCase());
}

// ---- requests, validated both ways -------------------------------------------

// Validates a request against its operation before sending it.
function checkRequest(entry, method, url, headers, body) {
  const what = `${method} ${entry.template}`;
  const params = [...entry.shared, ...(entry.op.parameters ?? [])].map(resolve);
  for (const [name, value] of url.searchParams) {
    const param = params.find((p) => p.in === 'query' && p.name === name);
    if (!check(param, `${what}: query parameter ${name} is not in the document`)) continue;
    const typed = param.schema.type === 'integer' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
    validate(param.schema, typed, `${what}: query ${name}=${value}`);
  }
  for (const param of params.filter((p) => p.required && p.in === 'query')) {
    check(url.searchParams.has(param.name), `${what}: required query ${param.name} not sent`);
  }
  for (const param of params.filter((p) => p.in === 'header')) {
    const value = headers[param.name];
    if (value !== undefined) validate(param.schema, value, `${what}: header ${param.name}`);
  }
  const pathValues = entry.pattern.exec(url.pathname).slice(1);
  const pathParams = params.filter((p) => p.in === 'path');
  check(pathParams.length === pathValues.length, `${what}: path parameters differ from the template`);
  pathParams.forEach((param, i) => {
    const raw = decodeURIComponent(pathValues[i]);
    const typed = param.schema.type === 'integer' && /^[0-9]+$/.test(raw) ? Number(raw) : raw;
    validate(param.schema, typed, `${what}: path ${param.name}`);
  });
  if (body !== undefined) {
    const requestBody = resolve(entry.op.requestBody);
    if (check(requestBody, `${what}: sends a body the document does not take`) &&
        typeof body === 'object') {
      validate(requestBody.content['application/json'].schema, body, `${what}: request body`);
    }
  }
  const secured = (entry.op.security ?? doc.security ?? []).length > 0;
  if (headers.Authorization || headers['X-Khet-Token']) {
    check(secured, `${what}: sends a token, which the document does not ask for`);
  }
}

// Validates an answer against its operation: a documented status, content
// type and headers, and the body against the schema.
function checkResponse(entry, response, text, { eventStream = false } = {}) {
  const what = `${entry.method.toUpperCase()} ${entry.template} -> ${response.status}`;
  const key = `${entry.method.toUpperCase()} ${entry.template}`;
  if (!covered.has(key)) covered.set(key, new Set());
  covered.get(key).add(response.status);
  const documented = resolve(entry.op.responses[String(response.status)]);
  if (!check(documented, `${what}: status not in the document`)) return undefined;
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = response.headers.get(name);
    if (value !== null) {
      const schema = resolve(header).schema;
      validate(schema, schema.type === 'integer' ? Number(value) : value, `${what}: header ${name}`);
    }
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0].trim();
  const media = documented.content?.[type] ?? documented.content?.['*/*'];
  if (!check(media, `${what}: content type ${type} not in the document`)) return undefined;
  if (eventStream || type !== 'application/json') return media;
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    fail(`${what}: not JSON`);
    return undefined;
  }
  validate(media.schema, json, `${what}: body`);
  return json;
}

// One call: validated, sent, its answer validated. Answers
// { status, json, text, headers }. With `bad`, the request is one the
// document refuses (an unknown field or parameter), and it must.
async function call(method, path, { body, token, query, headers: extra = {}, raw, bad } = {}) {
  const url = new URL(path, base);
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
  const headers = { ...extra };
  if (token) headers.Authorization = `Bearer ${token}`;
  const entry = operationOf(method, url.pathname);
  if (!check(entry, `${method} ${url.pathname}: no operation of the document`)) {
    return { status: 0, json: undefined };
  }
  if (bad) expectedProblems = [];
  checkRequest(entry, method, url, headers, raw === undefined ? body : undefined);
  if (bad) {
    check(expectedProblems.length > 0, `${method} ${path}: the document takes this bad request`);
    expectedProblems = null;
  }
  const response = await fetch(url, {
    method,
    headers,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  const json = checkResponse(entry, response, text);
  return { status: response.status, json, text, headers: response.headers };
}
// A call that must answer `status` (and `code`, for an error).
async function expect(status, method, path, options = {}, code = undefined) {
  const answer = await call(method, path, options);
  check(answer.status === status,
        `${method} ${path}: expected ${status}, got ${answer.status} ${answer.text?.slice(0, 200)}`);
  if (code !== undefined) {
    check(answer.json?.error?.code === code,
          `${method} ${path}: expected code ${code}, got ${answer.json?.error?.code}`);
  }
  return answer.json;
}

// Reads a server-sent event stream until `until(event)` holds or it ends.
async function readStream(path, query, headers, until) {
  const url = new URL(path, base);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const entry = operationOf('GET', url.pathname);
  checkRequest(entry, 'GET', url, headers, undefined);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10000);
  const response = await fetch(url, { headers, signal: controller.signal });
  const media = checkResponse(entry, response, '', { eventStream: true });
  const events = [];
  if (response.status !== 200 || !media) return events;
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = {};
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) continue;  // a comment
          const colon = line.indexOf(':');
          fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
        }
        if (fields.data === undefined) continue;
        const data = JSON.parse(fields.data);
        if (fields.event === 'error') {
          validate(media['x-khet-error-data'], data, 'event stream: error data');
          continue;
        }
        validate(media['x-khet-event-data'], data, `event stream: ${fields.event} data`);
        check(fields.event in data, `event stream: event ${fields.event} is not the data's kind`);
        check(fields.id === data.version, `event stream: id ${fields.id} is not version ${data.version}`);
        events.push(data);
        if (until(data)) {
          clearTimeout(timer);
          controller.abort();
          return events;
        }
      }
    }
  } catch (err) {
    if (err.name !== 'AbortError') throw err;
  } finally {
    clearTimeout(timer);
  }
  return events;
}

// ---- a board's URL, for pushed events -------------------------------------------

// A server on loopback standing in for an in-world board's URL: records each
// request khetd sends it ({ method, url, headers, body: the raw bytes }) and
// answers 200.
async function startReceiver() {
  const deliveries = [];
  let wake = () => {};
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({
        method: request.method,
        url: new URL(request.url, 'http://board'),
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      wake();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    deliveries,
    // The first delivery from `from` on that `until` takes, or undefined
    // after `ms`.
    async wait(from, until, ms) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = deliveries.slice(from).find(until);
        if (found || Date.now() >= deadline) return found;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, deadline - Date.now());
          wake = () => { clearTimeout(timer); resolve(); };
        });
      }
    },
    close() {
      server.close();
      server.closeAllConnections();
    },
  };
}

// Validates a delivery against registerCallback's `delivery` callback (the
// sig parameter, the content type, the body) and checks its signature:
// SHA-256 of secret + body + secret. Answers the body as JSON.
function checkDelivery(delivery, secret) {
  const operation = doc.paths['/v1/sessions/{id}/callback']?.post?.callbacks?.delivery?.['{$request.body#/url}']?.post;
  if (!check(operation, 'registerCallback has no delivery callback in the document')) return undefined;
  const what = 'a pushed delivery';
  check(delivery.method === 'POST', `${what} was a ${delivery.method}`);
  const sig = delivery.url.searchParams.get('sig');
  const sigParam = operation.parameters.map(resolve).find((p) => p.in === 'query' && p.name === 'sig');
  if (check(sig !== null, `${what} has no sig`)) validate(sigParam.schema, sig, `${what}: sig`);
  const expected = createHash('sha256').update(secret).update(delivery.body).update(secret).digest('hex');
  check(sig === expected, `${what}: sig ${sig} is not SHA-256 of secret + body + secret (${expected})`);
  const type = (delivery.headers['content-type'] ?? '').split(';')[0].trim();
  const media = resolve(operation.requestBody).content[type];
  if (!check(media, `${what}: content type ${type} not in the document`)) return undefined;
  let json;
  try {
    json = JSON.parse(delivery.body.toString('utf8'));
  } catch {
    fail(`${what}: not JSON`);
    return undefined;
  }
  validate(media.schema, json, `${what}: body`);
  check(delivery.body.length <= 2048, `${what} is ${delivery.body.length} bytes`);
  return json;
}

// ---- the document against the route table and docs/http-api.md ---------------

const documented = new Set(operations.map((o) => `${o.method.toUpperCase()} ${o.template}`));
// A route is Get("path", ...) or Post("path", ...), or a Route written out:
// {"DELETE", "path", ...}, or {"POST", kPath, ...} with the path a constant
// of its file (constexpr char kPath[] = "...").
const routes = new Set();
for (const file of args.routes) {
  const source = readFileSync(file, 'utf8');
  const constants = new Map(
    [...source.matchAll(/constexpr\s+char\s+(k\w+)\[\]\s*=\s*"([^"]+)"/g)].map(([, name, value]) => [name, value]));
  let found = 0;
  for (const [, method, path] of source.matchAll(/\b(Get|Post)\(\s*"([^"]+)"/g)) {
    routes.add(`${method.toUpperCase()} ${path}`);
    found += 1;
  }
  for (const [, method, path, constant] of source.matchAll(/\{"(GET|POST|DELETE)",\s*(?:"([^"]+)"|(k\w+))\s*,/g)) {
    if (!check(path || constants.has(constant), `${file}: ${method} route with an unknown path ${constant}`)) continue;
    routes.add(`${method} ${path || constants.get(constant)}`);
    found += 1;
  }
  check(found > 0, `read no route from ${file}`);
}
check(routes.size >= 30, `read only ${routes.size} routes from ${args.routes.join(', ')}`);
for (const route of routes) check(documented.has(route), `route ${route} is not in the document`);
const beyondRoutes = new Set(['GET /metrics', 'GET /', 'GET /{file}']);
for (const operation of documented) {
  check(routes.has(operation) || beyondRoutes.has(operation),
        `the document's ${operation} is no route of ${args.routes.join(', ')}`);
}
const prose = readFileSync(args['http-api'], 'utf8');
let rows = 0;
for (const [, method, path] of prose.matchAll(/^\| `(GET|POST|DELETE) (\/[^` ]*)`/gm)) {
  rows += 1;
  check(documented.has(`${method} ${path.replace('<file>', '{file}')}`),
        `docs/http-api.md's ${method} ${path} is not in the document`);
}
check(rows >= 30, `read only ${rows} routes from docs/http-api.md`);

// ---- the schemas refuse what they do not name --------------------------------

{
  const created = await expect(200, 'POST', '/v1/sessions', { body: { name: 'schema check' } });
  const session = created.session;
  const sessionSchema = { $ref: '#/components/schemas/Session' };
  check(validatorOf(sessionSchema)(session), 'a real Session does not validate');
  for (const [where, tamper] of [
    ['a Session', (s) => { s.bogus = 1; }],
    ['a Session\'s board', (s) => { s.board.bogus = 1; }],
    ['a Session\'s seat', (s) => { s.seats[0].bogus = true; }],
  ]) {
    const copy = structuredClone(session);
    tamper(copy);
    check(!validatorOf(sessionSchema)(copy), `a field the document lacks in ${where} passed validation`);
  }
  const compact = await expect(200, 'GET', `/v1/sessions/${created.session.id}`, { query: { view: 'compact' } });
  const compactSchema = { $ref: '#/components/schemas/CompactSession' };
  check(validatorOf(compactSchema)(compact), 'a real compact session does not validate');
  check(!validatorOf(compactSchema)({ ...compact, bogus: 1 }), 'a field the document lacks in a compact session passed');
  await expect(200, 'DELETE', `/v1/sessions/${session.id}`, { token: created.ownerToken });
}

// ---- the scripted session ---------------------------------------------------

const S = (id) => `/v1/sessions/${encodeURIComponent(id)}`;

// The catalog, the document itself, metrics and the web board.
const version = await expect(200, 'GET', '/v1/version');
// The board scripts whose version it names, and the board's OAR.
const boardScript = await call('GET', `${version.boardScriptsUrl}khet_board.lsl`);
check(boardScript.status === 200 &&
      boardScript.text.includes(`string BOARD_SCRIPTS = "${version.boardScripts}";`),
      'GET /v1/inworld/khet_board.lsl is not the script whose version /v1/version names');
await expect(200, 'GET', `${version.boardScriptsUrl}khet-board.oar`);
await expect(404, 'GET', `${version.boardScriptsUrl}no-such-script.lsl`, {}, 'NOT_FOUND');
await expect(200, 'GET', '/v1/setups');
await expect(200, 'GET', '/v1/colorSchemes');
await expect(200, 'GET', '/v1/levels');
await expect(200, 'GET', '/v1/presets');
await expect(200, 'GET', '/v1/openapi.json');
await expect(400, 'GET', '/v1/setups', { query: { bogus: '1' }, bad: true }, 'INVALID_ARGUMENT');
await expect(200, 'GET', '/metrics');
await expect(200, 'GET', '/');
await expect(200, 'GET', '/app.js');
await expect(404, 'GET', '/no-such-file.js', {}, 'NOT_FOUND');

// A board, two players, moves.
const created = await expect(200, 'POST', '/v1/sessions', { body: { name: 'contract', setupId: 'classic-2' } });
const id = created.session.id;
const owner = created.ownerToken;
await expect(400, 'POST', '/v1/sessions', { body: { bogusField: 1 }, bad: true }, 'INVALID_ARGUMENT');
await expect(413, 'POST', '/v1/sessions', { raw: JSON.stringify({ name: 'x'.repeat(70000) }) }, 'RESOURCE_EXHAUSTED');
// Only JSON as RFC 8259 writes it: no single quotes, trailing commas or repeated keys.
for (const raw of [`{'name':'x'}`, '{"name":"x",}', '{"name":"x","name":"y"}']) {
  await expect(400, 'POST', '/v1/sessions', { raw, headers: { 'Content-Type': 'application/json' } }, 'INVALID_ARGUMENT');
}
await expect(400, 'GET', '/v1/sessions', { query: { pageSize: '+5' }, bad: true }, 'INVALID_ARGUMENT');
await expect(200, 'GET', '/v1/sessions');
await expect(200, 'GET', '/v1/sessions', { query: { status: 'WAITING_FOR_PLAYERS', pageSize: '10' } });
await expect(200, 'GET', S(id));
await expect(404, 'GET', S('no-such-session'), {}, 'NOT_FOUND');
const alice = await expect(200, 'POST', `${S(id)}:join`, { body: { playerName: 'alice', color: 'SILVER' } });
const bob = await expect(200, 'POST', `${S(id)}:join`, { body: { playerName: 'bob' }, query: { view: 'compact' } });
await expect(400, 'POST', `${S(id)}:join`, { body: { playerName: 'carol', color: 'RED' } }, 'FAILED_PRECONDITION');
const aliceToken = alice.playerToken;
const bobToken = bob.token;

await expect(200, 'GET', `${S(id)}/legalMoves`);
await expect(200, 'GET', `${S(id)}/legalMoves`, { query: { square: 'j1', view: 'compact' } });
const longPoll = call('GET', `${S(id)}/events`, { query: { afterVersion: '3', waitSeconds: '10' } });
const moved = await expect(200, 'POST', `${S(id)}:move`, {
  token: aliceToken, body: { move: { notation: 'j1L' }, expectedVersion: '3', requestId: 'contract-1' } });
check((await longPoll).json?.events?.length === 1, 'the waiting long poll did not answer the move');
check(moved.version === '4', `the move answered version ${moved.version}`);
await expect(401, 'POST', `${S(id)}:move`, { body: { move: { notation: 'a8L' } } }, 'UNAUTHENTICATED');
await expect(403, 'POST', `${S(id)}:move`, { token: 'not-a-token-of-this-board-00000000000000000', body: { move: { notation: 'a8L' } } }, 'PERMISSION_DENIED');
await expect(401, 'POST', `${S(id)}:move`, { token: 'not-a-token', body: { move: { notation: 'a8L' } } }, 'UNAUTHENTICATED');
await expect(400, 'POST', `${S(id)}:move`, { token: aliceToken, body: { move: { notation: 'j1L' } } }, 'FAILED_PRECONDITION');
await expect(400, 'POST', `${S(id)}:move`, { token: bobToken, body: { move: { notation: 'a8R' } } }, 'INVALID_ARGUMENT');
await expect(409, 'POST', `${S(id)}:move`, { token: bobToken, body: { move: { notation: 'a8L' }, expectedVersion: '3' } }, 'ABORTED');
await expect(400, 'POST', `${S(id)}:move`, { token: bobToken, body: { move: { notation: 'a8L' }, sessionId: 'other' } }, 'INVALID_ARGUMENT');
await expect(200, 'POST', `${S(id)}:move`, { token: bobToken, body: { move: { notation: 'a8L' } }, query: { view: 'compact' } });
await expect(200, 'POST', `${S(id)}:move`, { token: aliceToken, body: { move: { notation: 'j1R' } } });

// Suggestions, events, the board.
await expect(200, 'POST', `${S(id)}:suggest`, { body: { level: 1 }, query: { timeoutMs: '5000' } });
await expect(200, 'POST', `${S(id)}:suggest`, { body: { limits: { maxDepth: 2 } } });
await expect(400, 'POST', `${S(id)}:suggest`, { body: { level: 9 } }, 'INVALID_ARGUMENT');
await expect(200, 'GET', `${S(id)}/events`, { query: { afterVersion: '0', waitSeconds: '0' } });
await expect(200, 'GET', `${S(id)}/events`, { query: { afterVersion: '0', waitSeconds: '0', view: 'compact' } });
await expect(400, 'GET', `${S(id)}/events`, { query: { afterVersion: '99' } }, 'INVALID_ARGUMENT');
const streamed = await readStream(`${S(id)}/events:stream`, { afterVersion: '0' }, {}, (e) => e.version === '6');
check(streamed.length === 6, `the event stream sent ${streamed.length} events, not 6`);
const resumed = await readStream(`${S(id)}/events:stream`, {}, { 'Last-Event-ID': '5' }, (e) => e.version === '6');
check(resumed.length === 1, `the stream after Last-Event-ID 5 sent ${resumed.length} events, not 1`);
await expect(200, 'GET', `${S(id)}/board`);
await expect(200, 'GET', `${S(id)}/board`, { query: { laser: 'false' } });
await expect(200, 'GET', `${S(id)}/board.svg`);
await expect(400, 'GET', `${S(id)}/board.svg`, { query: { laser: 'maybe' }, bad: true }, 'INVALID_ARGUMENT');

// Takebacks, draws, settings, a rematch, resignation, a reset.
await expect(200, 'POST', `${S(id)}:requestTakeback`, { token: aliceToken, body: {} });
await expect(200, 'POST', `${S(id)}:declineTakeback`, { token: bobToken, body: {} });
await expect(200, 'POST', `${S(id)}:requestTakeback`, { token: aliceToken, query: { view: 'compact' } });
await expect(200, 'POST', `${S(id)}:acceptTakeback`, { token: bobToken });
await expect(400, 'POST', `${S(id)}:claimRepetitionDraw`, { token: aliceToken }, 'FAILED_PRECONDITION');
await expect(200, 'POST', `${S(id)}:updateSettings`, { token: owner, body: { settings: { quiet: true, language: 'de' } } });
await expect(403, 'POST', `${S(id)}:updateSettings`, { token: aliceToken, body: { settings: { quiet: false } } }, 'PERMISSION_DENIED');
await expect(200, 'POST', `${S(id)}:offerDraw`, { token: aliceToken });
await expect(200, 'POST', `${S(id)}:acceptDraw`, { token: bobToken, query: { view: 'compact' } });
await expect(200, 'POST', `${S(id)}:rematch`, { token: owner });
await expect(200, 'POST', `${S(id)}:resign`, { token: aliceToken });
await expect(200, 'POST', `${S(id)}:reset`, { token: owner });

// A second board: setup, the computer in a seat, leaving.
const second = await expect(200, 'POST', '/v1/sessions', { body: { name: 'computer' }, query: { view: 'compact' } });
await expect(200, 'POST', `${S(second.id)}:chooseSetup`, { token: second.owner, body: { setupId: 'osiris' } });
await expect(400, 'POST', `${S(second.id)}:chooseSetup`, { token: second.owner, body: { setupId: 'no-such-setup' } }, 'INVALID_ARGUMENT');
const carol = await expect(200, 'POST', `${S(second.id)}:join`, { body: { playerName: 'carol', color: 'SILVER' } });
await expect(200, 'POST', `${S(second.id)}:seatComputer`, { token: second.owner, body: { color: 'RED', level: 1 } });
await expect(200, 'POST', `${S(second.id)}:leave`, { token: second.owner, body: { color: 'RED' } });
await expect(200, 'POST', `${S(second.id)}:leave`, { token: carol.playerToken });

// A rated game, for a player's rating.
const rated = await expect(200, 'POST', '/v1/sessions', { body: { name: 'rated', settings: { rated: true } } });
const dave = await expect(200, 'POST', `${S(rated.session.id)}:join`, { body: { playerName: 'dave', playerId: 'contract:dave' } });
await expect(200, 'POST', `${S(rated.session.id)}:join`, { body: { playerName: 'erin', playerId: 'contract:erin' } });
await expect(200, 'POST', `${S(rated.session.id)}:move`, { token: dave.playerToken, body: { move: { notation: 'j1L' } } });
await expect(200, 'POST', `${S(rated.session.id)}:resign`, { token: dave.playerToken });
await expect(200, 'GET', '/v1/player', { query: { playerId: 'contract:dave' } });
await expect(404, 'GET', '/v1/player', { query: { playerId: 'contract:nobody' } }, 'NOT_FOUND');
await expect(200, 'GET', '/v1/players', { query: { pageSize: '5' } });

// Archived games, records, positions, an analysis.
const games = await expect(200, 'GET', '/v1/games');
check(games?.games?.length >= 3, `the archive lists ${games?.games?.length} games, not 3 or more`);
await expect(200, 'GET', '/v1/games', { query: { sessionId: id, result: '1/2-1/2' } });
await expect(400, 'GET', '/v1/games', { query: { result: 'won' }, bad: true }, 'INVALID_ARGUMENT');
await expect(404, 'GET', '/v1/games', { query: { sessionId: 'nope' } }, 'NOT_FOUND');
await expect(404, 'GET', `${S('nope')}/games`, {}, 'NOT_FOUND');
const sessionGames = await expect(200, 'GET', `${S(id)}/games`, { query: { player: 'alice', result: '1/2-1/2' } });
const game = sessionGames.games[0].id;
await expect(200, 'GET', `${S(id)}/games/${game}`);
await expect(200, 'GET', `${S(id)}/games/${game}/record`);
await expect(404, 'GET', `${S(id)}/games/${id}-g99`, {}, 'NOT_FOUND');
await expect(200, 'GET', `${S(id)}/games/${game}/positions/1`);
await expect(400, 'GET', `${S(id)}/games/${game}/positions/999`);
await expect(400, 'POST', `${S(id)}/games/${game}:analyze`, { body: { msPerPly: 1 } }, 'INVALID_ARGUMENT');
let analysis = await expect(200, 'POST', `${S(id)}/games/${game}:analyze`, { body: { msPerPly: 10 } });
for (let i = 0; i < 100 && analysis?.state !== 'DONE'; ++i) {
  await new Promise((r) => setTimeout(r, 100));
  analysis = await expect(200, 'POST', `${S(id)}/games/${game}:analyze`, {});
}
check(analysis?.state === 'DONE', `the analysis is ${analysis?.state} after 10 s`);
await expect(200, 'GET', `${S(id)}/games/current`);

// Pushed events: a URL on this test's receiver registered, a move delivered
// signed; the errors; removal.
{
  const pushed = await expect(200, 'POST', '/v1/sessions', { body: { name: 'pushed' } });
  const P = S(pushed.session.id);
  const boardOwner = pushed.ownerToken;
  const frank = await expect(200, 'POST', `${P}:join`, { body: { playerName: 'frank', color: 'SILVER' } });
  const gina = await expect(200, 'POST', `${P}:join`, { body: { playerName: 'gina' } });
  const receiver = await startReceiver();
  const url = `${receiver.url}/board?object=1`;
  const callback = `${P}/callback`;
  await expect(401, 'POST', callback, { body: { url } }, 'UNAUTHENTICATED');
  await expect(403, 'POST', callback, { token: frank.playerToken, body: { url } }, 'PERMISSION_DENIED');
  await expect(403, 'POST', callback, { token: boardOwner, body: { url: 'http://192.0.2.1/' } }, 'PERMISSION_DENIED');
  await expect(400, 'POST', callback, { token: boardOwner, body: { url: 'ftp://127.0.0.1/' } }, 'INVALID_ARGUMENT');
  await expect(400, 'POST', callback, { token: boardOwner, body: { url: `${url}#top` } }, 'INVALID_ARGUMENT');
  await expect(400, 'POST', callback, { token: boardOwner, body: { url, afterVersion: 99 } }, 'INVALID_ARGUMENT');
  await expect(400, 'POST', callback, { token: boardOwner, body: { url, bogus: 1 }, bad: true }, 'INVALID_ARGUMENT');
  await expect(413, 'POST', callback, { token: boardOwner, raw: JSON.stringify({ url: `${url}&${'x'.repeat(70000)}` }) }, 'RESOURCE_EXHAUSTED');
  await expect(404, 'POST', `${S('no-such-session')}/callback`, { token: boardOwner, body: { url } }, 'NOT_FOUND');
  await expect(404, 'GET', callback, { token: boardOwner }, 'NOT_FOUND');
  check(receiver.deliveries.length === 0, 'a refused registration was delivered to');

  // The game began at version 3; a number is a valid afterVersion.
  const registered = await expect(200, 'POST', callback, { token: boardOwner, body: { url, afterVersion: 3 } });
  const secret = registered?.secret ?? '';
  check(registered?.version === '3', `the registration answered version ${registered?.version}, not 3`);
  await expect(200, 'POST', `${P}:move`, { token: frank.playerToken, body: { move: { notation: 'j1L' } } });
  const first = await receiver.wait(0, () => true, 5000);
  if (check(first, 'no delivery within 5 s of a move')) {
    check(first.url.pathname === '/board' && first.url.searchParams.get('object') === '1',
          `a delivery went to ${first.url.pathname}${first.url.search}, not the URL's path and query`);
    const body = checkDelivery(first, secret);
    const move = body?.events?.find((e) => e.v === 4);
    check(move?.kind === 'move' && typeof move.lm === 'string' && move.lm.length > 0,
          `the first delivery holds no move event with lm at version 4: ${first.body.toString().slice(0, 300)}`);
  }
  // The board's 200 reaches khetd a moment after the delivery reached us.
  let state;
  for (let i = 0; i < 50; ++i) {
    const answer = await call('GET', callback, { token: boardOwner });
    state = answer.json;
    if (answer.status !== 200 || state?.delivered === '4') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  check(state?.url === url && state?.version === '4' && state?.delivered === '4' && state?.failures === 0,
        `GET .../callback answered ${JSON.stringify(state)}`);
  await expect(401, 'GET', callback, {}, 'UNAUTHENTICATED');
  await expect(403, 'GET', callback, { token: gina.playerToken }, 'PERMISSION_DENIED');

  // Removed: no more deliveries.
  await expect(401, 'DELETE', callback, {}, 'UNAUTHENTICATED');
  await expect(403, 'DELETE', callback, { token: frank.playerToken }, 'PERMISSION_DENIED');
  await expect(200, 'DELETE', callback, { token: boardOwner });
  await expect(404, 'DELETE', callback, { token: boardOwner }, 'NOT_FOUND');
  await expect(404, 'GET', callback, { token: boardOwner }, 'NOT_FOUND');
  const seen = receiver.deliveries.length;
  await expect(200, 'POST', `${P}:move`, { token: gina.playerToken, body: { move: { notation: 'a8L' } } });
  check(!(await receiver.wait(seen, () => true, 1000)), 'a delivery came after DELETE .../callback');
  receiver.close();
}

// The budget of sessions nobody joined: 429 with Retry-After.
let refused;
for (let i = 0; i < 8 && !refused; ++i) {
  const answer = await call('POST', '/v1/sessions', { body: { name: `unjoined ${i}` } });
  if (answer.status === 429) refused = answer;
  else check(answer.status === 200, `an unjoined session answered ${answer.status}`);
}
if (check(refused, 'no 429 after 8 sessions nobody joined (budget 4)')) {
  check(refused.json?.error?.code === 'RESOURCE_EXHAUSTED', '429 without RESOURCE_EXHAUSTED');
  check(/^[0-9]+$/.test(refused.headers.get('retry-after') ?? ''), '429 without Retry-After');
}

// Deleting: no token, the wrong token, the owner's; then the stream ends.
await expect(401, 'DELETE', S(second.id), {}, 'UNAUTHENTICATED');
await expect(403, 'DELETE', S(second.id), { token: carol.playerToken }, 'PERMISSION_DENIED');
const ending = readStream(`${S(second.id)}/events:stream`, { afterVersion: '0' }, {}, () => false);
await new Promise((r) => setTimeout(r, 200));
await expect(200, 'DELETE', S(second.id), { token: second.owner });
const last = (await ending).at(-1);
check(last && 'sessionDeleted' in last, 'the event stream did not end with sessionDeleted');
await expect(404, 'GET', `${S(second.id)}/events`, {}, 'NOT_FOUND');

// A method a path does not take: 405 with the Error body (not an operation).
{
  const response = await fetch(`${base}/v1/setups`, { method: 'DELETE' });
  check(response.status === 405, `DELETE /v1/setups answered ${response.status}`);
  validate({ $ref: '#/components/schemas/Error' }, await response.json(), '405 body');
}

// ---- coverage -----------------------------------------------------------------

const statuses = new Set([...covered.values()].flatMap((s) => [...s]));
for (const operation of documented) {
  check(covered.has(operation), `the session never reached ${operation}`);
}
for (const status of [200, 400, 401, 403, 404, 409, 413, 429]) {
  check(statuses.has(status), `no answer had status ${status}`);
}
const answers = [...covered.values()].reduce((n, s) => n + s.size, 0);
console.log(`${covered.size} of ${documented.size} operations reached, ` +
            `${answers} (operation, status) pairs, statuses ${[...statuses].sort().join(' ')}`);

khetd.kill('SIGTERM');
if (failures.length) {
  console.log(`${failures.length} failures`);
  process.exit(1);
}
console.log('every request and answer matched docs/openapi.yaml');
