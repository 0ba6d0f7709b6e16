import { execFile, spawn } from 'node:child_process';

/** A failed host command, with what it printed (never with its stdin, which may hold secrets). */
export class CommandError extends Error {
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(command: string, args: readonly string[], exitCode: number | null, stderr: string) {
    super(`${command} ${args.join(' ')} failed (${exitCode ?? 'killed'}): ${stderr.trim().slice(0, 2000)}`);
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export interface RunOptions {
  /** Written to the command's stdin (e.g. an nft ruleset or a password). */
  input?: string;
  timeoutMs?: number;
  /** Exit codes other than 0 that count as success. */
  okCodes?: number[];
}

/** Runs a host command without a shell and answers its stdout; throws CommandError on failure. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      { timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const code = typeof err.code === 'number' ? err.code : null;
        if (code !== null && options.okCodes?.includes(code)) return resolve(stdout);
        reject(new CommandError(command, args, code, stderr || err.message));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs a command and streams its output lines to `onLine`; resolves on exit 0. */
export function runStreaming(
  command: string,
  args: readonly string[],
  onLine: (line: string) => void,
  options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      signal: options.signal,
    });
    const tail: string[] = [];
    const feed = (stream: NodeJS.ReadableStream) => {
      let buffered = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline).replace(/\r$/, '');
          buffered = buffered.slice(newline + 1);
          tail.push(line);
          if (tail.length > 20) tail.shift();
          onLine(line);
        }
      });
    };
    feed(child.stdout);
    feed(child.stderr);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new CommandError(command, args, code, tail.join('\n')));
    });
  });
}

/** Whether an executable is on PATH (or at an absolute path). */
export async function which(command: string): Promise<string | null> {
  try {
    return (await run('sh', ['-c', 'command -v "$0"', command])).trim() || null;
  } catch {
    return null;
  }
}
