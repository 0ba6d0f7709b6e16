import { pino } from 'pino';
import type { Logger } from '../logger.ts';

/** Quiet unless TEST_LOG_LEVEL is set. */
export const testLogger: Logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
