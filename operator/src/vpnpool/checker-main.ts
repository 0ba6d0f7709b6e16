/**
 * The VPN server pod's service checker (checker.ts), started by the pod's entrypoint beside OpenVPN:
 *
 *   API_INTERNAL_URL=http://exploit-grid-api-internal:8089 SERVER_NAME=arena-udp-0 ROUTER_ADDRESS=172.30.0.10 \
 *   HOOK_TOKEN_FILE=/etc/exploit-grid/pki/hook-token node checker.cjs
 */
import { readFileSync } from 'node:fs';
import { VpnChecker } from './checker.ts';

const log = (message: string) => process.stderr.write(`exploit-grid-checker: ${message}\n`);

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) {
    log(`${name} is not set`);
    process.exit(2);
  }
  return value;
}

const tokenFile = setting('HOOK_TOKEN_FILE', `${process.env.EG_ETC ?? '/etc/exploit-grid'}/pki/hook-token`);
const checker = new VpnChecker({
  apiUrl: setting('API_INTERNAL_URL'),
  server: setting('SERVER_NAME'),
  routerAddress: setting('ROUTER_ADDRESS'),
  token: () => readFileSync(tokenFile, 'utf8').trim(),
  log,
});
checker.start();
log('making the API’s service checks');
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => void checker.stop().finally(() => process.exit(0)));
