// Test helper: installs the launcher's tarball (and this machine's platform package) into a
// fresh temporary project, offline, the way a user's `npm install pi-rpc` lays them out.
// The tarballs come from scripts/pack.mjs (make npm-host puts them in bin/npm/):
// $PI_RPC_NPM_DIR holds them, $PI_RPC_NPM_VERSION is their version. Used by this folder's
// tests and by e2e/pi-npm.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const { platformPackage } = createRequire(import.meta.url)('../binary.js');

/** The tarballs' directory and version, from the environment; throws if they are not set. */
export function tarballs() {
  const dir = process.env.PI_RPC_NPM_DIR;
  const version = process.env.PI_RPC_NPM_VERSION;
  if (!dir || !version) throw new Error('set PI_RPC_NPM_DIR and PI_RPC_NPM_VERSION (make npm-host builds them)');
  const host = platformPackage();
  if (!host) throw new Error(`no platform package for ${process.platform}-${process.arch}`);
  const launcher = path.join(dir, `pi-rpc-${version}.tgz`);
  const platform = path.join(dir, `${host}-${version}.tgz`);
  for (const f of [launcher, platform]) if (!existsSync(f)) throw new Error(`${f} not found (run make npm-host)`);
  return { version, launcher, platform, host };
}

// OFFLINE keeps npm off the network: --offline, a registry nobody listens on, and an empty
// cache of the project's own, so a result never depends on what this machine has fetched.
const offline = (cache) => [
  '--offline',
  '--no-audit',
  '--no-fund',
  '--loglevel=error',
  '--registry=http://127.0.0.1:9/',
  `--cache=${cache}`,
];

/**
 * installProject makes a temporary npm project and installs the launcher into it, with this
 * machine's platform package unless withPlatform is false. It returns the project's directory
 * and an env for running npm and npx in it offline. after registers the project's removal
 * (node:test's after, or (fn) => t.after(fn)).
 */
export function installProject(after, { withPlatform = true } = {}) {
  const { launcher, platform } = tarballs();
  const dir = mkdtempSync(path.join(tmpdir(), 'pi-rpc-npm-project-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const cache = path.join(dir, '.npm-cache');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'project', version: '1.0.0', private: true }));
  const files = withPlatform ? [launcher, platform] : [launcher];
  execFileSync('npm', ['install', ...offline(cache), ...files], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const env = {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_cache: cache,
    npm_config_update_notifier: 'false',
  };
  delete env.PI_RPC_BINARY;
  return { dir, env, cliPath: path.join(dir, 'node_modules', 'pi-rpc', 'cli.js') };
}
