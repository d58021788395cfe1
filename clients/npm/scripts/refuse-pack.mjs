#!/usr/bin/env node
// npm runs this as the prepack (and so prepublish) script of clients/npm. Packed from here,
// the launcher would have version 0.0.0-dev and depend on platform packages of that version,
// which do not exist: an install would have no binary. The real tarballs are made by
// scripts/pack.mjs (make release), which packs a staged copy without scripts, so this never
// runs there.
process.stderr.write(
  'npm pack of clients/npm would make a pi-rpc package without its binary (version 0.0.0-dev,\n' +
    'depending on platform packages that do not exist). Build the installable packages with\n' +
    '\n' +
    '    make release\n' +
    '\n' +
    'at the repository root: dist/pi-rpc-<version>.tgz, the launcher, and\n' +
    'dist/pi-rpc-<os>-<cpu>-<version>.tgz, the platform packages, all at one version; install\n' +
    'the launcher with its platform package (npm install dist/pi-rpc-<version>.tgz\n' +
    'dist/pi-rpc-linux-x64-<version>.tgz). For this machine only: make npm-host (into bin/npm/).\n',
);
process.exit(1);
