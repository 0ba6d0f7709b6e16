import { createHash } from 'node:crypto';

/**
 * How a box agent's secret is kept (`boxes.agent_token_hash`): made with the box, checked on every report the
 * agent sends (attacks/ingest.ts).
 */
export const agentTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
