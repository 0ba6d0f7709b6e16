import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout, one object per event, with the controller and object in fields. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'operator' },
    redact: { paths: ['*.password', '*.rootPassword', '*.token', '*.agentToken'], censor: '[redacted]' },
  });
}
