// The process dying mid-call, startup failures, binary lookup, dispose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BinaryNotFoundError, ProcessExitedError, resolveBinary, spawn } from '@pi-rpc/client';
import { piRpcBin, record, startFaux, tempDir } from './helpers.mjs';

const hanging = { responses: [{ content: [{ type: 'text', deltas: ['a', 'b', 'c'] }], hangAfter: 1 }] };

test('the process killed mid-call rejects every pending call with ProcessExitedError', async (t) => {
  const { client } = startFaux(t, hanging);
  await client.initialize();
  const started = client.once('message_update');
  await client.prompt({ message: 'go' });
  await started;
  const pending = [client.waitSettled(), client.waitSettled({ timeoutMs: 60_000 })];
  const ended = (async () => {
    const seen = [];
    for await (const e of client.events()) seen.push(e);
    return seen;
  })();
  client.kill('SIGKILL');
  for (const p of pending) {
    const err = await p.catch((e) => e);
    assert.ok(err instanceof ProcessExitedError, String(err));
    assert.equal(err.signal, 'SIGKILL');
    assert.equal(err.method, 'waitSettled');
    assert.match(err.message, /killed by SIGKILL while waitSettled was pending/);
  }
  await ended; // the iterator ends with the process
  const info = await client.exited;
  assert.equal(info.signal, 'SIGKILL');
  // Calls after the exit reject at once.
  await assert.rejects(client.getState(), ProcessExitedError);
  await assert.rejects(client.once('agent_settled'), ProcessExitedError);
});

test('a crash mid-call carries the exit code and the last lines of stderr', async (t) => {
  const dir = tempDir(t);
  const fake = path.join(dir, 'crashing-pi-rpc');
  // Reads the start of the first request, complains on stderr and exits 3.
  writeFileSync(fake, '#!/bin/sh\nhead -c 20 >/dev/null\necho "line one" >&2\necho "panic: something broke" >&2\nexit 3\n');
  chmodSync(fake, 0o755);
  const client = spawn({ binaryPath: fake });
  const err = await client.initialize().catch((e) => e);
  assert.ok(err instanceof ProcessExitedError, String(err));
  assert.equal(err.exitCode, 3);
  assert.deepEqual(err.stderrTail, ['line one', 'panic: something broke']);
  assert.match(err.message, /exited with code 3 while initialize was pending/);
  assert.match(err.message, /panic: something broke/);
  assert.equal((await client.dispose()).exitCode, 3);
});

test('a startup error of the real binary is reported with its stderr', async () => {
  const client = spawn({ binaryPath: piRpcBin, args: ['--provider', 'bogus'] });
  const err = await client.getState().catch((e) => e);
  assert.ok(err instanceof ProcessExitedError, String(err));
  assert.equal(err.exitCode, 1);
  assert.match(err.stderrTail.join('\n'), /unknown provider "bogus"/);
});

test('binary lookup: binaryPath, then $PI_RPC_BIN, then PATH; missing binaries', async (t) => {
  const dir = tempDir(t);
  const onPath = path.join(dir, 'pi-rpc');
  writeFileSync(onPath, '#!/bin/sh\nexit 0\n');
  chmodSync(onPath, 0o755);
  assert.equal(resolveBinary('/x/given', { PI_RPC_BIN: '/x/env', PATH: dir }), '/x/given');
  assert.equal(resolveBinary(undefined, { PI_RPC_BIN: '/x/env', PATH: dir }), '/x/env');
  assert.equal(resolveBinary(undefined, { PATH: `/nonexistent:${dir}` }), onPath);
  assert.throws(() => resolveBinary(undefined, { PATH: '/nonexistent' }), BinaryNotFoundError);
  assert.throws(() => spawn({ env: { PI_RPC_BIN: undefined, PATH: '/nonexistent' } }), BinaryNotFoundError);
  // A path that cannot be executed rejects calls with the spawn error.
  const client = spawn({ binaryPath: path.join(dir, 'missing') });
  const err = await client.getState().catch((e) => e);
  assert.ok(err instanceof ProcessExitedError);
  assert.match(err.message, /could not be started: .*ENOENT/);
  assert.equal((await client.exited).spawnError.code, 'ENOENT');
});

test('dispose while busy: shutdown aborts and settles, exit code 0, iterators end', async (t) => {
  const { client } = startFaux(t, hanging);
  const events = record(client);
  await client.initialize();
  const started = client.once('message_update');
  const { inputId } = await client.prompt({ message: 'go' });
  await started;
  const iterated = (async () => {
    let n = 0;
    for await (const _ of client.events()) n++;
    return n;
  })();
  const info = await client.dispose();
  assert.equal(info.exitCode, 0);
  assert.equal(info.signal, null);
  await iterated;
  const settled = events.find((e) => e.type === 'agent_settled');
  assert.deepEqual(settled.inputs, [{ inputId, outcome: 'aborted' }]);
  assert.equal(client.isClosed, true);
  assert.equal(await client.dispose(), info);
});

test('dispose kills a process that ignores shutdown and exit', async (t) => {
  const dir = tempDir(t);
  const fake = path.join(dir, 'stubborn');
  writeFileSync(fake, '#!/bin/sh\ntrap "" TERM\nwhile :; do sleep 1; done\n');
  chmodSync(fake, 0o755);
  const client = spawn({ binaryPath: fake, disposeGraceMs: 200 });
  const info = await client.dispose();
  assert.equal(info.signal, 'SIGKILL');
});
