import { readFileSync } from 'node:fs';

/** One way of a tracked connection, as the kernel prints it. */
export interface ConntrackTuple {
  src: string;
  dst: string;
  sport: number;
  dport: number;
}

/**
 * The TCP (IPv4) connections the kernel tracks in `pid`'s network namespace (`/proc/PID/net/nf_conntrack`),
 * each with its original tuple (as the connection was opened) and its reply tuple (as answers come back, after
 * any NAT). Empty when the kernel offers no such file or tracks nothing there. Read by the referee (a box's
 * own NAT) and by the local runtime's service checks (the router's).
 */
export function trackedTcp(pid: number): { original: ConntrackTuple; reply: ConntrackTuple }[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/net/nf_conntrack`, 'utf8');
  } catch {
    return [];
  }
  const tracked: { original: ConntrackTuple; reply: ConntrackTuple }[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('ipv4') || !line.includes(' tcp ')) continue;
    const src = [...line.matchAll(/\bsrc=(\S+)/g)].map((m) => m[1]!);
    const dst = [...line.matchAll(/\bdst=(\S+)/g)].map((m) => m[1]!);
    const sport = [...line.matchAll(/\bsport=(\d+)/g)].map((m) => Number(m[1]));
    const dport = [...line.matchAll(/\bdport=(\d+)/g)].map((m) => Number(m[1]));
    if (src.length < 2 || dst.length < 2 || sport.length < 2 || dport.length < 2) continue;
    tracked.push({
      original: { src: src[0]!, dst: dst[0]!, sport: sport[0]!, dport: dport[0]! },
      reply: { src: src[1]!, dst: dst[1]!, sport: sport[1]!, dport: dport[1]! },
    });
  }
  return tracked;
}
