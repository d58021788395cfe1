// abort, AbortSignal cancellation ($/cancelRequest), request timeouts, server-side timeouts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestTimeoutError, RpcError } from '@pi-rpc/client';
import { record, startFaux } from './helpers.mjs';

const hanging = {
  responses: [{ content: [{ type: 'text', deltas: ['one ', 'two ', 'three ', 'four'] }], hangAfter: 2 }],
};

test('abort ends the run: agent_end, then agent_settled {aborted:true}', async (t) => {
  const { client } = startFaux(t, hanging);
  const events = record(client);
  await client.initialize();
  const second = client.once('message_update', (e) => e.assistantMessageEvent.type === 'text_delta' && e.assistantMessageEvent.delta === 'two ');
  const { inputId } = await client.prompt({ message: 'go' });
  await second;
  const settledEvent = client.once('agent_settled');
  assert.deepEqual(await client.abort(), { aborted: true });
  const settled = await settledEvent;
  assert.equal(settled.aborted, true);
  assert.deepEqual(settled.inputs, [{ inputId, outcome: 'aborted' }]);
  const types = events.map((e) => e.type);
  assert.ok(types.lastIndexOf('agent_end') < types.indexOf('agent_settled'));
  const end = events.filter((e) => e.type === 'message_end').at(-1);
  assert.equal(end.message.stopReason, 'aborted');
  // Idle now: abort answers false and nothing is written.
  assert.deepEqual(await client.abort(), { aborted: false });
  assert.equal((await client.waitSettled({ inputId })).aborted, true);
});

test('an AbortSignal cancels a pending call with $/cancelRequest', async (t) => {
  const sent = [];
  const { client } = startFaux(t, hanging, { onMessage: (m, d) => d === 'sent' && sent.push(m) });
  await client.initialize();
  await client.prompt({ message: 'go' });
  const controller = new AbortController();
  const waiting = client.waitSettled({}, { signal: controller.signal });
  controller.abort();
  const err = await waiting.catch((e) => e);
  assert.equal(err.name, 'AbortError');
  const wait = sent.find((m) => m.method === 'waitSettled');
  // The cancel notification is written asynchronously; getState's answer comes after it.
  await client.getState();
  assert.ok(sent.some((m) => m.method === '$/cancelRequest' && m.params.id === wait.id), 'sent $/cancelRequest');
  // An already aborted signal sends nothing.
  const before = sent.length;
  await assert.rejects(client.getState({}, { signal: AbortSignal.abort() }), { name: 'AbortError' });
  assert.equal(sent.length, before);
  await client.abort();
});

test('a request timeout rejects with RequestTimeoutError and cancels the request', async (t) => {
  const { client } = startFaux(t, hanging);
  await client.initialize();
  await client.prompt({ message: 'go' });
  const err = await client.waitSettled({}, { timeoutMs: 100 }).catch((e) => e);
  assert.ok(err instanceof RequestTimeoutError);
  assert.equal(err.method, 'waitSettled');
  // The server's own timeout answers -32015 with data {busy, lastSeq}.
  const serverTimeout = await client.waitSettled({ timeoutMs: 50 }).catch((e) => e);
  assert.ok(serverTimeout instanceof RpcError);
  assert.equal(serverTimeout.code, -32015);
  assert.equal(serverTimeout.kind, 'timeout');
  assert.equal(serverTimeout.data.busy, true);
  await client.abort();
  const notFound = await client.waitSettled({ inputId: 'in99' }).catch((e) => e);
  assert.equal(notFound.code, -32012);
  assert.equal(notFound.kind, 'notFound');
});
