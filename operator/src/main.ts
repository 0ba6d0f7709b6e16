/**
 * The operator's process: `node operator/dist/main.js`. Configuration from the environment
 * (docs/kubernetes.md): WATCH_NAMESPACE, KUBECONFIG (else in-cluster), ARENA_NETWORK,
 * ARENA_SUBNET, AGENT_API_URL, AGENT_BUNDLE, HTTP_PORT, LEADER_ELECTION, POD_NAME, LOG_LEVEL,
 * RECONCILE_CONCURRENCY, OPENVPN_IMAGE, API_INTERNAL_URL, BOX_DISK_SIZE, BOX_STORAGE_CLASS, BOX_SPARES,
 * BOX_IMAGE, BOX_LOADOUT_IN, BOX_LOADOUT_UP.
 * SIGTERM and SIGINT stop it gracefully (work in flight ends, the Lease is released).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { createLogger } from './controller/log.ts';
import { DEFAULT_BOX_IMAGE } from './box/disk.ts';
import { Operator } from './operator.ts';

const env = (name: string, fallback: string) => process.env[name]?.trim() || fallback;
const logger = createLogger(env('LOG_LEVEL', 'info'));

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const config = new k8s.KubeConfig();
  config.loadFromDefault();
  const httpPort = Number(env('HTTP_PORT', '8080'));
  if (!Number.isInteger(httpPort) || httpPort < 0 || httpPort > 65535)
    throw new Error('HTTP_PORT must be a port number');
  const concurrency = Number(env('RECONCILE_CONCURRENCY', '4'));
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new Error('RECONCILE_CONCURRENCY must be a whole number from 1 to 64');
  }
  const whole = (name: string, fallback: string, max: number): number => {
    const value = Number(env(name, fallback));
    if (!Number.isInteger(value) || value < 0 || value > max)
      throw new Error(`${name} must be a whole number from 0 to ${max}`);
    return value;
  };
  const diskSize = env('BOX_DISK_SIZE', '5Gi');
  if (!/^[1-9][0-9]{0,5}(Mi|Gi|Ti)$/.test(diskSize))
    throw new Error('BOX_DISK_SIZE must be a size such as 4Gi (Mi, Gi or Ti)');
  const storageClass = process.env.BOX_STORAGE_CLASS?.trim() || undefined;
  const leaderElection = env('LEADER_ELECTION', 'true');
  if (!['true', 'false'].includes(leaderElection)) throw new Error('LEADER_ELECTION must be true or false');
  const bundle = (setting: string, file: string, what: string): Buffer => {
    const bundlePath = env(setting, path.resolve(import.meta.dirname, '../dist', file));
    try {
      return readFileSync(bundlePath);
    } catch {
      throw new Error(
        `The ${what} bundle is missing at ${bundlePath} (make build makes it; or set ${setting})`,
      );
    }
  };
  const agentBundle = bundle('AGENT_BUNDLE', 'agent.cjs', 'box agent');
  const checkerBundle = bundle('VPN_CHECKER_BUNDLE', 'vpn-checker.cjs', 'VPN service checker');
  const operator = new Operator({
    config,
    namespace: env('WATCH_NAMESPACE', inClusterNamespace() ?? 'default'),
    arenaNetwork: env('ARENA_NETWORK', 'arena'),
    arenaSubnet: env('ARENA_SUBNET', '172.30.0.0/16'),
    agentApiUrl: process.env.AGENT_API_URL?.trim() || undefined,
    agentBundle,
    vpn: {
      image: env('OPENVPN_IMAGE', 'exploit-grid/openvpn:latest'),
      apiInternalUrl: env('API_INTERNAL_URL', 'http://exploit-grid-api-internal:8089'),
      checkerBundle,
    },
    http: { port: httpPort, host: env('HTTP_HOST', '0.0.0.0') },
    leaderElection: {
      enabled: leaderElection === 'true',
      identity: env('POD_NAME', `${os.hostname()}-${process.pid}`),
    },
    logger,
    concurrency,
    disk: { size: diskSize, ...(storageClass ? { storageClass } : {}) },
    spares: {
      count: whole('BOX_SPARES', '2', 100),
      image: env('BOX_IMAGE', DEFAULT_BOX_IMAGE),
      loadoutSize: { in: whole('BOX_LOADOUT_IN', '3', 8), up: whole('BOX_LOADOUT_UP', '2', 8) },
    },
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'Stopping');
    operator.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'Failed to stop');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await operator.start();
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'the operator could not start');
  process.exit(1);
});
