import type { VpnProtocol } from '../contracts/boxes.ts';

/** The `.ovpn` file a stock OpenVPN client connects with: everything inline. */
export function clientConfig(options: {
  protocol: VpnProtocol;
  remoteHost: string;
  remotePort: number;
  serverName: string;
  caPem: string;
  certificatePem: string;
  privateKeyPem: string;
  tlsCryptKey: string;
  label: string;
}): string {
  const o = options;
  return [
    `# Exploit Grid VPN (${o.protocol}) for ${o.label}`,
    `# Connect with: sudo openvpn --config ${o.protocol.toLowerCase()}_${o.label}.ovpn`,
    'client',
    'dev tun',
    `proto ${o.protocol === 'UDP' ? 'udp' : 'tcp-client'}`,
    `remote ${o.remoteHost} ${o.remotePort}`,
    'resolv-retry infinite',
    'nobind',
    'persist-key',
    'persist-tun',
    'remote-cert-tls server',
    `verify-x509-name ${o.serverName} name`,
    'tls-version-min 1.2',
    'data-ciphers AES-256-GCM:AES-128-GCM:CHACHA20-POLY1305',
    ...(o.protocol === 'UDP' ? ['explicit-exit-notify 1'] : []),
    'verb 3',
    `<ca>\n${o.caPem.trim()}\n</ca>`,
    `<cert>\n${o.certificatePem.trim()}\n</cert>`,
    `<key>\n${o.privateKeyPem.trim()}\n</key>`,
    `<tls-crypt>\n${o.tlsCryptKey.trim()}\n</tls-crypt>`,
    '',
  ].join('\n');
}
