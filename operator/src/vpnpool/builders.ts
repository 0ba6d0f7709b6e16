/**
 * What the VpnPool controller makes of a pool: pure functions (but the PKI, which makes keys).
 * Per protocol, `replicas` OpenVPN servers, each its own Deployment of one pod serving one slice
 * of the protocol's client subnet and routing it to the arena, without NAT, from its router
 * address; a Service per protocol; the servers' configuration and scripts in a ConfigMap; the
 * access ConfigMap (who may reach which box) from the Boxes; the PKI Secret (docs/kubernetes.md,
 * "Contracts between the parts").
 */
import { createHash, randomBytes } from 'node:crypto';
import type {
  V1ConfigMap,
  V1Deployment,
  V1OwnerReference,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import { toAddress, toNumber, type ArenaSubnet } from '../box/addresses.ts';
import { ANNOTATIONS, openWindows, standardLabels } from '../box/builders.ts';
import type { Box, Condition } from '../box/types.ts';
import { OPENVPN_SERVER_TLS, VpnPki, newTlsCryptKey } from '../vpn/pki.ts';
import { SCRIPTS } from './scripts.ts';
import { PROTOCOLS, type Protocol, type ServerStatus, type VpnPool, type VpnPoolStatus } from './types.ts';

export const POOL_LABELS = {
  pool: 'exploitgrid.io/vpnpool',
  server: 'exploitgrid.io/vpn-server',
  protocol: 'exploitgrid.io/vpn-protocol',
} as const;

export const POOL_FINALIZER = 'exploitgrid.io/vpnpool-children';

/** The service checker's name in the server ConfigMap (entrypoint.sh runs it). */
export const CHECKER_FILE = 'checker.cjs';

/** On a server's pod template: what its configuration and scripts are (a change rolls the pod). */
export const CONFIG_DIGEST_ANNOTATION = 'exploitgrid.io/config-digest';

/**
 * All a server's container may do beyond an unprivileged one: NET_ADMIN for its tun device,
 * routes and nftables, NET_BIND_SERVICE for a port below 1024 (443 for TCP).
 */
export const SERVER_CAPABILITIES = ['NET_ADMIN', 'NET_BIND_SERVICE'];

export const pkiSecretName = (pool: VpnPool) => pool.spec.pkiSecretName ?? `${pool.metadata.name}-pki`;
export const serverConfigMapName = (pool: VpnPool) => `${pool.metadata.name}-server`;
export const accessConfigMapName = (pool: VpnPool) => `${pool.metadata.name}-access`;
export const serviceName = (pool: VpnPool, protocol: Protocol) => `${pool.metadata.name}-${protocol}`;
/** The name in the servers' certificate, which players' .ovpn files verify. */
export const vpnServerName = (pool: VpnPool) => `${pool.metadata.name}.vpn.exploitgrid.io`;

export interface VpnServer {
  name: string;
  protocol: Protocol;
  index: number;
  /** This server's slice of the protocol's client subnet. */
  slice: { network: string; prefixLength: number; cidr: string };
  /** Its address on the arena (the first /24 of the arena subnet is the routers'). */
  routerAddress: string;
}

/**
 * The servers of each protocol: n = replicas; slices of the client subnet for n rounded up to a
 * power of two; routers at .10 + i (udp) and .100 + i (tcp) of the arena's first /24.
 */
export function serverSlices(pool: VpnPool, arena: ArenaSubnet): VpnServer[] {
  const servers: VpnServer[] = [];
  for (const protocol of PROTOCOLS) {
    const spec = pool.spec[protocol];
    const [base, bits] = spec.clientSubnet.split('/') as [string, string];
    const network = toNumber(base);
    const prefix = Number(bits);
    const extra = spec.replicas <= 1 ? 0 : Math.ceil(Math.log2(spec.replicas));
    const slicePrefix = prefix + extra;
    if (slicePrefix > 29) {
      throw new Error(
        `${protocol}: ${spec.replicas} servers would split ${spec.clientSubnet} into slices smaller than /29; use a larger clientSubnet or fewer replicas`,
      );
    }
    const size = 2 ** (32 - slicePrefix);
    for (let index = 0; index < spec.replicas; index++) {
      const sliceNetwork = toAddress((network + index * size) >>> 0);
      servers.push({
        name: `${pool.metadata.name}-${protocol}-${index}`,
        protocol,
        index,
        slice: { network: sliceNetwork, prefixLength: slicePrefix, cidr: `${sliceNetwork}/${slicePrefix}` },
        routerAddress: toAddress(arena.network + (protocol === 'udp' ? 10 : 100) + index),
      });
    }
  }
  return servers;
}

/** Routes a box needs: each client slice through the server holding it. */
export const routesFor = (servers: VpnServer[]) =>
  servers.map((server) => ({ to: server.slice.cidr, via: server.routerAddress }));

function ownerReferenceTo(pool: VpnPool): V1OwnerReference {
  return {
    apiVersion: 'exploitgrid.io/v1alpha1',
    kind: 'VpnPool',
    name: pool.metadata.name,
    uid: pool.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

const poolLabels = (pool: VpnPool, component = 'vpn') => ({
  ...standardLabels(pool.metadata.name, component),
  [POOL_LABELS.pool]: pool.metadata.name,
});

/** A child's metadata: in the pool's namespace, labelled as the pool's, the pool its controller. */
function childMetadata(pool: VpnPool, name: string) {
  return {
    name,
    namespace: pool.metadata.namespace,
    labels: poolLabels(pool),
    ownerReferences: [ownerReferenceTo(pool)],
  };
}

const netmask = (prefixLength: number) =>
  toAddress(prefixLength === 0 ? 0 : (~0 << (32 - prefixLength)) >>> 0);

export interface ServerConfigOptions {
  /** The API's internal Service, for the hooks. */
  apiInternalUrl: string;
  /** Where the pod mounts its PKI, configuration and access ConfigMap, and its runtime directory. */
  etcDir?: string;
  runDir?: string;
}

/**
 * One server's OpenVPN configuration (the certificate files come from the PKI Secret's volume).
 * OpenVPN gives its scripts only the variables it sets, so what the hooks need is set here.
 */
export function serverConfig(
  pool: VpnPool,
  server: VpnServer,
  arena: ArenaSubnet,
  options: ServerConfigOptions,
): string {
  const spec = pool.spec[server.protocol];
  const etc = options.etcDir ?? '/etc/exploit-grid';
  const run = options.runDir ?? '/run';
  const pki = `${etc}/pki`;
  return [
    `# Exploit Grid ${server.protocol.toUpperCase()} VPN server ${server.name} (made by the operator)`,
    `port ${spec.port}`,
    `proto ${server.protocol === 'udp' ? 'udp4' : 'tcp4-server'}`,
    'dev tun0',
    'dev-type tun',
    'topology subnet',
    `server ${server.slice.network} ${netmask(server.slice.prefixLength)}`,
    `push "route ${toAddress(arena.network)} ${netmask(arena.prefixLength)}"`,
    'keepalive 10 60',
    `max-clients ${spec.maxClients}`,
    `ca ${pki}/ca.crt`,
    `cert ${pki}/server.crt`,
    `key ${pki}/server.key`,
    `tls-crypt ${pki}/tls-crypt.key`,
    // Read at every connection and renegotiation: the API re-signs it when it revokes a player,
    // and a renegotiation every 10 minutes cuts a revoked player's session within that time.
    `crl-verify ${pki}/crl.pem`,
    'reneg-sec 600',
    ...OPENVPN_SERVER_TLS,
    'script-security 2',
    `setenv PROTOCOL ${server.protocol}`,
    `setenv SERVER_NAME ${server.name}`,
    `setenv API_INTERNAL_URL ${options.apiInternalUrl}`,
    `setenv EG_ETC ${etc}`,
    `setenv EG_RUN ${run}`,
    // client-connect answers through a file there; the root filesystem is read-only.
    `tmp-dir ${run}/openvpn`,
    `client-connect "/bin/sh ${etc}/server/client-connect.sh"`,
    `client-disconnect "/bin/sh ${etc}/server/client-disconnect.sh"`,
    'persist-key',
    'persist-tun',
    ...(server.protocol === 'udp' ? ['explicit-exit-notify 1'] : []),
    'verb 3',
    '',
  ].join('\n');
}

/** The servers' configurations and scripts (the image runs what is here: one source of truth). */
export function serverConfigMapFor(
  pool: VpnPool,
  arena: ArenaSubnet,
  apiInternalUrl: string,
  checker: Buffer,
): V1ConfigMap {
  const data: Record<string, string> = { ...SCRIPTS, [CHECKER_FILE]: checker.toString('utf8') };
  for (const server of serverSlices(pool, arena)) {
    data[`${server.name}.conf`] = serverConfig(pool, server, arena, { apiInternalUrl });
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: childMetadata(pool, serverConfigMapName(pool)),
    data,
  };
}

export interface DeploymentOptions {
  image: string;
  /** The NetworkAttachmentDefinition of the arena (Multus). */
  arenaNetwork: string;
  arena: ArenaSubnet;
  /** The API's internal Service (hooks and the agents' endpoint), e.g. http://eg-api-internal:8089 */
  apiInternalUrl: string;
  /** The service checker's bundle (operator/dist/vpn-checker.cjs), shipped in the server ConfigMap. */
  checker: Buffer;
}

/** What a server runs: its OpenVPN configuration and the scripts (the server ConfigMap's part). */
export function serverConfigDigest(pool: VpnPool, server: VpnServer, options: DeploymentOptions): string {
  const config = serverConfig(pool, server, options.arena, { apiInternalUrl: options.apiInternalUrl });
  return createHash('sha256')
    .update(JSON.stringify([config, SCRIPTS]))
    .update(options.checker)
    .digest('hex')
    .slice(0, 16);
}

/**
 * One server: a pod with the OpenVPN image, attached to the arena with its router address, the
 * PKI Secret, its configuration and the access ConfigMap mounted. Not privileged: OpenVPN needs
 * NET_ADMIN and the node's /dev/net/tun (a hostPath of that one character device; the runtimes'
 * default device rules let a container open it), so the namespace must allow the `privileged`
 * Pod Security level. OpenVPN reads its configuration once: the digest annotation restarts the
 * pod when the configuration or the scripts change.
 */
export function deploymentFor(pool: VpnPool, server: VpnServer, options: DeploymentOptions): V1Deployment {
  const labels = {
    ...poolLabels(pool, 'vpn-server'),
    [POOL_LABELS.server]: server.name,
    [POOL_LABELS.protocol]: server.protocol,
  };
  const spec = pool.spec[server.protocol];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { ...childMetadata(pool, server.name), labels },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' }, // one pod holds the router address at a time
      selector: { matchLabels: { [POOL_LABELS.server]: server.name } },
      template: {
        metadata: {
          labels,
          annotations: {
            [CONFIG_DIGEST_ANNOTATION]: serverConfigDigest(pool, server, options),
            'k8s.v1.cni.cncf.io/networks': JSON.stringify([
              {
                name: options.arenaNetwork,
                interface: 'arena0',
                ips: [`${server.routerAddress}/${options.arena.prefixLength}`],
              },
            ]),
          },
        },
        spec: {
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 10,
          containers: [
            {
              name: 'openvpn',
              image: options.image,
              command: ['/bin/sh', '/etc/exploit-grid/server/entrypoint.sh'],
              env: [
                { name: 'SERVER_NAME', value: server.name },
                { name: 'PROTOCOL', value: server.protocol },
                { name: 'CLIENT_SUBNET', value: server.slice.cidr },
                { name: 'ROUTER_ADDRESS', value: server.routerAddress },
                { name: 'API_INTERNAL_URL', value: options.apiInternalUrl },
              ],
              ports: [
                {
                  name: 'vpn',
                  containerPort: spec.port,
                  protocol: server.protocol === 'udp' ? 'UDP' : 'TCP',
                },
              ],
              securityContext: {
                capabilities: { drop: ['ALL'], add: [...SERVER_CAPABILITIES] },
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
              },
              readinessProbe: {
                exec: { command: ['/bin/sh', '/etc/exploit-grid/server/ready.sh'] },
                periodSeconds: 5,
              },
              // OpenVPN, the sync loops and the service checker (128 checks at once, each answer up to
              // 256 KiB held while it is told to the API: about 220 MB at worst).
              resources: { requests: { cpu: '100m', memory: '96Mi' }, limits: { memory: '512Mi' } },
              volumeMounts: [
                { name: 'pki', mountPath: '/etc/exploit-grid/pki', readOnly: true },
                { name: 'server', mountPath: '/etc/exploit-grid/server', readOnly: true },
                { name: 'access', mountPath: '/etc/exploit-grid/access', readOnly: true },
                { name: 'tun', mountPath: '/dev/net/tun' },
                { name: 'run', mountPath: '/run' },
              ],
            },
          ],
          volumes: [
            { name: 'pki', secret: { secretName: pkiSecretName(pool), defaultMode: 0o400 } },
            { name: 'server', configMap: { name: serverConfigMapName(pool) } },
            { name: 'access', configMap: { name: accessConfigMapName(pool) } },
            { name: 'tun', hostPath: { path: '/dev/net/tun', type: 'CharDevice' } },
            { name: 'run', emptyDir: { medium: 'Memory' } },
          ],
        },
      },
    },
  };
}

/** A Service per protocol, spreading players over its servers (a flow stays on one pod). */
export function servicesFor(pool: VpnPool): V1Service[] {
  return PROTOCOLS.map((protocol) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: childMetadata(pool, serviceName(pool, protocol)),
    spec: {
      type: pool.spec[protocol].serviceType,
      selector: { [POOL_LABELS.pool]: pool.metadata.name, [POOL_LABELS.protocol]: protocol },
      ports: [
        {
          name: `openvpn-${protocol}`,
          port: pool.spec[protocol].port,
          targetPort: pool.spec[protocol].port,
          protocol: protocol === 'udp' ? 'UDP' : 'TCP',
        },
      ],
      ...(pool.spec[protocol].serviceType === 'ClusterIP' ? {} : { externalTrafficPolicy: 'Local' }),
    },
  }));
}

