import { pino, type Logger } from 'pino';
import type { Config } from './config.ts';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'api' },
    // Never log credentials, whatever a caller passes in.
    redact: {
      paths: ['*.password', '*.token', '*.secret', '*.authorization', '*.cookie'],
      censor: '[redacted]',
    },
    ...(config.logFormat === 'pretty'
      ? {
          transport: {
            target: 'pino-pretty',
            options: { ignore: 'pid,hostname,service', translateTime: 'HH:MM:ss.l', singleLine: true },
          },
        }
      : {}),
  });
}
