// Permissions: --approval ask, the client declares capabilities.permissions through its
// handler, answers permission/request with allow, deny and allowAlways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { record, startFaux } from './helpers.mjs';

test('permission allow and deny through the handler', async (t) => {
  const asked = [];
  const { client, dir, wire } = startFaux(
    t,
    {
      responses: [
        { content: [{ type: 'toolCall', id: 'w1', name: 'write', arguments: { path: 'allowed.txt', content: 'yes\n' } }] },
        { content: [{ type: 'toolCall', id: 'w2', name: 'write', arguments: { path: 'denied.txt', content: 'no\n' } }] },
        { content: [{ type: 'text', text: 'One written, one refused.' }] },
      ],
    },
    {
      args: ['--approval', 'ask'],
      onPermission: (request) => {
        asked.push(request);
        return request.args.path === 'allowed.txt'
          ? { decision: 'allow' }
          : { decision: 'deny', reason: 'not that file' };
      },
    },
  );
  const events = record(client);
  await client.initialize();
  const sentInit = wire.transcript.find((l) => l.includes('"method":"initialize"'));
  assert.match(sentInit, /"capabilities":\{"permissions":true\}/);
  const { inputId } = await client.prompt({ message: 'write two files' });
  const settled = await client.waitSettled({ inputId });
  assert.equal(settled.inputs[0].outcome, 'completed');

  assert.deepEqual(asked.map((r) => [r.toolName, r.toolCallId]), [['write', 'w1'], ['write', 'w2']]);
  assert.equal(readFileSync(path.join(dir, 'allowed.txt'), 'utf8'), 'yes\n');
  assert.equal(existsSync(path.join(dir, 'denied.txt')), false);

  const resolved = events.filter((e) => e.type === 'permission_resolved');
  assert.deepEqual(
    resolved.map((e) => [e.toolCallId, e.decision, e.by, e.reason]),
    [['w1', 'allow', 'client', undefined], ['w2', 'deny', 'client', 'not that file']],
  );
  const ends = events.filter((e) => e.type === 'tool_execution_end');
  assert.deepEqual(ends.map((e) => e.isError), [false, true]);
  assert.match(ends[1].result.content[0].text, /not that file/);
  // Order on the wire: tool_execution_start, permission_requested, the request, our answer,
  // permission_resolved.
  const w2 = wire.transcript.filter((l) => l.includes('"w2"') || l.includes('permission/request'));
  const idx = (re) => wire.transcript.findIndex((l) => re.test(l));
  assert.ok(idx(/"type":"tool_execution_start".*"w1"/) < idx(/"type":"permission_requested"/), w2.join('\n'));
  assert.ok(idx(/"type":"permission_requested"/) < idx(/"method":"permission\/request"/));
  assert.ok(idx(/"method":"permission\/request"/) < idx(/"type":"permission_resolved"/));
});

test('allowAlways covers the tool; a throwing handler denies with its message', async (t) => {
  let calls = 0;
  const { client, dir } = startFaux(
    t,
    {
      responses: [
        { content: [{ type: 'toolCall', name: 'write', arguments: { path: 'a.txt', content: 'a' } }] },
        { content: [{ type: 'toolCall', name: 'write', arguments: { path: 'b.txt', content: 'b' } }] },
        { content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'echo hi > c.txt' } }] },
        { content: [{ type: 'text', text: 'done' }] },
      ],
    },
    {
      args: ['--approval', 'ask'],
      onPermission: (request) => {
        calls++;
        if (request.toolName === 'bash') throw new Error('bash is off limits');
        return { decision: 'allowAlways' };
      },
    },
  );
  const events = record(client);
  await client.initialize();
  const { inputId } = await client.prompt({ message: 'go' });
  await client.waitSettled({ inputId });
  assert.equal(calls, 2, 'asked for the first write and for bash only');
  assert.ok(existsSync(path.join(dir, 'a.txt')) && existsSync(path.join(dir, 'b.txt')));
  assert.equal(existsSync(path.join(dir, 'c.txt')), false);
  const resolved = events.filter((e) => e.type === 'permission_resolved');
  assert.deepEqual(resolved.map((e) => [e.decision, e.by]), [['allowAlways', 'client'], ['allow', 'policy'], ['deny', 'client']]);
  assert.match(resolved[2].reason, /bash is off limits/);
});

test('abort while a permission request is pending withdraws it', async (t) => {
  let withdrawn;
  const { client } = startFaux(
    t,
    { responses: [{ content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'echo hi' } }] }] },
    {
      args: ['--approval', 'ask'],
      onPermission: (_request, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            withdrawn = signal.reason;
            resolve({ decision: 'allow' });
          });
        }),
    },
  );
  const events = record(client);
  await client.initialize();
  const requested = client.once('permission_requested');
  await client.prompt({ message: 'go' });
  await requested;
  const settled = client.once('agent_settled');
  await client.abort();
  assert.equal((await settled).aborted, true);
  const resolved = events.find((e) => e.type === 'permission_resolved');
  assert.equal(resolved.by, 'abort');
  // $/cancelRequest reaches the handler's signal.
  await client.getState();
  assert.ok(withdrawn, 'the handler saw the withdrawal');
});
