// A tool-loop conversation, against faux and against cmd/mock-openai; steer and follow-up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EVENT_TYPES, PROTOCOL_VERSION } from '@pi-rpc/client';
import { record, start, startFaux, startMockOpenAI, streamedText, tempDir, schema } from './helpers.mjs';

test('generated constants match the schema', () => {
  assert.deepEqual([...EVENT_TYPES], schema.eventTypes);
  assert.equal(PROTOCOL_VERSION, schema.protocolVersion);
});

test('tool loop on faux: streamed text, tool execution, settled, async iterator', async (t) => {
  const { client, dir } = startFaux(t, {
    chunkSize: 3,
    responses: [
      { content: [{ type: 'text', text: 'Let me read it.' }, { type: 'toolCall', name: 'read', arguments: { path: 'notes.txt' } }] },
      { content: [{ type: 'text', text: 'The note says hello.' }] },
    ],
  });
  writeFileSync(path.join(dir, 'notes.txt'), 'hello from the note\n');
  const init = await client.initialize();
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.serverInfo.name, 'pi-rpc');

  const seen = [];
  const iterate = (async () => {
    for await (const event of client.events()) {
      seen.push(event);
      if (event.type === 'agent_settled') break;
    }
  })();
  const toolEnds = [];
  client.on('tool_execution_end', (e) => toolEnds.push(e));

  const { inputId, disposition } = await client.prompt({ message: 'What does notes.txt say?' });
  assert.equal(disposition, 'started');
  const settled = await client.waitSettled({ inputId });
  await iterate;

  assert.deepEqual(settled.inputs, [{ inputId, outcome: 'completed' }]);
  assert.equal(settled.aborted, false);
  assert.equal(streamedText(seen), 'Let me read it.The note says hello.');
  assert.equal(toolEnds.length, 1);
  assert.equal(toolEnds[0].toolName, 'read');
  assert.equal(toolEnds[0].isError, false);
  assert.match(toolEnds[0].result.content[0].text, /hello from the note/);
  const types = seen.map((e) => e.type);
  assert.equal(types[0], 'agent_start');
  assert.ok(types.indexOf('tool_execution_start') < types.indexOf('tool_execution_end'));
  assert.equal(types.at(-1), 'agent_settled');
  assert.equal(seen.at(-1).lastSeq, client.lastSeq);
  const userStart = seen.find((e) => e.type === 'message_start' && e.message.role === 'user');
  assert.equal(userStart.inputId, inputId);

  const { messages } = await client.getMessages();
  assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'toolResult', 'assistant']);
  const state = await client.getState();
  assert.equal(state.settled, true);
  assert.equal(state.lastSeq, client.lastSeq);
});

test('tool loop against cmd/mock-openai', async (t) => {
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'data.txt'), 'forty-two\n');
  const url = await startMockOpenAI(t, dir, {
    responses: [
      { text: 'Reading.', toolCalls: [{ id: 'call_a', name: 'read', arguments: JSON.stringify({ path: 'data.txt' }) }] },
      { reasoning: 'It is a number.', text: 'The file holds forty-two.', usage: { prompt_tokens: 50, completion_tokens: 7 } },
    ],
  });
  const { client } = start(t, {
    cwd: dir,
    args: ['--provider', 'openai', '--base-url', url, '--model', 'gpt-4.1'],
    env: { OPENAI_API_KEY: 'sk-test' },
  });
  const events = record(client);
  const init = await client.initialize();
  assert.deepEqual(init.problems, []);
  const { inputId } = await client.prompt({ message: 'What is in data.txt?' });
  const settled = await client.waitSettled({ inputId });
  assert.deepEqual(settled.inputs, [{ inputId, outcome: 'completed' }]);
  assert.equal(streamedText(events), 'Reading.The file holds forty-two.');
  const end = events.find((e) => e.type === 'tool_execution_end');
  assert.equal(end.toolCallId, 'call_a');
  assert.match(end.result.content[0].text, /forty-two/);
  assert.ok(events.some((e) => e.type === 'message_update' && e.assistantMessageEvent.type === 'thinking_delta'));
  const last = events.filter((e) => e.type === 'message_end').at(-1);
  assert.equal(last.message.stopReason, 'stop');
  assert.equal(last.message.usage.output, 7);
});

