// The few parts of the vscode API that vscode-extension.ts uses, so the sketch type-checks
// without @types/vscode. Not a complete or exact copy of the real declarations.
declare module 'vscode' {
  export interface Disposable {
    dispose(): unknown;
  }
  export interface ExtensionContext {
    subscriptions: Disposable[];
    asAbsolutePath(relativePath: string): string;
  }
  export interface OutputChannel extends Disposable {
    append(value: string): void;
    appendLine(value: string): void;
    show(preserveFocus?: boolean): void;
  }
  export namespace window {
    function createOutputChannel(name: string): OutputChannel;
    function showWarningMessage<T extends string>(message: string, options: { modal?: boolean }, ...items: T[]): Thenable<T | undefined>;
    function showWarningMessage(message: string): Thenable<string | undefined>;
    function showErrorMessage(message: string): Thenable<string | undefined>;
    function showInputBox(options?: { prompt?: string }): Thenable<string | undefined>;
  }
  export namespace workspace {
    const workspaceFolders: readonly { uri: { fsPath: string } }[] | undefined;
    function getConfiguration(section?: string): { get<T>(key: string): T | undefined };
  }
  export namespace commands {
    function registerCommand(command: string, callback: (...args: unknown[]) => unknown): Disposable;
  }
}
