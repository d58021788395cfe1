#!/usr/bin/env node
// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with .d.ts, from src/.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
for (const config of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, config)], { stdio: 'inherit' });
}
// dist/cjs holds CommonJS although the package is "type": "module".
writeFileSync(path.join(root, 'dist', 'cjs', 'package.json'), '{"type":"commonjs"}\n');
