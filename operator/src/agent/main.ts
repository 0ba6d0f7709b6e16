/**
 * The box agent's entry point (a systemd unit in each box runs it as root):
 *
 *   EG_AGENT_API_URL=http://10.66.0.1 EG_AGENT_TOKEN_FILE=/etc/exploit-grid/agent.token \
 *   EG_AGENT_SPOOL_DIR=/var/lib/exploit-grid-agent node main.js
 */
import { readFileSync } from 'node:fs';
import { Agent } from './agent.ts';

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) {
    process.stderr.write(`exploit-grid-agent: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
}

const token = readFileSync(setting('EG_AGENT_TOKEN_FILE', '/etc/exploit-grid/agent.token'), 'utf8').trim();
const agent = new Agent({
  apiUrl: setting('EG_AGENT_API_URL').replace(/\/+$/, ''),
  token,
  spoolDir: setting('EG_AGENT_SPOOL_DIR', '/var/lib/exploit-grid-agent'),
  scanIntervalMs: Number(process.env.EG_AGENT_SCAN_MS ?? 200),
  heartbeatIntervalMs: Number(process.env.EG_AGENT_HEARTBEAT_MS ?? 5000),
  includeLoopback: process.env.EG_AGENT_INCLUDE_LOOPBACK === '1',
  log: (message) => process.stderr.write(`exploit-grid-agent: ${message}\n`),
});
agent.start();
process.stderr.write(`exploit-grid-agent: watching processes (spool ${agent.spool.acked} acknowledged)\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void agent.stop().finally(() => process.exit(0));
  });
}