export interface AccessConfig {
  owners: Record<string, string[]>;
  windows: { source: string; box: string; until: string }[];
}

/** Who may reach which box: each owner's boxes, and each open attack window (docs/kubernetes.md). */
export function accessConfigFor(boxes: readonly Box[], now: Date): AccessConfig {
  const owners: Record<string, string[]> = {};
  const windows: AccessConfig['windows'] = [];
  const sorted = [...boxes].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  for (const box of sorted) {
    const address = box.metadata.annotations?.[ANNOTATIONS.address];
    if (!address || box.metadata.deletionTimestamp) continue;
    (owners[box.spec.owner.id] ??= []).push(address);
    for (const window of openWindows(box, now)) {
      windows.push({ source: window.sourceAddress, box: address, until: window.until });
    }
  }
  return { owners, windows };
}

export function accessConfigMapFor(pool: VpnPool, boxes: readonly Box[], now: Date): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: childMetadata(pool, accessConfigMapName(pool)),
    data: { 'access.json': `${JSON.stringify(accessConfigFor(boxes, now))}\n` },
  };
}

/** The pool's PKI (made once, when the Secret is missing; never rewritten by the operator). */
export async function pkiSecretFor(pool: VpnPool): Promise<V1Secret> {
  const { pki, ca } = await VpnPki.create(`Exploit Grid VPN CA (${pool.metadata.name})`);
  const server = await pki.issueServer(vpnServerName(pool));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: childMetadata(pool, pkiSecretName(pool)),
    type: 'Opaque',
    stringData: {
      'ca.crt': ca.certificatePem,
      'ca.key': ca.privateKeyPem,
      'server.crt': server.certificatePem,
      'server.key': server.privateKeyPem,
      'tls-crypt.key': newTlsCryptKey(),
      'crl.pem': await pki.crl([]),
      'hook-token': randomBytes(32).toString('base64url'),
    },
  };
}

