import type { Config } from './config.ts';
import { BOX_MESSAGES } from './contracts/boxes.ts';
import type { Logger } from './logger.ts';
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { KubernetesRuntime } from './boxes/kubernetes/runtime.ts';
import { LocalRuntime } from './boxes/local/runtime.ts';
import type { BoxOrchestrator } from './boxes/orchestrator.ts';
import { UnavailableOrchestrator } from './boxes/unavailable.ts';
import { HostOrchestrator } from './host/client.ts';
import { HOST_CHANNEL_ENV } from './host/protocol.ts';

/**
 * What players read when boxes cannot run: never the configuration's names or the host's problem, which go to
 * the API's log for the platform's operators.
 */
const BOXES_OFF = BOX_MESSAGES.boxesOff;
const BOXES_BROKEN = BOX_MESSAGES.runtimeUnavailable;

/** The box runtime the configuration asks for (ORCHESTRATOR). */
export async function createOrchestrator(config: Config, logger: Logger): Promise<BoxOrchestrator> {
  switch (config.orchestrator) {
    case 'none':
      // Players read this on My Box; the setting behind it is for whoever runs the platform (the log).
      logger.info('Boxes are turned off (ORCHESTRATOR=none)');
      return new UnavailableOrchestrator(BOXES_OFF);
    case 'kubernetes': {
      const kubeconfig = new k8s.KubeConfig();
      try {
        kubeconfig.loadFromDefault(); // KUBECONFIG, ~/.kube/config or the pod's service account
      } catch (error) {
        const problem = `No Kubernetes configuration: ${error instanceof Error ? error.message : String(error)}`;
        logger.warn(problem);
        return new UnavailableOrchestrator(BOXES_BROKEN);
      }
      return new KubernetesRuntime({
        config: kubeconfig,
        namespace: config.kubernetes.namespace ?? inClusterNamespace() ?? 'default',
        poolName: config.kubernetes.poolName,
        boxImage: config.kubernetes.boxImage,
        ...(config.kubernetes.snapshotClass ? { snapshotClass: config.kubernetes.snapshotClass } : {}),
        agentPort: config.boxes.agentPort,
        logger,
      });
    }
    case 'local': {
      // Started by the host process (make run as root): the runtime runs there, as root.
      if (process.env[HOST_CHANNEL_ENV] === '1' && process.channel)
        return new HostOrchestrator(process, logger);
      const problem = await LocalRuntime.hostProblem();
      if (problem) {
        logger.warn(`Boxes cannot run on this host: ${problem}`);
        return new UnavailableOrchestrator(BOXES_BROKEN);
      }
      return new LocalRuntime({
        dataDir: config.dataDir,
        imageDir: config.boxes.imageDir,
        imageSuite: config.boxes.imageSuite,
        imageMirror: config.boxes.imageMirror,
        prefix: config.boxes.prefix,
        arenaSubnet: config.boxes.arenaSubnet,
        transitSubnet: config.boxes.transitSubnet,
        vpnUdpSubnet: config.vpn.udpSubnet,
        vpnTcpSubnet: config.vpn.tcpSubnet,
        vpnPublicHost: config.vpn.publicHost,
        vpnListenHost: config.vpn.listenHost,
        vpnUdpPort: config.vpn.udpPort,
        vpnTcpPort: config.vpn.tcpPort,
        vpnMaxClients: config.vpn.maxClients,
        stopTimeoutMs: config.boxes.stopTimeoutMs,
        diskMiB: config.boxes.diskMiB,
        playerCpus: config.boxes.playerCpus,
        warmPool: config.boxes.warmPool,
        loadout: config.boxes.loadout,
        resources: config.boxes.resources,
        logger,
      });
    }
  }
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
  } catch {
    return undefined;
  }
}
