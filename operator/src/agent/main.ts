/**
 * The box agent's entry point (a systemd unit in each box runs it as root):
 *
 *   EG_AGENT_API_URL=http://10.66.0.1 EG_AGENT_TOKEN_FILE=/etc/exploit-grid/agent.token \
 *   EG_AGENT_SPOOL_DIR=/var/lib/exploit-grid-agent node agent.cjs
 *
 * EG_AGENT_EXEC_HOOK=journal (the default where the box has journalctl) follows snoopy's
 * records in the journal; `off` leaves the agent to its /proc scan.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent } from './agent.ts';
import { JournalSource } from './exec-hook.ts';
import { AGENT_FILES } from './install.ts';

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) {
    process.stderr.write(`exploit-grid-agent: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
}

const log = (message: string) => process.stderr.write(`exploit-grid-agent: ${message}\n`);
const apiUrl = setting('EG_AGENT_API_URL').replace(/\/+$/, '');
const token = readFileSync(setting('EG_AGENT_TOKEN_FILE', AGENT_FILES.token), 'utf8').trim();
const spoolDir = setting('EG_AGENT_SPOOL_DIR', '/var/lib/exploit-grid-agent');
const hook = process.env.EG_AGENT_EXEC_HOOK ?? (which('journalctl') ? 'journal' : 'off');
if (hook !== 'journal' && hook !== 'off') {
  log(`EG_AGENT_EXEC_HOOK must be journal or off, not ${hook}`);
  process.exit(2);
}
const agent = new Agent({
  apiUrl,
  token,
  spoolDir,
  execSource:
    hook === 'journal' ? new JournalSource({ cursorFile: path.join(spoolDir, 'journal.cursor'), log }) : null,
  scanIntervalMs: Number(process.env.EG_AGENT_SCAN_MS ?? 500),
  heartbeatIntervalMs: Number(process.env.EG_AGENT_HEARTBEAT_MS ?? 5000),
  includeLoopback: process.env.EG_AGENT_INCLUDE_LOOPBACK === '1',
  log,
});
agent.start();
log(`watching processes (exec hook: ${hook}; ${agent.spool.acked} events acknowledged so far)`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void agent.stop().finally(() => process.exit(0));
  });
}

function which(command: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => existsSync(path.join(dir, command)));
}
