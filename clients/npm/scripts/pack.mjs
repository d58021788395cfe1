#!/usr/bin/env node
// Builds the npm tarballs of a pi-rpc release: the launcher (package `pi-rpc`, this folder)
// and one platform package per binary given (`pi-rpc-<os>-<cpu>`, the binary in bin/, with os
// and cpu fields so that npm installs only the matching one). Every package gets the same
// version, and the launcher's optionalDependencies are pinned to it.
//
//   node clients/npm/scripts/pack.mjs --version 1.2.0 --out dist linux-x64=dist/pi-rpc-linux-amd64 ...
//
// make release packs all six platforms; the npm test (test/install.test.mjs) packs the host's.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { PLATFORM_PACKAGES, binaryName } = createRequire(import.meta.url)('../binary.js');

// SEMVER is semver 2.0 without build metadata (npm drops "+..." from versions, which would make
// the packages' versions differ from the release's).
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?$/;

/** parseArgs reads `--version V --out DIR platform=binary...`; it throws on anything else. */
export function parseArgs(argv) {
  const opts = { version: undefined, out: undefined, binaries: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--version' || a === '--out') {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      opts[a.slice(2)] = argv[++i];
      continue;
    }
    const eq = a.indexOf('=');
    if (a.startsWith('-') || eq < 0) throw new Error(`unknown argument ${JSON.stringify(a)} (want --version, --out or <os>-<cpu>=<binary>)`);
    const platform = a.slice(0, eq);
    if (!PLATFORM_PACKAGES[platform]) {
      throw new Error(`unknown platform ${JSON.stringify(platform)} (want one of ${Object.keys(PLATFORM_PACKAGES).join(', ')})`);
    }
    opts.binaries[platform] = a.slice(eq + 1);
  }
  if (!opts.version) throw new Error('--version is required');
  if (!SEMVER.test(opts.version)) {
    throw new Error(`version ${JSON.stringify(opts.version)} is not a semver version without build metadata (as 1.2.0 or 1.2.0-3-gabc1234)`);
  }
  if (!opts.out) throw new Error('--out is required');
  return opts;
}

/**
 * pack writes the tarballs into opts.out and returns their paths, the launcher's first.
 * progress, if given, is told what each step packs before it starts.
 */
export function pack({ version, out, binaries }, progress = () => {}) {
  mkdirSync(out, { recursive: true });
  const stage = mkdtempSync(path.join(tmpdir(), 'pi-rpc-npm-pack-'));
  try {
    progress(`packing pi-rpc ${version} (the launcher, optionalDependencies pinned to ${version})`);
    const tarballs = [npmPack(stageLauncher(stage, version), out)];
    for (const [platform, binary] of Object.entries(binaries)) {
      progress(`packing ${PLATFORM_PACKAGES[platform]} ${version} from ${binary}`);
      tarballs.push(npmPack(stagePlatform(stage, platform, binary, version), out));
    }
    return tarballs;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function stageLauncher(stage, version) {
  const dir = path.join(stage, 'pi-rpc');
  mkdirSync(dir);
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  manifest.version = version;
  manifest.optionalDependencies = Object.fromEntries(Object.values(PLATFORM_PACKAGES).sort().map((name) => [name, version]));
  delete manifest.scripts;
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  for (const f of manifest.files) copyFileSync(path.join(root, f), path.join(dir, f));
  chmodSync(path.join(dir, 'cli.js'), 0o755);
  return dir;
}

function stagePlatform(stage, platform, binary, version) {
  const name = PLATFORM_PACKAGES[platform];
  const [os, cpu] = platform.split('-');
  const exe = binaryName(os);
  const dir = path.join(stage, name);
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  const manifest = {
    name,
    version,
    description: `The ${os} ${cpu} binary of pi-rpc; install the pi-rpc package, which depends on it`,
    license: 'MIT',
    repository: { type: 'git', url: 'git+https://github.com/pi-rpc/pi-rpc.git', directory: 'clients/npm' },
    os: [os],
    cpu: [cpu],
    files: [`bin/${exe}`, 'README.md'],
    preferUnplugged: true,
  };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(
    path.join(dir, 'README.md'),
    `# ${name}\n\nThe pi-rpc binary for ${os} on ${cpu}, at \`bin/${exe}\`. Install the \`pi-rpc\` package instead:\n` +
      `it depends on this one (and on the other platforms', of which npm installs only the one that matches).\n`,
  );
  copyFileSync(binary, path.join(dir, 'bin', exe));
  chmodSync(path.join(dir, 'bin', exe), 0o755);
  return dir;
}

function npmPack(dir, out) {
  const stdout = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--loglevel=error', '--pack-destination', path.resolve(out)], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return path.join(path.resolve(out), JSON.parse(stdout)[0].filename);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`pack.mjs: ${err.message}\n`);
    process.exit(2);
  }
  const tarballs = pack(opts, (step) => process.stderr.write(`${step}\n`));
  for (const t of tarballs) process.stdout.write(`${path.relative(process.cwd(), t)}\n`);
}
