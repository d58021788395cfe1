// packageRequire is a require bound to this file, so that module lookups (the platform
// package of the pi-rpc binary, see binary.ts) start from where @pi-rpc/client is installed.
// It is a CommonJS file (.cts → .cjs) in both builds: the ES module build has no `require`
// of its own, and the CommonJS build cannot contain `import.meta`.
export const packageRequire: NodeJS.Require = require;
