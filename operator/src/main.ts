/**
 * The operator's process: `node operator/dist/main.js`. Configuration from the environment
 * (docs/kubernetes.md): WATCH_NAMESPACE, KUBECONFIG (else in-cluster), ARENA_NETWORK,
 * ARENA_SUBNET, AGENT_API_URL, AGENT_BUNDLE, HTTP_PORT, LEADER_ELECTION, POD_NAME, LOG_LEVEL,
 * RECONCILE_CONCURRENCY, OPENVPN_IMAGE, API_INTERNAL_URL.
 * SIGTERM and SIGINT stop it gracefully (work in flight ends, the Lease is released).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { createLogger } from './controller/log.ts';
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
