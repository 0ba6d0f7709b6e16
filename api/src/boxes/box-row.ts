import type { BoxStatus, Tier } from '../contracts/index.ts';

/** A box as its service reads it: its row with its owner's handle and tier (SELECT_BOX). */
export interface BoxRow {
  id: string;
  user_id: string;
  slot: number;
  hostname: string;
  ip: string | null;
  desired_power: boolean;
  status: BoxStatus;
  status_reason: string | null;
  open_ports: Record<string, string>;
  ssh_password_enc: string;
  ssh_public_key: string | null;
  agent_token_enc: string | null;
  loadout: string[];
  accumulated_usage_seconds: string;
  last_powered_at: string | null;
  usage_counted_until: string | null;
  session_started_at: string | null;
  session_charged_minutes: number;
  handle: string;
  tier: Tier;
}

export const SELECT_BOX = `select b.*, u.handle, u.tier from boxes b join users u on u.id = b.user_id`;
