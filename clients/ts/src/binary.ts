import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { BinaryNotFoundError } from './errors.js';

/**
 * Finds the pi-rpc executable: `binaryPath` if given, then `$PI_RPC_BIN`, then `pi-rpc` on
 * `$PATH` (both read from `env`). Throws BinaryNotFoundError naming what it tried.
 */
export function resolveBinary(binaryPath: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (binaryPath) return binaryPath;
  if (env.PI_RPC_BIN) return env.PI_RPC_BIN;
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, 'pi-rpc');
    if (isExecutable(candidate)) return candidate;
  }
  throw new BinaryNotFoundError(
    'pi-rpc binary not found: pass options.binaryPath, set $PI_RPC_BIN, or put pi-rpc on $PATH' +
      (dirs.length ? ` (searched ${dirs.join(path.delimiter)})` : ' ($PATH is empty)'),
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
