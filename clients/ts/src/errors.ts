import type { ErrorData } from './generated/protocol.js';

/** The base class of every error this package throws or rejects with. */
export class PiRpcError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The server answered a request with a JSON-RPC error. `code` is the JSON-RPC code (see
 * ERROR_CODES); application errors (-32010 to -32015) carry `data.kind` (`busy`, `invalidState`,
 * `notFound`, `providerNotConfigured`, `shuttingDown`, `timeout`) and a message a person can act
 * on.
 */
export class RpcError extends PiRpcError {
  readonly method: string;
  readonly code: number;
  readonly data: (ErrorData & Record<string, unknown>) | undefined;

  constructor(method: string, code: number, message: string, data?: unknown) {
    super(`${method}: ${message} (${code})`);
    this.method = method;
    this.code = code;
    this.data = data && typeof data === 'object' ? (data as ErrorData & Record<string, unknown>) : undefined;
  }

  /** data.kind of an application error, such as "busy"; undefined for JSON-RPC's own errors. */
  get kind(): ErrorData['kind'] | undefined {
    return this.data?.kind;
  }
}

/** How the pi-rpc process ended. */
export interface ExitInfo {
  /** The exit code, or null when a signal ended the process (or it never started). */
  exitCode: number | null;
  /** The signal that ended the process, if any. */
  signal: NodeJS.Signals | null;
  /** The last lines pi-rpc wrote to stderr (at most SpawnOptions.stderrLines). */
  stderrTail: string[];
  /** Set when the process could not be started at all (ENOENT, EACCES, ...). */
  spawnError?: Error;
}

/**
 * The pi-rpc process is gone: a call was pending when it exited, or was made after. Carries the
 * exit code, the signal and the last lines of stderr, which usually say why.
 */
export class ProcessExitedError extends PiRpcError {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string[];
  readonly method: string | undefined;

  constructor(info: ExitInfo, method?: string) {
    const how = info.spawnError
      ? `could not be started: ${info.spawnError.message}`
      : info.signal
        ? `was killed by ${info.signal}`
        : `exited with code ${info.exitCode}`;
    const tail = info.stderrTail.length ? `\nstderr (last ${info.stderrTail.length} lines):\n${info.stderrTail.join('\n')}` : '';
    super(`pi-rpc ${how}${method ? ` while ${method} was pending` : ''}${tail}`, { cause: info.spawnError });
    this.exitCode = info.exitCode;
    this.signal = info.signal;
    this.stderrTail = info.stderrTail;
    this.method = method;
  }
}

/** A request got no answer within its timeout; `$/cancelRequest` was sent for it. */
export class RequestTimeoutError extends PiRpcError {
  readonly method: string;
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number) {
    super(`${method}: no response within ${timeoutMs} ms`);
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** No pi-rpc binary was found (options.binaryPath, $PI_RPC_BINARY, the npm platform package, PATH). */
export class BinaryNotFoundError extends PiRpcError {}
