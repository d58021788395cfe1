// A whole conversation through the CommonJS build, as a CommonJS VS Code extension would run it.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { spawn, RpcError } = require('@pi-rpc/client');

test('CommonJS: prompt, stream, settle, dispose', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pi-rpc-cjs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'faux.json');
  writeFileSync(script, JSON.stringify({ responses: [{ content: [{ type: 'text', text: 'Hello from CommonJS.' }] }] }));
  const bin = process.env.PI_RPC_BIN || path.resolve(__dirname, '../../../bin/pi-rpc');
  const { WireValidator } = await import('./helpers.mjs');
  const wire = new WireValidator();
  const client = spawn({
    binaryPath: bin,
    cwd: dir,
    args: ['--provider', 'faux', '--faux-script', script, '--no-session'],
    onMessage: (m, d) => wire.check(m, d),
  });
  t.after(() => client.dispose());
  let text = '';
  client.on('message_update', (e) => {
    if (e.assistantMessageEvent.type === 'text_delta') text += e.assistantMessageEvent.delta;
  });
  await client.initialize();
  const { inputId } = await client.prompt({ message: 'hi' });
  const settled = await client.waitSettled({ inputId });
  assert.equal(settled.inputs[0].outcome, 'completed');
  assert.equal(text, 'Hello from CommonJS.');
  const err = await client.continue().catch((e) => e);
  assert.ok(err instanceof RpcError);
  assert.equal(err.kind, 'invalidState');
  assert.equal((await client.dispose()).exitCode, 0);
  assert.deepEqual(wire.problems, []);
});
