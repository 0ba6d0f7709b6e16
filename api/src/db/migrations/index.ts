import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_extensions } from './Migration20261122000000_extensions.ts';
import { Migration20261122010000_accounts } from './Migration20261122010000_accounts.ts';
import { Migration20261122020000_signup_hardening } from './Migration20261122020000_signup_hardening.ts';
import { Migration20261122030000_credit_ledger } from './Migration20261122030000_credit_ledger.ts';
import { Migration20261122040000_boxes } from './Migration20261122040000_boxes.ts';
import { Migration20261122050000_attacks } from './Migration20261122050000_attacks.ts';
import { Migration20261122060000_agent } from './Migration20261122060000_agent.ts';
import { Migration20261122070000_grid } from './Migration20261122070000_grid.ts';
import { Migration20261122080000_leaderboard } from './Migration20261122080000_leaderboard.ts';
import { Migration20261122090000_chat } from './Migration20261122090000_chat.ts';
import { Migration20261125000000_referee } from './Migration20261125000000_referee.ts';
import { Migration20261125010000_fair_play } from './Migration20261125010000_fair_play.ts';
import { Migration20261125020000_agent_witness } from './Migration20261125020000_agent_witness.ts';
import { Migration20261126050000_bans } from './Migration20261126050000_bans.ts';
import { Migration20261126100000_commerce } from './Migration20261126100000_commerce.ts';
import { Migration20261126110000_purchase_payments } from './Migration20261126110000_purchase_payments.ts';
import { Migration20261126120000_gifts } from './Migration20261126120000_gifts.ts';
import { Migration20261127100000_onboarding } from './Migration20261127100000_onboarding.ts';
import { Migration20261128100000_loadouts } from './Migration20261128100000_loadouts.ts';
import { Migration20261129100000_service_checks } from './Migration20261129100000_service_checks.ts';
import { Migration20261129110000_box_snapshots } from './Migration20261129110000_box_snapshots.ts';
import { Migration20261130100000_consent } from './Migration20261130100000_consent.ts';
import { Migration20261130110000_contact } from './Migration20261130110000_contact.ts';
import { Migration20261130120000_security } from './Migration20261130120000_security.ts';
import { Migration20261130130000_careers } from './Migration20261130130000_careers.ts';

/**
 * Every migration, in order. Listed explicitly (not discovered from files) so the same
 * list works from TypeScript sources and from the built output.
 */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122000000_extensions', class: Migration20261122000000_extensions },
  { name: 'Migration20261122010000_accounts', class: Migration20261122010000_accounts },
  { name: 'Migration20261122020000_signup_hardening', class: Migration20261122020000_signup_hardening },
  { name: 'Migration20261122030000_credit_ledger', class: Migration20261122030000_credit_ledger },
  { name: 'Migration20261122040000_boxes', class: Migration20261122040000_boxes },
  { name: 'Migration20261122050000_attacks', class: Migration20261122050000_attacks },
  { name: 'Migration20261122060000_agent', class: Migration20261122060000_agent },
  { name: 'Migration20261122070000_grid', class: Migration20261122070000_grid },
  { name: 'Migration20261122080000_leaderboard', class: Migration20261122080000_leaderboard },
  { name: 'Migration20261122090000_chat', class: Migration20261122090000_chat },
  { name: 'Migration20261125000000_referee', class: Migration20261125000000_referee },
  { name: 'Migration20261125010000_fair_play', class: Migration20261125010000_fair_play },
  { name: 'Migration20261125020000_agent_witness', class: Migration20261125020000_agent_witness },
  { name: 'Migration20261126050000_bans', class: Migration20261126050000_bans },
  { name: 'Migration20261126100000_commerce', class: Migration20261126100000_commerce },
  { name: 'Migration20261126110000_purchase_payments', class: Migration20261126110000_purchase_payments },
  { name: 'Migration20261126120000_gifts', class: Migration20261126120000_gifts },
  { name: 'Migration20261127100000_onboarding', class: Migration20261127100000_onboarding },
  { name: 'Migration20261128100000_loadouts', class: Migration20261128100000_loadouts },
  { name: 'Migration20261129100000_service_checks', class: Migration20261129100000_service_checks },
  { name: 'Migration20261129110000_box_snapshots', class: Migration20261129110000_box_snapshots },
  { name: 'Migration20261130100000_consent', class: Migration20261130100000_consent },
  { name: 'Migration20261130110000_contact', class: Migration20261130110000_contact },
  { name: 'Migration20261130120000_security', class: Migration20261130120000_security },
  { name: 'Migration20261130130000_careers', class: Migration20261130130000_careers },
];
