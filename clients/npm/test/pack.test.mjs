// npm pack in this folder refuses, naming the command that builds installable packages; the
// release's own packing (scripts/pack.mjs, tested through make npm-host by the launcher
// tests) is not affected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

for (const args of [['pack'], ['pack', '--dry-run'], ['publish', '--dry-run']]) {
  test(`npm ${args.join(' ')} in clients/npm refuses and names make release`, (t) => {
    const out = mkdtempSync(path.join(tmpdir(), 'pi-rpc-npm-pack-refusal-'));
    t.after(() => rmSync(out, { recursive: true, force: true }));
    const env = { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_update_notifier: 'false' };
    const r = spawnSync('npm', [...args, '--pack-destination', out, '--loglevel=error'], { cwd: pkgDir, env, encoding: 'utf8' });
    assert.notEqual(r.status, 0, `npm ${args.join(' ')} succeeded:\n${r.stdout}`);
    assert.match(r.stderr, /make release/);
    assert.deepEqual(readdirSync(out), [], 'no tarball is written');
  });
}

test('scripts/pack.mjs says what it packs, step by step, and prints the tarballs', (t) => {
  const { PLATFORM_PACKAGES, platformPackage } = createRequire(import.meta.url)('../binary.js');
  const host = Object.keys(PLATFORM_PACKAGES).find((p) => PLATFORM_PACKAGES[p] === platformPackage());
  assert.ok(host, `no platform package for ${process.platform}-${process.arch}`);
  const out = mkdtempSync(path.join(tmpdir(), 'pi-rpc-npm-pack-progress-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const binary = path.join(out, 'fake-pi-rpc');
  writeFileSync(binary, '#!/bin/sh\n');
  const r = spawnSync(process.execPath, [path.join(pkgDir, 'scripts', 'pack.mjs'), '--version', '1.2.3', '--out', out, `${host}=${binary}`], {
    cwd: out,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stderr.trim().split('\n'), [
    'packing pi-rpc 1.2.3 (the launcher, optionalDependencies pinned to 1.2.3)',
    `packing ${PLATFORM_PACKAGES[host]} 1.2.3 from ${binary}`,
  ]);
  assert.deepEqual(r.stdout.trim().split('\n'), ['pi-rpc-1.2.3.tgz', `${PLATFORM_PACKAGES[host]}-1.2.3.tgz`]);
});

test('scripts/pack.mjs packs a Windows binary as bin/pi-rpc.exe, with os win32', (t) => {
  const out = mkdtempSync(path.join(tmpdir(), 'pi-rpc-npm-pack-win32-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const binary = path.join(out, 'fake-pi-rpc.exe');
  writeFileSync(binary, 'MZ');
  const r = spawnSync(process.execPath, [path.join(pkgDir, 'scripts', 'pack.mjs'), '--version', '1.2.3', '--out', out, `win32-x64=${binary}`], {
    cwd: out,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const tgz = path.join(out, 'pi-rpc-win32-x64-1.2.3.tgz');
  const list = spawnSync('tar', ['-tzf', tgz], { encoding: 'utf8' });
  assert.equal(list.status, 0, list.stderr);
  assert.deepEqual(list.stdout.trim().split('\n').sort(), ['package/README.md', 'package/bin/pi-rpc.exe', 'package/package.json']);
  const manifest = JSON.parse(spawnSync('tar', ['-xzOf', tgz, 'package/package.json'], { encoding: 'utf8' }).stdout);
  assert.deepEqual([manifest.os, manifest.cpu, manifest.files], [['win32'], ['x64'], ['bin/pi-rpc.exe', 'README.md']]);
});
