// Test helpers: find the binaries built by `make build`, write faux scripts, start
// mock-openai, and spawn clients whose every received message is validated against
// protocol/schema.json (ajv, draft 2020-12).
import { spawn as spawnChild } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { spawn } from '@pi-rpc/client';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..', '..');
export const schema = JSON.parse(readFileSync(path.join(repoRoot, 'protocol', 'schema.json'), 'utf8'));

function findBin(envName, name) {
  const file = process.env[envName] || path.join(repoRoot, 'bin', name);
  if (!existsSync(file)) throw new Error(`${file} not found: run make build (or set $${envName})`);
  return file;
}
export const piRpcBin = findBin('PI_RPC_BIN', 'pi-rpc');
export const mockOpenAIBin = () => findBin('MOCK_OPENAI_BIN', 'mock-openai');

// ---- schema validation --------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(schema);
const ref = (r) => {
  const v = ajv.getSchema(schema.$id + r.$ref);
  if (!v) throw new Error(`no schema for ${r.$ref}`);
  return v;
};
const validators = {
  event: ref({ $ref: '#/$defs/Event' }),
  errorData: ref({ $ref: '#/$defs/ErrorData' }),
};
const resultOf = (method) => (schema.methods[method]?.result ? ref(schema.methods[method].result) : undefined);
const paramsOf = (table, method) => (table[method]?.params ? ref(table[method].params) : undefined);

/**
 * Validates JSON-RPC messages of one connection against the schema. `check(message,
 * direction)` records problems; `problems` lists them.
 */
export class WireValidator {
  problems = [];
  sent = new Map(); // id -> method of our requests
  transcript = [];
  lastSeq = 0;

  check(message, direction) {
    this.transcript.push(`${direction === 'sent' ? '->' : '<-'} ${JSON.stringify(message)}`);
    const fail = (what, errors) =>
      this.problems.push(`${direction} ${what}: ${ajv.errorsText(errors)}\n  ${JSON.stringify(message).slice(0, 2000)}`);
    if (message.jsonrpc !== '2.0') fail('envelope', [{ message: 'jsonrpc is not "2.0"' }]);
    if (direction === 'sent') {
      if ('method' in message && 'id' in message) this.sent.set(message.id, message.method);
      const v = 'method' in message ? paramsOf(schema.methods, message.method) : undefined;
      if (v && message.params !== undefined && !v(message.params)) fail(`params of ${message.method}`, v.errors);
      return;
    }
    if ('method' in message) {
      if (message.method === 'event') {
        if (!validators.event(message.params)) fail(`event ${message.params?.type}`, validators.event.errors);
        const seq = message.params?.seq;
        if (seq !== this.lastSeq + 1) this.problems.push(`event seq ${seq} after ${this.lastSeq}`);
        this.lastSeq = seq;
        return;
      }
      const table = 'id' in message ? schema.serverRequests : schema.serverNotifications;
      const v = paramsOf(table, message.method);
      if (!v) return this.problems.push(`unknown server ${'id' in message ? 'request' : 'notification'} ${message.method}`);
      if (!v(message.params)) fail(`params of ${message.method}`, v.errors);
      return;
    }
    // A response to one of our requests.
    const method = this.sent.get(message.id);
    if (method === undefined) return this.problems.push(`response to unknown id ${message.id}`);
    if ('error' in message) {
      const { code, data } = message.error;
      if (typeof code !== 'number' || typeof message.error.message !== 'string') fail('error', [{ message: 'bad error object' }]);
      if (code >= -32015 && code <= -32010 && !validators.errorData(data)) fail(`error data of ${method}`, validators.errorData.errors);
      return;
    }
    const v = resultOf(method);
    if (v && !v(message.result)) fail(`result of ${method}`, v.errors);
  }
}

// ---- files and processes ------------------------------------------------------------------

/** A temporary directory removed after the test. */
export function tempDir(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pi-rpc-ts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a faux script (see llm/faux/doc.go) and returns its path. */
export function fauxScript(dir, script) {
  const file = path.join(dir, 'faux.json');
  writeFileSync(file, JSON.stringify(script));
  return file;
}

/**
 * Spawns pi-rpc with a validating tap; after the test it disposes the client and asserts that
 * every received message matched the schema. Returns the client and its validator.
 */
export function start(t, { args = [], cwd, onMessage, ...options } = {}) {
  const wire = new WireValidator();
  const client = spawn({
    binaryPath: piRpcBin,
    cwd,
    args: args.includes('--session-dir') ? args : ['--no-session', ...args],
    onMessage: (m, d) => {
      wire.check(m, d);
      onMessage?.(m, d);
    },
    disposeGraceMs: 3000,
    ...options,
  });
  t.after(async () => {
    await client.dispose();
    if (wire.problems.length) {
      throw new Error(`messages not matching protocol/schema.json:\n${wire.problems.join('\n')}\ntranscript:\n${wire.transcript.slice(-40).join('\n')}`);
    }
  });
  return { client, wire };
}

/** Spawns pi-rpc on a faux script in a fresh directory. */
export function startFaux(t, script, { args = [], ...options } = {}) {
  const dir = tempDir(t);
  const file = fauxScript(dir, script);
  return { dir, ...start(t, { cwd: dir, args: ['--provider', 'faux', '--faux-script', file, ...args], ...options }) };
}

/** Starts cmd/mock-openai on a script and resolves with its base URL; stopped after the test. */
export async function startMockOpenAI(t, dir, script) {
  const file = path.join(dir, 'mock.json');
  writeFileSync(file, JSON.stringify(script));
  const child = spawnChild(mockOpenAIBin(), ['--script', file], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => {
    child.stdin.end();
    child.kill('SIGTERM');
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`mock-openai exited with ${code}`)));
  });
  return url;
}

/** Collects the text of the streamed assistant reply from message_update events. */
export function streamedText(events) {
  return events
    .filter((e) => e.type === 'message_update' && e.assistantMessageEvent.type === 'text_delta')
    .map((e) => e.assistantMessageEvent.delta)
    .join('');
}

/** Records every event of a client, from now on. */
export function record(client) {
  const events = [];
  client.on('*', (e) => events.push(e));
  return events;
}
