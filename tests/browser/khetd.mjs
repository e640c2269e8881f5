// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd for a browser test: gRPC and HTTP on free loopback ports, an
// in-memory store, then `extraArgs`. Resolves with { khetd, base } (the
// child process, the HTTP base URL) once khetd has printed both listening
// addresses; rejects if it exits first or is not ready in 10 s. setpriv
// kills it should the test's process die. `onLog` receives its stderr,
// the request log.
import { spawn } from 'node:child_process';

export function startKhetd(binary, { extraArgs = [], onLog = () => {} } = {}) {
  return new Promise((resolve, reject) => {
    const args = ['--listen', '127.0.0.1:0', '--http_listen', '127.0.0.1:0',
                  '--store', 'memory', ...extraArgs];
    const khetd = spawn('setpriv', ['--pdeathsig', 'KILL', '--', binary, ...args],
                        { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';  // kept until khetd is ready, for the error
    let ready = false;
    const timer = setTimeout(() => {
      khetd.kill('SIGKILL');
      reject(new Error(`khetd did not start in 10 s:\n${out}${err}`));
    }, 10000);
    khetd.stderr.on('data', (chunk) => {
      if (!ready) err += chunk;
      onLog(chunk);
    });
    khetd.stdout.on('data', (chunk) => {
      out += chunk;
      const http = out.match(/http\S*\s.*?(\d+\.\d+\.\d+\.\d+:\d+)/i);
      if (!ready && http && /khetd listening on/.test(out)) {
        ready = true;
        clearTimeout(timer);
        resolve({ khetd, base: `http://${http[1]}` });
      }
    });
    khetd.on('exit', (code) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`khetd exited with ${code} before it was ready:\n${out}${err}`));
    });
  });
}
