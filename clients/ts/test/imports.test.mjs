// Both entry points: ESM import and CommonJS require load the same API, with declarations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as esm from '@pi-rpc/client';

const require = createRequire(import.meta.url);

test('ESM and CommonJS entry points export the same names', () => {
  const cjs = require('@pi-rpc/client');
  assert.deepEqual(Object.keys(cjs).filter((k) => k !== 'default').sort(), Object.keys(esm).sort());
  for (const name of ['spawn', 'PiRpcClient', 'RpcError', 'ProcessExitedError', 'RequestTimeoutError', 'EVENT_TYPES', 'ERROR_CODES']) {
    assert.ok(name in esm, name);
  }
  assert.notEqual(cjs.PiRpcClient, esm.PiRpcClient, 'two builds, not one re-exported');
  assert.match(require.resolve('@pi-rpc/client'), /dist\/cjs\/index\.js$/);
});

test('a CommonJS program and an ES module program both load the package', () => {
  const cjsOut = execFileSync(process.execPath, ['-e', "const c = require('@pi-rpc/client'); console.log(typeof c.spawn, c.ERROR_CODES.busy)"], { encoding: 'utf8' });
  assert.equal(cjsOut.trim(), 'function -32010');
  const esmOut = execFileSync(process.execPath, ['--input-type=module', '-e', "import { spawn, ERROR_CODES } from '@pi-rpc/client'; console.log(typeof spawn, ERROR_CODES.busy)"], { encoding: 'utf8' });
  assert.equal(esmOut.trim(), 'function -32010');
});

test('type declarations exist for both entry points', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  for (const cond of ['import', 'require']) {
    const entry = pkg.exports['.'][cond];
    assert.ok(existsSync(new URL(`../${entry.types}`, import.meta.url)), entry.types);
    assert.ok(existsSync(new URL(`../${entry.default}`, import.meta.url)), entry.default);
  }
  for (const [name, spec] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.match(spec, /^\d+\.\d+\.\d+$/, `${name} is pinned exactly`);
  }
});
