/**
 * GENERATED FILE: do not edit. Made by hack/generate-crd-types.ts from crds/box.yaml (Box v1alpha1), crds/vpnpool.yaml (VpnPool v1alpha1).
 * Change the CRD and run `make generate-crd-types`; `make lint` fails while this file is behind.
 */
export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        BoxSpec: {
            /**
             * @description Attackers who may reach the box, each until a time (attack windows).
             * @default []
             */
            attackWindows: {
                /** Format: uuid */
                attackId: string;
                /**
                 * Format: ipv4
                 * @description The attacker's VPN address.
                 */
                sourceAddress: string;
                /** Format: date-time */
                until: string;
            }[];
            /**
             * @description What the owner's tier gives the box.
             * @default {}
             */
            features: {
                /** @default false */
                persistentIp: boolean;
            };
            /** @description The box's hostname (a DNS label, `<handle>-box`). */
            hostname: string;
            /**
             * @description Container disk image of the box's Debian system (with the agent's prerequisites).
             * @default exploit-grid/box-debian:bookworm
             */
            image: string;
            /**
             * @description Ids of the catalogue entries (operator/catalogue) the box is given to defend, installed by cloud-init at its first boot.
             * @default []
             */
            loadout: string[];
            /** @description The player who owns the box. */
            owner: {
                handle: string;
                /** Format: uuid */
                id: string;
            };
            /**
             * @description The owner's current VPN addresses (kept by the API from the VPN sessions); they may reach the box.
             * @default []
             */
            ownerAddresses: string[];
            /**
             * @description Desired power state; On runs the VM (runStrategy Always), Off halts it.
             * @default Off
             * @enum {string}
             */
            power: "On" | "Off";
            /** @default {} */
            resources: {
                /**
                 * @description Thousandths of a CPU core.
                 * @default 500
                 */
                cpuMillis: number;
                /** @default 512 */
                memoryMiB: number;
            };
            /** @description Put the snapshot `snapshot` (a VolumeSnapshot in this namespace, of a box's disk) in place of the box's disk: the VM is halted, a new disk is made from it, the old one goes. Done once per `id` (status.restored says when). */
            restore?: {
                /** Format: uuid */
                id: string;
                /** @description The API's name of a box's snapshot, `snap-<snapshot id>`. */
                snapshot: string;
            };
            /** @description Secret in this namespace with the keys rootPassword and agentToken. */
            secretRef: {
                name: string;
            };
            /** @description The owner's SSH public key for root, if any. */
            sshPublicKey?: string;
        };
        BoxStatus: {
            conditions?: {
                /** Format: date-time */
                lastTransitionTime: string;
                message: string;
                /** Format: int64 */
                observedGeneration?: number;
                reason: string;
                /** @enum {string} */
                status: "True" | "False" | "Unknown";
                type: string;
            }[];
            /** @description The box's address on the arena network, reachable over the VPN. */
            ip?: string;
            /** Format: int64 */
            observedGeneration?: number;
            openPorts?: {
                [key: string]: string;
            };
            /**
             * @description Pending (not yet reconciled), Provisioning (VM starting), Running, Stopped, Crashed. The API maps them onto PROVISIONING, RUNNING, STOPPED and CRASHED.
             * @enum {string}
             */
            phase?: "Pending" | "Provisioning" | "Running" | "Stopped" | "Crashed";
            reason?: string;
            /** @description The last restore done (spec.restore's id), or why it could not be. */
            restored?: {
                error?: string;
                id?: string;
                snapshot?: string;
            };
        };
        VpnPoolSpec: {
            /** @description The Secret holding the pool's PKI (made by the operator when missing). */
            pkiSecretName?: string;
            /** @description The address written into players' .ovpn files (the Services' external address when unset). */
            publicHost?: string;
            /** @description One protocol's OpenVPN servers. */
            tcp: {
                /** @description VPN client addresses of this protocol (IPv4 CIDR, /8 to /24), routed to the arena without NAT. */
                clientSubnet: string;
                /**
                 * @description Clients one server admits.
                 * @default 250
                 */
                maxClients: number;
                /**
                 * @description The port players connect to (the Service's).
                 * @default 1194
                 */
                port: number;
                /** @default 1 */
                replicas: number;
                /**
                 * @default LoadBalancer
                 * @enum {string}
                 */
                serviceType: "LoadBalancer" | "NodePort" | "ClusterIP";
            };
            /**
             * @description When the pool counts as LIMITED and FULL (percent of the clients it admits).
             * @default {
             *       "limitedPercent": 80,
             *       "fullPercent": 100
             *     }
             */
            thresholds: {
                /** @default 100 */
                fullPercent: number;
                /** @default 80 */
                limitedPercent: number;
            };
            /** @description One protocol's OpenVPN servers. */
            udp: {
                /** @description VPN client addresses of this protocol (IPv4 CIDR, /8 to /24), routed to the arena without NAT. */
                clientSubnet: string;
                /**
                 * @description Clients one server admits.
                 * @default 250
                 */
                maxClients: number;
                /**
                 * @description The port players connect to (the Service's).
                 * @default 1194
                 */
                port: number;
                /** @default 1 */
                replicas: number;
                /**
                 * @default LoadBalancer
                 * @enum {string}
                 */
                serviceType: "LoadBalancer" | "NodePort" | "ClusterIP";
            };
        };
        VpnPoolStatus: {
            /** @enum {string} */
            capacity?: "AVAILABLE" | "LIMITED" | "FULL";
            /** @description Clients connected over both protocols. */
            clients?: number;
            conditions?: {
                /** Format: date-time */
                lastTransitionTime: string;
                message: string;
                /** Format: int64 */
                observedGeneration?: number;
                reason: string;
                /** @enum {string} */
                status: "True" | "False" | "Unknown";
                type: string;
            }[];
            /** Format: int64 */
            observedGeneration?: number;
            tcp?: {
                address?: string;
                clients?: number;
                maxClients?: number;
                readyReplicas?: number;
                /** @description clients/maxClients, for kubectl. */
                summary?: string;
            };
            udp?: {
                address?: string;
                clients?: number;
                maxClients?: number;
                readyReplicas?: number;
                /** @description clients/maxClients, for kubectl. */
                summary?: string;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
