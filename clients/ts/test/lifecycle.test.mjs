// The process dying mid-call, startup failures, binary lookup, dispose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BinaryNotFoundError, ProcessExitedError, resolveBinary, spawn } from '@pi-rpc/client';
import { findBinary, PLATFORM_PACKAGES } from '../dist/esm/binary.js';
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

test('binary lookup: binaryPath, then $PI_RPC_BINARY, $PI_RPC_BIN, then PATH; missing binaries', async (t) => {
  const dir = tempDir(t);
  const onPath = path.join(dir, 'pi-rpc');
  writeFileSync(onPath, '#!/bin/sh\nexit 0\n');
  chmodSync(onPath, 0o755);
  assert.equal(resolveBinary('/x/given', { PI_RPC_BINARY: '/x/binary', PI_RPC_BIN: '/x/env', PATH: dir }), '/x/given');
  assert.equal(resolveBinary(undefined, { PI_RPC_BINARY: '/x/binary', PI_RPC_BIN: '/x/env', PATH: dir }), '/x/binary');
  assert.equal(resolveBinary(undefined, { PI_RPC_BIN: '/x/env', PATH: dir }), '/x/env');
  assert.equal(resolveBinary(undefined, { PATH: `/nonexistent:${dir}` }), onPath);
  assert.throws(() => resolveBinary(undefined, { PATH: '/nonexistent' }), (err) => {
    assert.ok(err instanceof BinaryNotFoundError);
    assert.match(err.message, /set \$PI_RPC_BINARY, install the pi-rpc npm package/);
    assert.match(err.message, /searched \$PATH: \/nonexistent/);
    return true;
  });
  assert.throws(
    () => spawn({ env: { PI_RPC_BINARY: undefined, PI_RPC_BIN: undefined, PATH: '/nonexistent' } }),
    BinaryNotFoundError,
  );
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

// fakePackage writes <dir>/node_modules/<name>/bin/<file> (and package.json) and returns the binary.
function fakePackage(dir, name, file = 'pi-rpc') {
  const pkg = path.join(dir, 'node_modules', name);
  mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
  const bin = path.join(pkg, 'bin', file);
  writeFileSync(bin, '#!/bin/sh\nexit 0\n');
  chmodSync(bin, 0o755);
  return bin;
}

test('binary lookup: the platform package, hoisted or under the pi-rpc launcher, before PATH', (t) => {
  const onPath = tempDir(t);
  fakePackage(onPath, 'unused');
  writeFileSync(path.join(onPath, 'pi-rpc'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(onPath, 'pi-rpc'), 0o755);
  const machine = { platform: process.platform, arch: process.arch };
  const pkg = PLATFORM_PACKAGES[`${machine.platform}-${machine.arch}`];
  assert.ok(pkg, `a platform package for ${machine.platform}-${machine.arch}`);
  // resolverIn resolves as a module of <dir>/app would, with Node's real lookup.
  const resolverIn = (dir) => createRequire(path.join(dir, 'app', 'index.js')).resolve;

  // npm's layout: the launcher's optional dependency hoisted beside the client.
  const hoisted = tempDir(t);
  const hoistedBin = fakePackage(hoisted, pkg);
  assert.equal(findBinary(undefined, { PATH: onPath }, { ...machine, resolve: resolverIn(hoisted) }), hoistedBin);
  // The environment still wins over the package.
  assert.equal(findBinary(undefined, { PI_RPC_BINARY: '/x/binary' }, { ...machine, resolve: resolverIn(hoisted) }), '/x/binary');

  // A strict layout (pnpm): only the launcher is visible, its platform package under it.
  const nested = tempDir(t);
  fakePackage(nested, 'pi-rpc');
  const nestedBin = fakePackage(path.join(nested, 'node_modules', 'pi-rpc'), pkg);
  assert.equal(findBinary(undefined, { PATH: onPath }, { ...machine, resolve: resolverIn(nested) }), nestedBin);

  // Neither: PATH; another machine's package is not taken; no package for the machine: PATH.
  const empty = tempDir(t);
  assert.equal(findBinary(undefined, { PATH: onPath }, { ...machine, resolve: resolverIn(empty) }), path.join(onPath, 'pi-rpc'));
  const other = Object.keys(PLATFORM_PACKAGES).find((k) => k !== `${machine.platform}-${machine.arch}`);
  const [platform, arch] = other.split('-');
  assert.throws(
    () => findBinary(undefined, { PATH: '/nonexistent' }, { platform, arch, resolve: resolverIn(hoisted) }),
    new RegExp(`the npm package ${PLATFORM_PACKAGES[other]} is not installed`),
  );
  assert.throws(
    () => findBinary(undefined, { PATH: '/nonexistent' }, { platform: 'freebsd', arch: 'x64', resolve: resolverIn(hoisted) }),
    /there is no npm package for freebsd-x64/,
  );
  assert.equal(findBinary(undefined, { PATH: onPath }, { platform: 'freebsd', arch: 'x64', resolve: resolverIn(hoisted) }), path.join(onPath, 'pi-rpc'));

  // Windows: the platform package's binary is bin/pi-rpc.exe, and on Path it is pi-rpc.exe.
  const win = tempDir(t);
  const winBin = fakePackage(win, 'pi-rpc-win32-x64', 'pi-rpc.exe');
  assert.equal(findBinary(undefined, { Path: onPath }, { platform: 'win32', arch: 'x64', resolve: resolverIn(win) }), winBin);
  writeFileSync(path.join(onPath, 'pi-rpc.exe'), 'MZ');
  chmodSync(path.join(onPath, 'pi-rpc.exe'), 0o755);
  assert.equal(findBinary(undefined, { Path: `C:\\nonexistent;${onPath}` }, { platform: 'win32', arch: 'arm64', resolve: resolverIn(win) }), path.join(onPath, 'pi-rpc.exe'));

  // A failure other than a missing module is not hidden.
  const broken = () => {
    throw Object.assign(new Error('EACCES: broken'), { code: 'EACCES' });
  };
  assert.throws(() => findBinary(undefined, { PATH: onPath }, { ...machine, resolve: broken }), /EACCES: broken/);
});