test('steer and follow-up while busy join the busy period', async (t) => {
  const { client } = startFaux(t, {
    responses: [
      { content: [{ type: 'text', deltas: ['Working', ' on', ' it', ' slowly', ' now', '.'] }], delayMs: 60 },
      { content: [{ type: 'text', text: 'Steered.' }] },
      { content: [{ type: 'text', text: 'Followed up.' }] },
    ],
  });
  const events = record(client);
  await client.initialize();
  const first = client.once('message_update', (e) => e.assistantMessageEvent.type === 'text_delta');
  const prompt = await client.prompt({ message: 'Start' });
  await first;
  const steer = await client.steer({ message: 'Also mention the steer' });
  const follow = await client.followUp({ message: 'And then this' });
  assert.equal(steer.disposition, 'queued');
  assert.equal(follow.disposition, 'queued');
  // Busy without whenBusy: -32010 with data.suggest.
  const busy = await client.prompt({ message: 'refused' }).catch((e) => e);
  assert.equal(busy.name, 'RpcError');
  assert.equal(busy.code, -32010);
  assert.equal(busy.kind, 'busy');
  assert.deepEqual([...busy.data.suggest].sort(), ['followUp', 'steer']);

  const settled = await client.waitSettled({ inputId: follow.inputId });
  assert.deepEqual(
    settled.inputs.map((i) => i.inputId).sort(),
    [prompt.inputId, steer.inputId, follow.inputId].sort(),
  );
  assert.ok(settled.inputs.every((i) => i.outcome === 'completed'));
  const users = events.filter((e) => e.type === 'message_start' && e.message.role === 'user').map((e) => e.inputId);
  assert.deepEqual(users, [prompt.inputId, steer.inputId, follow.inputId]);
  assert.ok(events.some((e) => e.type === 'queue_update' && e.steering.some((q) => q.inputId === steer.inputId)));
  assert.equal(events.filter((e) => e.type === 'agent_settled').length, 1);
  assert.equal(streamedText(events), 'Working on it slowly now.Steered.Followed up.');
});

test('typed methods cover every request method of the schema', async () => {
  const { PiRpcClient } = await import('@pi-rpc/client');
  const requests = Object.keys(schema.methods).filter((m) => !schema.methods[m].notification);
  for (const m of requests) assert.equal(typeof PiRpcClient.prototype[m], 'function', m);
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.match(readme, /--framing lsp/);
});

test('the wire validator rejects messages that break the schema', async () => {
  const { WireValidator } = await import('./helpers.mjs');
  const wire = new WireValidator();
  wire.check({ jsonrpc: '2.0', method: 'event', params: { type: 'turn_start', seq: 1, runId: 'r1' } }, 'received');
  assert.deepEqual(wire.problems, []);
  wire.check({ jsonrpc: '2.0', method: 'event', params: { type: 'agent_settled', seq: 2 } }, 'received');
  wire.check({ jsonrpc: '2.0', method: 'event', params: { type: 'turn_start', seq: 4, runId: 'r1' } }, 'received');
  wire.check({ jsonrpc: '2.0', method: 'event', params: { type: 'no_such_event', seq: 5 } }, 'received');
  wire.check({ jsonrpc: '2.0', id: 0, method: 'prompt', params: { message: 'x' } }, 'sent');
  wire.check({ jsonrpc: '2.0', id: 0, result: { inputId: 'in1' } }, 'received');
  wire.check({ jsonrpc: '2.0', id: 'p1', method: 'permission/request', params: { requestId: 'p1' } }, 'received');
  assert.equal(wire.problems.length, 5, wire.problems.join('\n'));
});
