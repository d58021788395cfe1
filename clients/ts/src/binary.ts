import { accessSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BinaryNotFoundError } from './errors.js';
import { packageRequire } from './locate.cjs';

/**
 * The npm platform packages holding the pi-rpc binary (at `bin/pi-rpc`, `bin/pi-rpc.exe` on Windows), by
 * `${process.platform}-${process.arch}`. They are the optional dependencies of the `pi-rpc`
 * npm package, whose launcher finds its binary the same way.
 */
export const PLATFORM_PACKAGES: Readonly<Record<string, string>> = Object.freeze({
  'linux-x64': 'pi-rpc-linux-x64',
  'linux-arm64': 'pi-rpc-linux-arm64',
  'darwin-x64': 'pi-rpc-darwin-x64',
  'darwin-arm64': 'pi-rpc-darwin-arm64',
  'win32-x64': 'pi-rpc-win32-x64',
  'win32-arm64': 'pi-rpc-win32-arm64',
});

/** The binary's file name, in a platform package's bin/ and on $PATH: pi-rpc.exe on Windows. */
export function binaryName(platform: string): string {
  return platform === 'win32' ? 'pi-rpc.exe' : 'pi-rpc';
}

/** Where findBinary looks besides env: the machine, and a module resolver (require.resolve). */
export interface Lookup {
  platform: string;
  arch: string;
  resolve: (id: string) => string;
}

/**
 * Finds the pi-rpc executable: `binaryPath` if given, then `$PI_RPC_BINARY` (or its older name
 * `$PI_RPC_BIN`), then the platform package (`pi-rpc-<os>-<cpu>`, see PLATFORM_PACKAGES)
 * resolved from this package or through an installed `pi-rpc` package, then `pi-rpc` on `$PATH`
 * (the variables read from `env`). Throws BinaryNotFoundError naming what it tried.
 */
export function resolveBinary(binaryPath: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return findBinary(binaryPath, env, { platform: process.platform, arch: process.arch, resolve: packageRequire.resolve });
}

/** resolveBinary with the machine and the module resolver given (for tests). */
export function findBinary(binaryPath: string | undefined, env: NodeJS.ProcessEnv, lookup: Lookup): string {
  if (binaryPath) return binaryPath;
  if (env.PI_RPC_BINARY) return env.PI_RPC_BINARY;
  if (env.PI_RPC_BIN) return env.PI_RPC_BIN;
  const pkg = PLATFORM_PACKAGES[`${lookup.platform}-${lookup.arch}`];
  if (pkg) {
    const found = platformBinary(`${pkg}/bin/${binaryName(lookup.platform)}`, lookup.resolve);
    if (found) return found;
  }
  // Windows spells the variable Path; its list is ;-separated there.
  const delimiter = lookup.platform === 'win32' ? ';' : path.delimiter;
  const dirs = (env.PATH ?? env.Path ?? '').split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, binaryName(lookup.platform));
    if (isExecutable(candidate)) return candidate;
  }
  const tried = pkg ? `the npm package ${pkg} is not installed` : `there is no npm package for ${lookup.platform}-${lookup.arch}`;
  throw new BinaryNotFoundError(
    `pi-rpc binary not found: pass options.binaryPath, set $PI_RPC_BINARY, install the pi-rpc npm package ` +
      `or put pi-rpc on $PATH (${tried}; ` +
      (dirs.length ? `searched $PATH: ${dirs.join(delimiter)})` : '$PATH is empty)'),
  );
}

// platformBinary resolves spec (`<pkg>/bin/pi-rpc`, or pi-rpc.exe) from here, where npm hoists
// the launcher's optional dependencies, else from the `pi-rpc` launcher package, under which a
// strict layout (pnpm) or a version conflict nests them. undefined when neither resolves.
function platformBinary(spec: string, resolve: (id: string) => string): string | undefined {
  const attempt = (fn: () => string): string | undefined => {
    try {
      return fn();
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === 'MODULE_NOT_FOUND') return undefined;
      throw err;
    }
  };
  return (
    attempt(() => resolve(spec)) ??
    attempt(() => createRequire(resolve('pi-rpc/package.json')).resolve(spec))
  );
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
