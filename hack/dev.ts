// `make dev`: the API in watch mode and the Vite dev server (proxying /api and /socket.io
// to it), side by side. Ctrl-C stops both; when one exits, the other is stopped too.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const vite = path.join(
  path.dirname(createRequire(path.join(root, 'portal/package.json')).resolve('vite/package.json')),
  'bin/vite.js',
);

const children: ChildProcess[] = [
  spawn(process.execPath, ['--conditions=source', '--watch', '--watch-preserve-output', 'api/src/main.ts'], {
    cwd: root,
    stdio: 'inherit',
  }),
  spawn(process.execPath, [vite], { cwd: path.join(root, 'portal'), stdio: 'inherit' }),
];

let stopping = false;
function stopAll(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
// A terminal's Ctrl-C reaches the children directly; forwarding covers `kill` of this process.
process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));

let exitCode = 0;
await Promise.all(
  children.map(
    (child) =>
      new Promise<void>((resolve) =>
        child.once('exit', (code) => {
          if (code) exitCode = code;
          stopAll('SIGTERM');
          resolve();
        }),
      ),
  ),
);
process.exit(exitCode);
