// A terminal chat with pi-rpc: streams the reply, shows thinking, tool calls and their
// results, and asks you to approve writes, edits and bash commands.
//
//   npm run build && npx tsc -p examples && node examples/dist/chat.js [pi-rpc flags...]
//   e.g.  node examples/dist/chat.js --provider openai --model gpt-4.1
//         node examples/dist/chat.js --provider faux --faux-script script.json
//
// While the agent works, a line you type steers it (delivered after the current tool batch);
// start it with /follow to queue a follow-up instead. Ctrl-C aborts a busy agent, and quits
// when idle. /quit quits, and so does the end of input (Ctrl-D, or the end of a piped file:
// `printf 'hi\n' | node examples/dist/chat.js ...` answers, then exits 0).
import { createInterface } from 'node:readline';
import {
  ProcessExitedError,
  RpcError,
  spawn,
  type PermissionHandler,
  type PermissionRequestResult,
} from '@pi-rpc/client';

const dim = (s: string) => `\x1b[2m${s}\x1b[22m`;
const cyan = (s: string) => `\x1b[36m${s}\x1b[39m`;
const red = (s: string) => `\x1b[31m${s}\x1b[39m`;

const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: '> ' });
let busy = false;
// inputEnded: stdin is over, so quit once the agent is idle and deny what would need asking.
let inputEnded = false;
let answerApproval: ((line: string) => void) | undefined;

// Approvals: ask on the terminal; the server may withdraw the question (abort).
const onPermission: PermissionHandler = async (request, { signal }) => {
  const args = request.args as Record<string, unknown>;
  const what = request.toolName === 'bash' ? String(args.command) : String(args.path);
  if (inputEnded) return { decision: 'deny', reason: 'Nobody is at the terminal to approve it.' };
  process.stdout.write(`\n${cyan('?')} allow ${request.toolName} ${what}? [y]es, [n]o, [a]lways: `);
  const line = await new Promise<string>((resolve) => {
    answerApproval = resolve;
    signal.addEventListener('abort', () => resolve(''), { once: true });
  });
  answerApproval = undefined;
  const answer: PermissionRequestResult =
    line.startsWith('a') ? { decision: 'allowAlways' }
    : line.startsWith('y') ? { decision: 'allow' }
    : { decision: 'deny', reason: 'The user declined.' };
  return answer;
};

const client = spawn({
  args: process.argv.slice(2),
  onPermission,
  onStderr: process.env.PI_RPC_DEBUG ? (line) => console.error(dim(line)) : undefined,
});

client.on('message_update', ({ assistantMessageEvent: e }) => {
  if (e.type === 'text_delta') process.stdout.write(e.delta);
  else if (e.type === 'thinking_delta') process.stdout.write(dim(e.delta));
  else if (e.type === 'thinking_end' || e.type === 'text_end') process.stdout.write('\n');
});
client.on('tool_execution_start', (e) => {
  console.log(cyan(`⚙ ${e.toolName} ${JSON.stringify(e.args)}`));
});
client.on('tool_execution_end', (e) => {
  const first = e.result.content.find((c) => c.type === 'text');
  const text = first && first.type === 'text' ? first.text.split('\n')[0] : '';
  console.log(e.isError ? red(`✗ ${e.toolName}: ${text}`) : dim(`✓ ${e.toolName}: ${text}`));
});
client.on('permission_resolved', (e) => {
  if (e.by !== 'client') console.log(dim(`(${e.toolCallId}: ${e.decision} by ${e.by})`));
});
client.on('auto_retry_start', (e) => console.log(dim(`retrying (${e.attempt}/${e.maxAttempts}): ${e.errorMessage}`)));
client.on('agent_settled', (e) => {
  busy = false;
  if (e.aborted) console.log(red('(aborted)'));
  if (e.error) console.log(red(`error: ${e.error.message}`));
  if (inputEnded) return void quit();
  rl.prompt();
});

rl.on('line', (raw) => {
  const line = raw.trim();
  if (answerApproval) return answerApproval(line.toLowerCase());
  if (!line) return rl.prompt();
  if (line === '/quit') return void quit();
  void send(line);
});
rl.on('close', () => {
  if (quitting) return;
  inputEnded = true;
  answerApproval?.('');
  if (!busy) void quit();
});
rl.on('SIGINT', () => {
  if (busy) void client.abort();
  else void quit();
});
void client.exited.then((info) => {
  if (!quitting) {
    console.error(red(`\npi-rpc exited (${info.exitCode ?? info.signal})\n${info.stderrTail.join('\n')}`));
    process.exit(1);
  }
});

async function send(line: string): Promise<void> {
  try {
    if (!busy) {
      busy = true;
      await client.prompt({ message: line });
    } else if (line.startsWith('/follow ')) {
      await client.followUp({ message: line.slice(8) });
      console.log(dim('(follow-up queued)'));
    } else {
      await client.steer({ message: line });
      console.log(dim('(steering)'));
    }
  } catch (err) {
    if (err instanceof RpcError) console.log(red(`${err.kind ?? err.code}: ${err.message}`));
    else if (!(err instanceof ProcessExitedError)) throw err;
    busy = false;
    if (inputEnded) return void quit();
    rl.prompt();
  }
}

let quitting = false;
async function quit(): Promise<void> {
  if (quitting) return;
  quitting = true;
  rl.close();
  await client.dispose();
  process.exit(0);
}

// Input may end (and quit dispose the client) before initialize answers.
const init = await client.initialize().catch((err: unknown) => {
  if (quitting) return undefined;
  throw err;
});
if (init && !quitting) {
  for (const p of init.problems) console.log(red(`${p.kind}: ${p.message}`));
  console.log(dim(`pi-rpc ${init.serverInfo.version}, model ${init.model?.id ?? 'none'}. Ctrl-C aborts, /quit quits.`));
  rl.prompt();
}
