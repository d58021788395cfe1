// The npm packages as a user gets them: the launcher and this machine's platform package,
// packed by scripts/pack.mjs, installed offline into a fresh project, run through npx and
// `node cli.js`. Run by make test-npm (which builds the tarballs with make npm-host).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { installProject, tarballs } from './install.mjs';

const require = createRequire(import.meta.url);
const { binaryPath, BinaryNotFoundError, PLATFORM_PACKAGES } = require('../binary.js');
const { parseArgs } = await import('../scripts/pack.mjs');

const { version, host } = tarballs();
// The tests share two installed projects (they only read them): with the platform package,
// and without it.
const full = installProject(after);
const bare = installProject(after, { withPlatform: false });

function tempDir(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pi-rpc-npm-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('npx pi-rpc and node cli.js run the platform package binary', () => {
  const { dir, env, cliPath } = full;
  const npx = spawnSync('npx', ['pi-rpc', '--version'], { cwd: dir, env, encoding: 'utf8' });
  assert.equal(npx.status, 0, npx.stderr);
  assert.equal(npx.stdout, `pi-rpc ${version}\n`);
  const node = spawnSync(process.execPath, [cliPath, '--version'], { cwd: tmpdir(), env, encoding: 'utf8' });
  assert.equal(node.status, 0, node.stderr);
  assert.equal(node.stdout, `pi-rpc ${version}\n`);

  // Every version is the release's, and the launcher pins its platform packages to it.
  const modules = path.join(dir, 'node_modules');
  const launcher = JSON.parse(readFileSync(path.join(modules, 'pi-rpc', 'package.json'), 'utf8'));
  assert.equal(launcher.version, version);
  assert.deepEqual(
    launcher.optionalDependencies,
    Object.fromEntries(Object.values(PLATFORM_PACKAGES).sort().map((name) => [name, version])),
  );
  assert.equal(launcher.bin['pi-rpc'], 'cli.js');
  const platform = JSON.parse(readFileSync(path.join(modules, host, 'package.json'), 'utf8'));
  assert.equal(platform.version, version);
  assert.deepEqual([platform.os, platform.cpu], [[process.platform], [process.arch]]);
  // binaryPath, as a program calling the package would.
  const resolved = createRequire(path.join(dir, 'index.js'))('pi-rpc').binaryPath({ env: {} });
  assert.equal(resolved, path.join(modules, host, 'bin', 'pi-rpc'));
});

test('PI_RPC_BINARY overrides the platform package; arguments and exit code pass through', (t) => {
  const { dir, env } = full;
  const fake = path.join(tempDir(t), 'fake-pi-rpc');
  writeFileSync(fake, '#!/bin/sh\nprintf "fake:%s|" "$@"\necho >&2 "fake stderr"\nexit 7\n');
  chmodSync(fake, 0o755);
  const r = spawnSync('npx', ['pi-rpc', '--mode', 'rpc', 'two words'], { cwd: dir, env: { ...env, PI_RPC_BINARY: fake }, encoding: 'utf8' });
  assert.equal(r.status, 7);
  assert.equal(r.stdout, 'fake:--mode|fake:rpc|fake:two words|');
  assert.equal(r.stderr, 'fake stderr\n');

  const missing = path.join(path.dirname(fake), 'missing');
  const m = spawnSync('npx', ['pi-rpc', '--version'], { cwd: dir, env: { ...env, PI_RPC_BINARY: missing }, encoding: 'utf8' });
  assert.equal(m.status, 1);
  assert.equal(m.stdout, '');
  assert.match(m.stderr, new RegExp(`^pi-rpc: cannot run ${missing} \\(PI_RPC_BINARY\\): .*ENOENT`));
});

test('a missing platform package is a clear error naming it', () => {
  const { dir, env, cliPath } = bare;
  for (const argv of [['npx', ['pi-rpc', '--version']], [process.execPath, [cliPath, '--version']]]) {
    const r = spawnSync(argv[0], argv[1], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^pi-rpc: no pi-rpc binary for ${process.platform}-${process.arch}: PI_RPC_BINARY is not set and the platform package ${host} is not installed`));
    assert.match(r.stderr, /--omit=optional/);
  }
});

// childrenOf lists the pids whose parent is pid (ps works on Linux and macOS).
function childrenOf(pid) {
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, ppid]) => ppid === pid)
    .map(([p]) => p);
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if (err.code === 'ESRCH') return false;
    throw err;
  }
};

// startServing runs the installed cli.js in pi mode and waits for the answer to get_state,
// by which time the binary is serving (its signal handlers are installed before it reads
// stdin). It returns the launcher process, the binary's pid and a promise of how it ended.
async function startServing(t, cliPath, env) {
  const agentDir = tempDir(t);
  const script = path.join(agentDir, 'faux.json');
  writeFileSync(script, JSON.stringify({ responses: [] }));
  const launcher = spawn(process.execPath, [cliPath, '--mode', 'rpc', '--provider', 'faux', '--faux-script', script, '--no-session'], {
    cwd: agentDir,
    env: { ...env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const ended = new Promise((resolve) => launcher.on('exit', (code, signal) => resolve({ code, signal })));
  t.after(() => launcher.kill('SIGKILL'));
  let stderr = '';
  launcher.stderr.on('data', (d) => (stderr += d));
  const lines = createInterface({ input: launcher.stdout });
  const reply = new Promise((resolve, reject) => {
    lines.once('line', resolve);
    ended.then((e) => reject(new Error(`launcher exited (${JSON.stringify(e)}) before answering: ${stderr}`)));
  });
  launcher.stdin.write('{"id":"s1","type":"get_state"}\n');
  const response = JSON.parse(await reply);
  assert.equal(response.id, 's1');
  assert.equal(response.success, true, JSON.stringify(response));
  const children = childrenOf(launcher.pid);
  assert.equal(children.length, 1, `children of the launcher: ${children}`);
  return { launcher, binaryPid: children[0], ended };
}

for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130], ['SIGHUP', 129]]) {
  test(`${signal} is forwarded to the binary; the launcher exits ${code} and leaves no process`, async (t) => {
    const { cliPath, env } = full;
    const { launcher, binaryPid, ended } = await startServing(t, cliPath, env);
    launcher.kill(signal);
    assert.deepEqual(await ended, { code, signal: null });
    assert.equal(alive(binaryPid), false, `pi-rpc (pid ${binaryPid}) outlived the launcher`);
  });
}

test('a binary killed by a signal: the launcher dies of the same signal', async (t) => {
  const { cliPath, env } = full;
  const { binaryPid, ended } = await startServing(t, cliPath, env);
  process.kill(binaryPid, 'SIGKILL');
  assert.deepEqual(await ended, { code: null, signal: 'SIGKILL' });
});

test('binaryPath: PI_RPC_BINARY, then the platform package; unknown platforms', () => {
  const calls = [];
  const resolve = (spec) => {
    calls.push(spec);
    return `/modules/${spec}`;
  };
  assert.equal(binaryPath({ env: { PI_RPC_BINARY: '/x/pi-rpc' }, resolve }), '/x/pi-rpc');
  assert.deepEqual(calls, []);
  for (const [platform, arch, pkg] of [
    ['linux', 'x64', 'pi-rpc-linux-x64'],
    ['linux', 'arm64', 'pi-rpc-linux-arm64'],
    ['darwin', 'x64', 'pi-rpc-darwin-x64'],
    ['darwin', 'arm64', 'pi-rpc-darwin-arm64'],
  ]) {
    assert.equal(binaryPath({ env: {}, platform, arch, resolve }), `/modules/${pkg}/bin/pi-rpc`);
  }
  // On Windows the binary is pi-rpc.exe.
  for (const [arch, pkg] of [
    ['x64', 'pi-rpc-win32-x64'],
    ['arm64', 'pi-rpc-win32-arm64'],
  ]) {
    assert.equal(binaryPath({ env: {}, platform: 'win32', arch, resolve }), `/modules/${pkg}/bin/pi-rpc.exe`);
  }
  assert.throws(
    () => binaryPath({ env: {}, platform: 'freebsd', arch: 'x64', resolve }),
    (err) => err instanceof BinaryNotFoundError && /no pi-rpc binary for freebsd-x64: the platform packages are pi-rpc-linux-x64, /.test(err.message) && /PI_RPC_BINARY/.test(err.message),
  );
  // A failure other than a missing module (a broken package) is not hidden.
  const broken = () => {
    throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
  };
  assert.throws(() => binaryPath({ env: {}, platform: 'linux', arch: 'x64', resolve: broken }), /EACCES/);
});

test('pack.mjs refuses bad arguments', () => {
  assert.deepEqual(parseArgs(['--version', '1.2.0-3-gabc1234', '--out', 'd', 'linux-x64=b']), {
    version: '1.2.0-3-gabc1234',
    out: 'd',
    binaries: { 'linux-x64': 'b' },
  });
  for (const [argv, want] of [
    [['--out', 'd'], /--version is required/],
    [['--version', '1.2.0'], /--out is required/],
    [['--version', 'abc1234', '--out', 'd'], /not a semver version/],
    [['--version', 'v1.2.0', '--out', 'd'], /not a semver version/],
    [['--version', '1.2.0+build', '--out', 'd'], /not a semver version/],
    [['--version', '1.2.0', '--out', 'd', 'windows-x64=b'], /unknown platform "windows-x64"/],
    [['--version', '1.2.0', '--out', 'd', '--bogus'], /unknown argument "--bogus"/],
    [['--version'], /--version needs a value/],
  ]) {
    assert.throws(() => parseArgs(argv), want);
  }
});
