// A sketch of hosting pi-rpc in a VS Code extension. It type-checks against a small stand-in
// for the vscode API (vscode-shim.d.ts); a real extension uses @types/vscode and bundles this
// package (CommonJS or ESM) with esbuild or webpack like any other dependency.
//
// Bundling the binary: `make release` builds dist/pi-rpc-{linux,darwin}-{amd64,arm64} and
// dist/SHA256SUMS. Ship the four binaries in the .vsix (or one per platform-specific .vsix,
// `vsce package --target linux-x64` ...), keep the execute bit, and pick the one for this
// machine at activation. Let users override it with a setting (useful for development builds)
// and fall back to $PI_RPC_BIN / PATH, which spawn() does on its own when binaryPath is unset.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { spawn, RpcError, type PiRpcClient, type PermissionHandler } from '@pi-rpc/client';

let client: PiRpcClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('pi-rpc');
  const reply = vscode.window.createOutputChannel('pi-rpc: agent');

  const arch = process.arch === 'x64' ? 'amd64' : process.arch; // Go's names
  const bundled = context.asAbsolutePath(path.join('bin', `pi-rpc-${process.platform}-${arch}`));
  const configured = vscode.workspace.getConfiguration('piRpc').get<string>('binaryPath');
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;

  // Approvals go to a modal dialog. The server withdraws a request on abort; a real
  // extension would close its UI then (signal), the modal here simply stays until answered.
  const onPermission: PermissionHandler = async (request) => {
    const args = request.args as Record<string, unknown>;
    const what = request.toolName === 'bash' ? `run \`${String(args.command)}\`` : `${request.toolName} ${String(args.path)}`;
    const choice = await vscode.window.showWarningMessage(`The agent wants to ${what}.`, { modal: true }, 'Allow', 'Always allow', 'Deny');
    if (choice === 'Allow') return { decision: 'allow' };
    if (choice === 'Always allow') return { decision: 'allowAlways' };
    return { decision: 'deny', reason: 'The user declined in VS Code.' };
  };

  const start = (): PiRpcClient => {
    const c = spawn({
      binaryPath: configured || bundled,
      cwd,
      // Keys come from the extension's secret storage or settings, never from the workspace.
      env: {},
      args: ['--log-level', 'info'],
      onPermission,
      onStderr: (line) => log.appendLine(line),
    });
    c.on('message_update', ({ assistantMessageEvent: e }) => {
      if (e.type === 'text_delta') reply.append(e.delta);
    });
    c.on('tool_execution_start', (e) => reply.appendLine(`\n[${e.toolName}] ${JSON.stringify(e.args)}`));
    c.on('agent_settled', (e) => {
      if (e.error) void vscode.window.showErrorMessage(`pi-rpc: ${e.error.message}`);
    });
    // Crashes: the exit code and the stderr tail go to the log; the next command restarts it.
    void c.exited.then((info) => {
      if (client === c) client = undefined;
      if (info.exitCode !== 0) log.appendLine(`pi-rpc exited: ${info.exitCode ?? info.signal}\n${info.stderrTail.join('\n')}`);
    });
    return c;
  };

  const ensure = async (): Promise<PiRpcClient> => {
    if (client) return client;
    client = start();
    const init = await client.initialize({ clientInfo: { name: 'my-extension', version: '1.0.0' } });
    for (const p of init.problems) void vscode.window.showWarningMessage(`pi-rpc: ${p.message}`);
    return client;
  };

  context.subscriptions.push(
    log,
    reply,
    vscode.commands.registerCommand('piRpc.ask', async () => {
      const message = await vscode.window.showInputBox({ prompt: 'Ask the agent' });
      if (!message) return;
      const c = await ensure();
      reply.show(true);
      try {
        // Busy? Queue it as a follow-up rather than failing with -32010.
        await c.prompt({ message, whenBusy: 'followUp' });
      } catch (err) {
        if (err instanceof RpcError) void vscode.window.showErrorMessage(err.message);
        else throw err;
      }
    }),
    vscode.commands.registerCommand('piRpc.steer', async () => {
      const message = await vscode.window.showInputBox({ prompt: 'Steer the agent' });
      if (message && client) await client.steer({ message });
    }),
    vscode.commands.registerCommand('piRpc.abort', async () => {
      await client?.abort();
    }),
    { dispose: () => void client?.dispose() },
  );
}

// VS Code waits for the returned promise (a few seconds) on shutdown: dispose() sends shutdown
// (which aborts and persists the session), exit, and kills the process after the grace period.
export async function deactivate(): Promise<void> {
  await client?.dispose();
}
