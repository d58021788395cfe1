export { spawn, PiRpcClient, CLIENT_VERSION } from './client.js';
export type { SpawnOptions, PermissionHandler, Disposable, EventStreamOptions } from './client.js';
export { resolveBinary } from './binary.js';
export {
  PiRpcError,
  RpcError,
  ProcessExitedError,
  RequestTimeoutError,
  BinaryNotFoundError,
} from './errors.js';
export type { ExitInfo } from './errors.js';
export { ProtocolMethods } from './generated/methods.js';
export type { CallOptions } from './generated/methods.js';
export * from './generated/protocol.js';
