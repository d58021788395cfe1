'use strict';
// Finds the native pi-rpc binary: $PI_RPC_BINARY, else the platform package for this machine
// (pi-rpc-<os>-<cpu>, one of the launcher's optionalDependencies; npm installs only the one
// whose os and cpu fields match). cli.js runs what it finds; programs that want the path
// themselves call binaryPath().

/** The platform packages, by `${process.platform}-${process.arch}`. */
const PLATFORM_PACKAGES = Object.freeze({
  'linux-x64': 'pi-rpc-linux-x64',
  'linux-arm64': 'pi-rpc-linux-arm64',
  'darwin-x64': 'pi-rpc-darwin-x64',
  'darwin-arm64': 'pi-rpc-darwin-arm64',
  'win32-x64': 'pi-rpc-win32-x64',
  'win32-arm64': 'pi-rpc-win32-arm64',
});

/** The binary's file name in a platform package's bin/: pi-rpc.exe on Windows, else pi-rpc. */
function binaryName(platform = process.platform) {
  return platform === 'win32' ? 'pi-rpc.exe' : 'pi-rpc';
}

/** No binary was found; the message names what was looked for and how to fix it. */
class BinaryNotFoundError extends Error {
  constructor(message) {
    super(message);
    this.name = 'BinaryNotFoundError';
  }
}

/** The platform package's name for a platform and architecture, or undefined if there is none. */
function platformPackage(platform = process.platform, arch = process.arch) {
  return PLATFORM_PACKAGES[`${platform}-${arch}`];
}

/**
 * The path of the pi-rpc binary to run. `options` (all optional, for tests and embedders): env
 * (default process.env), platform and arch (default this process's), resolve (a
 * require.resolve; default this package's, so the platform package is looked up from where the
 * launcher is installed).
 */
function binaryPath(options = {}) {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const resolve = options.resolve ?? require.resolve;
  if (env.PI_RPC_BINARY) return env.PI_RPC_BINARY;
  const pkg = platformPackage(platform, arch);
  if (!pkg) {
    throw new BinaryNotFoundError(
      `no pi-rpc binary for ${platform}-${arch}: the platform packages are ` +
        `${Object.values(PLATFORM_PACKAGES).join(', ')}; build pi-rpc for this machine and set PI_RPC_BINARY to it`,
    );
  }
  const file = `${pkg}/bin/${binaryName(platform)}`;
  try {
    return resolve(file);
  } catch (err) {
    if (err && err.code !== 'MODULE_NOT_FOUND') throw err;
    throw new BinaryNotFoundError(
      `no pi-rpc binary for ${platform}-${arch}: PI_RPC_BINARY is not set and the platform package ` +
        `${pkg} is not installed (${file} does not resolve from ${__dirname}). ` +
        `It is an optional dependency of pi-rpc, left out by npm install --omit=optional (or --no-optional): ` +
        `reinstall without that, or set PI_RPC_BINARY to a pi-rpc binary`,
    );
  }
}

module.exports = { binaryPath, binaryName, platformPackage, PLATFORM_PACKAGES, BinaryNotFoundError };