export interface ObservedPool {
  /** Ready servers per protocol (Deployments with a ready pod). */
  readyServers: Record<Protocol, number>;
  /** The Services' external address (or cluster IP) per protocol, when known. */
  serviceAddress: Partial<Record<Protocol, string>>;
}

/**
 * The pool's status: per protocol ready servers, clients (as the API reported them), the
 * clients admitted (maxClients × ready servers), address and summary; the pool's capacity:
 * FULL at fullPercent of what it admits or with no ready server, LIMITED at limitedPercent.
 */
export function vpnPoolStatusFor(
  pool: VpnPool,
  observed: ObservedPool,
  now: Date,
  problem?: { reason: string; message: string },
): VpnPoolStatus {
  const perProtocol = {} as Record<Protocol, ServerStatus>;
  let clients = 0;
  let admitted = 0;
  for (const protocol of PROTOCOLS) {
    const ready = observed.readyServers[protocol];
    const reported = pool.status?.[protocol]?.clients ?? 0;
    const max = pool.spec[protocol].maxClients * ready;
    clients += reported;
    admitted += max;
    const address = pool.spec.publicHost ?? observed.serviceAddress[protocol];
    perProtocol[protocol] = {
      readyReplicas: ready,
      maxClients: max,
      ...(address ? { address: `${address}:${pool.spec[protocol].port}` } : {}),
      summary: `${reported}/${max}`,
    };
  }
  const { limitedPercent, fullPercent } = pool.spec.thresholds;
  const used = admitted === 0 ? 100 : (clients * 100) / admitted;
  const capacity =
    admitted === 0 || used >= fullPercent ? 'FULL' : used >= limitedPercent ? 'LIMITED' : 'AVAILABLE';
  const before = pool.status?.conditions?.find((c) => c.type === 'Ready');
  const readyStatus: Condition['status'] = problem ? 'False' : admitted > 0 ? 'True' : 'False';
  const ready: Condition = {
    type: 'Ready',
    status: readyStatus,
    observedGeneration: pool.metadata.generation,
    lastTransitionTime:
      before && before.status === readyStatus ? before.lastTransitionTime : now.toISOString(),
    reason: problem?.reason ?? (admitted > 0 ? 'ServersReady' : 'NoServerReady'),
    message:
      problem?.message ??
      (admitted > 0
        ? `${observed.readyServers.udp} UDP and ${observed.readyServers.tcp} TCP servers ready.`
        : 'No VPN server is ready yet.'),
  };
  return {
    capacity,
    clients,
    udp: perProtocol.udp,
    tcp: perProtocol.tcp,
    observedGeneration: pool.metadata.generation,
    conditions: [ready],
  };
}
