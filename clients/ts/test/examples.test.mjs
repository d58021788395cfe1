// The examples run: chat.ts, compiled as its header says, against the real binary.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn as spawnChild } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fauxScript, piRpcBin, tempDir } from './helpers.mjs';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const chat = path.join(pkg, 'examples', 'dist', 'chat.js');

before(() => {
  execFileSync(process.execPath, [path.join(pkg, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(pkg, 'examples')], { stdio: 'inherit' });
});

/** Runs chat.js on a faux script with input written to its stdin, then stdin closed. */
function runChat(t, input, script) {
  const dir = tempDir(t);
  const file = fauxScript(dir, script);
  const child = spawnChild(process.execPath, [chat, '--no-session', '--provider', 'faux', '--faux-script', file], {
    cwd: dir,
    env: { ...process.env, PI_RPC_BIN: piRpcBin, PI_RPC_HOME: dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

const hello = { responses: [{ content: [{ type: 'text', text: 'Hello from faux.' }] }] };

test('chat.js exits 0 when its input ends at once', { timeout: 30_000 }, async (t) => {
  const r = await runChat(t, '', hello);
  assert.equal(r.code, 0, `exit ${r.code ?? r.signal}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
});

test('chat.js answers a piped line, then exits 0 at the end of input', { timeout: 30_000 }, async (t) => {
  const r = await runChat(t, 'hi\n', hello);
  assert.equal(r.code, 0, `exit ${r.code ?? r.signal}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.match(r.stdout, /Hello from faux\./);
});
