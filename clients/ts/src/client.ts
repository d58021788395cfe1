import { spawn as spawnProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  CancellationTokenSource,
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type CancellationToken,
  type Message as JsonRpcMessage,
  type MessageConnection,
  type MessageReader,
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import { resolveBinary } from './binary.js';
import {
  PiRpcError,
  ProcessExitedError,
  RequestTimeoutError,
  RpcError,
  type ExitInfo,
} from './errors.js';
import { ProtocolMethods, type CallOptions } from './generated/methods.js';
import type {
  Event,
  EventOf,
  EventType,
  InitializeParams,
  InitializeResult,
  PermissionRequestParams,
  PermissionRequestResult,
  RequestMap,
} from './generated/protocol.js';

/** The package version, sent as clientInfo.version by initialize. */
export const CLIENT_VERSION = '0.1.0';

/** Answers one permission/request. `signal` aborts when the server withdraws the request. */
export type PermissionHandler = (
  request: PermissionRequestParams,
  context: { signal: AbortSignal },
) => PermissionRequestResult | Promise<PermissionRequestResult>;

/** Something that can be undone, such as an event subscription. */
export interface Disposable {
  dispose(): void;
}

/** spawn's options. */
export interface SpawnOptions {
  /**
   * The pi-rpc executable. Default: `$PI_RPC_BINARY` (or `$PI_RPC_BIN`), then the platform
   * package of the `pi-rpc` npm package, then `pi-rpc` on `$PATH` (see resolveBinary).
   */
  binaryPath?: string;
  /** Extra command-line flags (see docs/configuration.md). `--framing lsp` is always added. */
  args?: string[];
  /** Working directory of the process (pi-rpc's --cwd defaults to it). */
  cwd?: string;
  /** Environment variables, merged over process.env (a value of undefined removes one). */
  env?: NodeJS.ProcessEnv;
  /**
   * Default timeout of a request in milliseconds (default 60000; 0 for none). It never applies
   * to waitSettled, compact and bash, which answer when their work is done; give those a
   * per-call timeoutMs if you want one.
   */
  requestTimeoutMs?: number;
  /**
   * Answers the server's permission/request (approval mode ask). When set, initialize declares
   * `capabilities.permissions: true` unless its params say otherwise. Without a handler every
   * request is denied.
   */
  onPermission?: PermissionHandler;
  /** Receives each line pi-rpc writes to stderr (its log). */
  onStderr?: (line: string) => void;
  /** How many stderr lines to keep for ProcessExitedError (default 50). */
  stderrLines?: number;
  /** Sees every JSON-RPC message read from or written to pi-rpc, for tracing and tests. */
  onMessage?: (message: JsonRpcMessage, direction: 'received' | 'sent') => void;
  /** Called when an event or exit handler throws (default: console.error). */
  onHandlerError?: (error: unknown) => void;
  /** How long dispose() waits for each step (shutdown, exit, SIGTERM) before the next (default 2000 ms). */
  disposeGraceMs?: number;
}

/** Options of events(). */
export interface EventStreamOptions {
  /** Only these event types. */
  types?: EventType[];
  /** Ends the iteration. */
  signal?: AbortSignal;
}

/** Methods that answer only when their work is done: no default timeout. */
const LONG_METHODS = new Set<string>(['waitSettled', 'compact', 'bash']);

/** vscode-jsonrpc's own codes for a connection that is closed or broken (never sent by pi-rpc). */
function isTransportError(err: ResponseError<unknown>): boolean {
  return err.code >= -32099 && err.code <= -32096;
}

type EventHandler = (event: Event) => void;

/**
 * Starts pi-rpc and returns a client connected to it over `--framing lsp`.
 *
 * ```ts
 * const client = spawn({ args: ['--provider', 'openai'] });
 * await client.initialize();
 * client.on('message_update', (e) => { if (e.assistantMessageEvent.type === 'text_delta') write(e.assistantMessageEvent.delta); });
 * const { inputId } = await client.prompt({ message: 'Hello' });
 * const settled = await client.waitSettled({ inputId });
 * await client.dispose();
 * ```
 *
 * Throws BinaryNotFoundError when no binary is found; every other failure (the process cannot
 * start, exits, crashes) rejects pending and later calls with ProcessExitedError.
 */
export function spawn(options: SpawnOptions = {}): PiRpcClient {
  return new PiRpcClient(options);
}

/** A running pi-rpc process and the JSON-RPC connection to it. Create it with spawn(). */
export class PiRpcClient extends ProtocolMethods {
  /** The child process. */
  readonly process: ChildProcessWithoutNullStreams;
  /** The executable that was started. */
  readonly binaryPath: string;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ExitInfo>;
  /** The underlying vscode-jsonrpc connection, for anything this class does not cover. */
  readonly connection: MessageConnection;

  private readonly options: SpawnOptions;
  private readonly stderr: string[] = [];
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private readonly pending = new Set<(info: ExitInfo) => void>();
  private readonly streams = new Set<() => void>();
  private permissionHandler: PermissionHandler | undefined;
  private exitInfo: ExitInfo | undefined;
  private resolveExited!: (info: ExitInfo) => void;
  private disposing: Promise<ExitInfo> | undefined;
  private seq = 0;

  constructor(options: SpawnOptions = {}) {
    super();
    this.options = options;
    this.permissionHandler = options.onPermission;
    const env = { ...process.env, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    this.binaryPath = resolveBinary(options.binaryPath, env);
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));

    const child = spawnProcess(this.binaryPath, [...(options.args ?? []), '--framing', 'lsp'], {
      cwd: options.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.process = child;

    // stderr is always drained (pi-rpc never blocks on it, but a full pipe would be lost
    // lines); the tail explains a crash.
    const keep = options.stderrLines ?? 50;
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > keep) this.stderr.shift();
      if (options.onStderr) this.safely(() => options.onStderr!(line));
    });
    child.stdin.on('error', () => {}); // EPIPE after the process died; reported through exit.

    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let exitSeen = false;
    const finish = (spawnError?: Error) => {
      if (this.exitInfo) return;
      this.exitInfo = { exitCode, signal: exitSignal, stderrTail: [...this.stderr], spawnError };
      const info = this.exitInfo;
      for (const fail of [...this.pending]) fail(info);
      this.pending.clear();
      for (const end of [...this.streams]) end();
      this.connection.dispose();
      this.resolveExited(info);
    };
    child.on('error', (err) => {
      // Spawning failed (ENOENT, EACCES) or a kill failed; only the first matters.
      if (!exitSeen && child.pid === undefined) finish(err);
    });
    child.on('exit', (code, signal) => {
      exitSeen = true;
      exitCode = code;
      exitSignal = signal;
      // 'close' follows once stdout and stderr are drained; do not wait for it forever (a
      // grandchild may hold the pipes).
      setTimeout(() => finish(), 500).unref();
    });
    child.on('close', () => {
      if (exitSeen) finish();
    });

    const reader = tapReader(new StreamMessageReader(child.stdout), options.onMessage);
    const writer = tapWriter(new StreamMessageWriter(child.stdin), options.onMessage);
    this.connection = createMessageConnection(reader, writer);
    this.connection.onError(() => {}); // transport errors surface as ProcessExitedError.
    this.connection.onNotification('event', (params: Event) => this.dispatch(params));
    this.connection.onRequest('permission/request', (params: PermissionRequestParams, token: CancellationToken) =>
      this.answerPermission(params, token),
    );
    this.connection.listen();
  }

  /** The process id, or undefined when it could not be started. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The seq of the last event received (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  /** The last lines pi-rpc wrote to stderr. */
  stderrTail(): string[] {
    return [...this.stderr];
  }

  /** Whether the process has exited (or never started). */
  get isClosed(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Replaces the permission handler (undefined: deny every request). */
  setPermissionHandler(handler: PermissionHandler | undefined): void {
    this.permissionHandler = handler;
  }

  /**
   * The optional handshake. Defaults clientInfo to this package, and declares
   * `capabilities.permissions: true` when a permission handler is set and the params do not
   * say otherwise.
   */
  override initialize(params: InitializeParams = {}, options?: CallOptions): Promise<InitializeResult> {
    const capabilities = { ...params.capabilities };
    if (capabilities.permissions === undefined && this.permissionHandler) capabilities.permissions = true;
    return this.request(
      'initialize',
      {
        protocolVersion: 1,
        clientInfo: { name: '@pi-rpc/client', version: CLIENT_VERSION },
        ...params,
        capabilities,
      },
      options,
    );
  }

  /** Sends any request by name, with the default timeout unless options say otherwise. */
  request<M extends keyof RequestMap>(
    method: M,
    params: RequestMap[M]['params'],
    options: CallOptions = {},
  ): Promise<RequestMap[M]['result']> {
    return this.call(method, params, options) as Promise<RequestMap[M]['result']>;
  }

  /** Sends a request the generated types do not know yet (a newer server's method). */
  call(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    if (this.exitInfo) return Promise.reject(new ProcessExitedError(this.exitInfo, method));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const timeoutMs = options.timeoutMs ?? (LONG_METHODS.has(method) ? 0 : (this.options.requestTimeoutMs ?? 60_000));

    return new Promise((resolve, reject) => {
      const cts = new CancellationTokenSource();
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const onExit = (info: ExitInfo) => settle(() => reject(new ProcessExitedError(info, method)));
      const onAbort = () => {
        cts.cancel();
        settle(() => reject(signal!.reason));
      };
      const settle = (fn: () => void) => {
        if (done) return;
        done = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(onExit);
        cts.dispose();
        fn();
      };
      this.pending.add(onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          cts.cancel();
          settle(() => reject(new RequestTimeoutError(method, timeoutMs)));
        }, timeoutMs);
      }
      let sent: Promise<unknown>;
      try {
        sent = this.connection.sendRequest(method, params, cts.token);
      } catch (err) {
        sent = Promise.reject(err);
      }
      sent.then(
        (result) => settle(() => resolve(result)),
        (err: unknown) => {
          if (err instanceof ResponseError && !isTransportError(err)) {
            settle(() => reject(new RpcError(method, err.code, err.message, err.data)));
          } else {
            // The connection broke: the process is exiting; report how it ended.
            void this.exited.then(onExit);
          }
        },
      );
    });
  }

  /** Sends a notification (exit, or one a newer server knows). */
  notify(method: string, params: unknown = {}): void {
    if (this.exitInfo) throw new ProcessExitedError(this.exitInfo, method);
    void this.connection.sendNotification(method, params).catch(() => {});
  }

  /**
   * Calls handler for each event of the given type ('*' for every event). Returns a
   * Disposable that unsubscribes. Handlers run in event order, synchronously as each
   * event is read.
   */
  on<T extends EventType>(type: T, handler: (event: EventOf<T>) => void): Disposable;
  on(type: '*', handler: (event: Event) => void): Disposable;
  on(type: string, handler: (event: Event) => void): Disposable {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(handler);
    return { dispose: () => set!.delete(handler) };
  }

  /** Like on(), for the first matching event only; resolves with it (rejects if the process exits first). */
  once<T extends EventType>(type: T, predicate: (event: EventOf<T>) => boolean = () => true): Promise<EventOf<T>> {
    return new Promise((resolve, reject) => {
      if (this.exitInfo) return reject(new ProcessExitedError(this.exitInfo));
      const onExit = (info: ExitInfo) => {
        sub.dispose();
        reject(new ProcessExitedError(info));
      };
      const sub = this.on(type, (event) => {
        if (!predicate(event)) return;
        sub.dispose();
        this.pending.delete(onExit);
        resolve(event);
      });
      this.pending.add(onExit);
    });
  }

  /**
   * An async iterator over events from now on, buffered so none are missed while the consumer
   * is busy. It ends when the process exits, when `signal` aborts, or when the loop breaks.
   */
  events(options: EventStreamOptions = {}): AsyncIterableIterator<Event> {
    const buffer: Event[] = [];
    let wake: (() => void) | undefined;
    let ended = !!this.exitInfo || !!options.signal?.aborted;
    const types = options.types ? new Set<string>(options.types) : undefined;
    const sub = this.on('*', (event) => {
      if (types && !types.has(event.type)) return;
      buffer.push(event);
      wake?.();
    });
    const end = () => {
      ended = true;
      sub.dispose();
      this.streams.delete(end);
      options.signal?.removeEventListener('abort', end);
      wake?.();
    };
    this.streams.add(end);
    options.signal?.addEventListener('abort', end, { once: true });
    if (ended) end();
    const iterator: AsyncIterableIterator<Event> = {
      next: async (): Promise<IteratorResult<Event>> => {
        while (buffer.length === 0 && !ended) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
        if (buffer.length > 0) return { value: buffer.shift()!, done: false };
        return { value: undefined, done: true };
      },
      return: async (): Promise<IteratorResult<Event>> => {
        end();
        buffer.length = 0;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /** Same as events(). */
  [Symbol.asyncIterator](): AsyncIterableIterator<Event> {
    return this.events();
  }

  /**
   * Ends the process politely: `shutdown` (aborts any busy period, persists the session),
   * then the `exit` notification, then SIGTERM and finally SIGKILL, each after
   * disposeGraceMs without an exit. Resolves with how the process ended. Safe to call twice.
   */
  dispose(): Promise<ExitInfo> {
    this.disposing ??= this.shutdownAndExit();
    return this.disposing;
  }

  /** Sends a signal to the process at once (default SIGTERM). */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.exitInfo) this.process.kill(signal);
  }

  private async shutdownAndExit(): Promise<ExitInfo> {
    const grace = this.options.disposeGraceMs ?? 2000;
    if (!this.exitInfo) {
      try {
        await this.request('shutdown', {}, { timeoutMs: grace });
      } catch {
        // Already gone, busy beyond the grace period or refused: exit and kill still follow.
      }
      if (!this.exitInfo) {
        try {
          this.notify('exit');
        } catch {
          // exited meanwhile
        }
      }
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        if (await this.exitedWithin(grace)) break;
        this.kill(signal);
      }
    }
    return this.exited;
  }

  private exitedWithin(ms: number): Promise<boolean> {
    if (this.exitInfo) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private dispatch(event: Event): void {
    if (typeof event?.seq === 'number') this.seq = event.seq;
    for (const key of [event.type, '*']) {
      const set = this.handlers.get(key);
      if (!set) continue;
      for (const handler of [...set]) this.safely(() => handler(event));
    }
  }

  private async answerPermission(params: PermissionRequestParams, token: CancellationToken): Promise<PermissionRequestResult> {
    const handler = this.permissionHandler;
    if (!handler) return { decision: 'deny', reason: 'The client has no permission handler.' };
    const controller = new AbortController();
    const sub = token.onCancellationRequested(() => controller.abort(new PiRpcError('permission request withdrawn by the server')));
    try {
      return await handler(params, { signal: controller.signal });
    } finally {
      sub.dispose();
    }
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      (this.options.onHandlerError ?? console.error)(err);
    }
  }
}

function tapReader(inner: MessageReader, tap: SpawnOptions['onMessage']): MessageReader {
  if (!tap) return inner;
  return {
    onError: inner.onError,
    onClose: inner.onClose,
    onPartialMessage: inner.onPartialMessage,
    listen: (callback) =>
      inner.listen((message) => {
        tap(message, 'received');
        callback(message);
      }),
    dispose: () => inner.dispose(),
  };
}

function tapWriter(inner: MessageWriter, tap: SpawnOptions['onMessage']): MessageWriter {
  if (!tap) return inner;
  return {
    onError: inner.onError,
    onClose: inner.onClose,
    write: (message) => {
      tap(message, 'sent');
      return inner.write(message);
    },
    end: () => inner.end(),
    dispose: () => inner.dispose(),
  };
}
