import path from 'node:path';
import { z } from 'zod';
import { PAYMENT_PROVIDERS } from './contracts/constants.ts';
import { GRID_TIMINGS } from './contracts/grid.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(0, 'must be between 0 and 65535')
  .max(65535, 'must be between 0 and 65535');

const postgresUrl = z
  .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' })
  .optional();

const ipv4Network = z
  .string()
  .regex(/^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/, 'must be an IPv4 network like 10.66.0.0/16');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
/** A mailbox staff read (a bare address; `localhost` domains allowed for the embedded default). */
const email = z
  .string()
  .max(254)
  .regex(/^[^\s@<>",;]+@[a-z0-9.-]+$/i, 'must be an email address like security@example.com');

/** The environment variables the API reads, with their defaults. Documented in README.md. */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: port.default(3000),
    DATA_DIR: z.string().min(1).default('.data'),
    API_USER: z
      .string()
      .regex(/^[a-z_][a-z0-9_-]{0,31}$/, 'must be a user name like exploit-grid')
      .default('exploit-grid'),
    DATABASE_URL: postgresUrl,
    PUBLIC_URL: httpUrl.optional(),
    LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
    PORTAL_DIST: z.string().min(1).optional(),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
    MAIL_FROM: z.string().min(3).default('Exploit Grid <no-reply@localhost>'),
    STAFF_EMAIL: email.default('staff@localhost'),
    SECURITY_EMAIL: email.optional(),
    CAREERS_EMAIL: email.optional(),
    SECURITY_PGP_KEY_FILE: z.string().min(1).max(4096).optional(),
    TRUST_PROXY: z
      .string()
      .regex(
        /^(false|true|\d+|[0-9a-f.:/, ]+|loopback|linklocal|uniquelocal)$/i,
        'must be false, true, a hop count or addresses',
      )
      .default('false'),
    ARGON2_MEMORY_KIB: z.coerce.number().int().min(8192).max(1_048_576).default(65_536),
    ARGON2_TIME_COST: z.coerce.number().int().min(1).max(10).default(3),
    HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    USER_CALLS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(120),
    STARTING_FREE_CREDITS: z.coerce
      .number({ error: 'must be a number of credits' })
      .min(0, 'must not be negative')
      .max(1_000_000, 'must be at most 1000000')
      .multipleOf(0.01, 'must have at most 2 decimals')
      .default(100),
    ORCHESTRATOR: z
      .enum(['local', 'kubernetes', 'none'], { error: 'must be local, kubernetes or none' })
      .default('local'),
    KUBE_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes namespace name')
      .max(63, 'must be at most 63 characters')
      .optional(),
    BOX_CONTAINER_DISK: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._/:@-]*$/, 'must be a container image reference')
      .max(255)
      .optional(),
    BOX_SNAPSHOT_CLASS: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Kubernetes object name')
      .max(253)
      .optional(),
    VPN_POOL_NAME: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes object name')
      .max(63, 'must be at most 63 characters')
      .default('arena'),
    BOX_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9]{1,5}$/, 'must be 2 to 6 lowercase letters or digits, starting with a letter')
      .default('eg'),
    BOX_IMAGE_DIR: z.string().min(1).optional(),
    BOX_IMAGE_SUITE: z
      .string()
      .regex(/^[a-z]+$/, 'must be a Debian suite name like bookworm')
      .default('bookworm'),
    BOX_IMAGE_MIRROR: httpUrl.optional(),
    BOX_MEMORY_MIB: z.coerce.number().int().min(64).max(65_536).default(512),
    BOX_CPU_MILLIS: z.coerce.number().int().min(50).max(64_000).default(500),
    BOX_PIDS_MAX: z.coerce.number().int().min(32).max(100_000).default(512),
    BOX_DISK_MIB: z.coerce.number().int().min(256).max(1_048_576).default(2048),
    PLAYER_CPUS: z
      .string()
      .trim()
      .regex(
        /^(auto|all|\d{1,4}(-\d{1,4})?(,\d{1,4}(-\d{1,4})?)*)$/,
        'PLAYER_CPUS must be auto, all, or a list of CPUs such as 1-3',
      )
      .default('auto'),
    BOX_MINIMUM_CHARGE_MINUTES: z.coerce.number().int().min(1).max(60).default(5),
    BOX_STOP_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
    BOX_TICK_MS: z.coerce.number().int().min(200).max(60_000).default(2_000),
    // At most 16 entries in all: what the Box resource holds (crds/box.yaml).
    BOX_LOADOUT_IN: z.coerce.number().int().min(0).max(8).default(3),
    BOX_LOADOUT_UP: z.coerce.number().int().min(0).max(8).default(2),
    BOX_WARM_POOL: z.coerce.number().int().min(0).max(64).default(2),
    BASIC_DAILY_LIMIT_MINUTES: z.coerce.number().int().min(1).max(1440).default(60),
    ATTACK_TIME_LIMIT_MINUTES: z.coerce.number().min(0.05).max(1440).default(30),
    MMR_K: z.coerce.number().int().min(1).max(400).default(32),
    FOOTHOLD_SCORE: z.coerce.number().min(0).max(1).default(0.5),
    GRID_PRESENCE_GRACE_SECONDS: z.coerce.number().min(0).max(300).default(10),
    MATCH_TICK_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
    MATCH_PROPOSAL_SECONDS: z.coerce.number().min(1).max(600).default(30),
    MATCH_NO_MATCH_SECONDS: z.coerce.number().min(0.1).max(3600).default(120),
    MATCH_WINDOW_BASE: z.coerce.number().int().min(0).max(5000).default(100),
    MATCH_WINDOW_PER_SECOND: z.coerce.number().min(0).max(5000).default(25),
    MATCH_WINDOW_CAP: z.coerce.number().int().min(0).max(10_000).default(800),
    AGENT_SILENCE_SECONDS: z.coerce.number().int().min(5).max(3600).default(30),
    SERVICE_CHECK_INTERVAL_SECONDS: z.coerce.number().min(1).max(300).default(15),
    SERVICE_GRACE_SECONDS: z.coerce.number().min(1).max(3600).default(60),
    AGENT_PORT: z.coerce.number().int().min(1).max(65_535).default(8089),
    ARENA_SUBNET: ipv4Network.default('10.66.0.0/16'),
    TRANSIT_SUBNET: ipv4Network.default('10.65.0.0/30'),
    VPN_UDP_SUBNET: ipv4Network.default('10.8.0.0/16'),
    VPN_TCP_SUBNET: ipv4Network.default('10.9.0.0/16'),
    VPN_PUBLIC_HOST: z.string().min(1).max(253).optional(),
    VPN_LISTEN_HOST: z.string().min(1).default('0.0.0.0'),
    VPN_UDP_PORT: port.default(1194),
    VPN_TCP_PORT: port.default(1194),
    VPN_MAX_CLIENTS: z.coerce.number().int().min(1).max(65_000).default(250),
    VPN_LIMITED_PERCENT: z.coerce.number().int().min(1).max(100).default(80),
    GOOGLE_CLIENT_ID: z.string().min(1).optional(),
    GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
    GOOGLE_AUTHORIZATION_URL: httpUrl.default('https://accounts.google.com/o/oauth2/v2/auth'),
    GOOGLE_TOKEN_URL: httpUrl.default('https://www.googleapis.com/oauth2/v4/token'),
    GOOGLE_USERINFO_URL: httpUrl.default('https://www.googleapis.com/oauth2/v3/userinfo'),
    GITHUB_CLIENT_ID: z.string().min(1).optional(),
    GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
    GITHUB_AUTHORIZATION_URL: httpUrl.default('https://github.com/login/oauth/authorize'),
    GITHUB_TOKEN_URL: httpUrl.default('https://github.com/login/oauth/access_token'),
    GITHUB_API_URL: httpUrl.default('https://api.github.com'),
    LINKEDIN_CLIENT_ID: z.string().min(1).optional(),
    LINKEDIN_CLIENT_SECRET: z.string().min(1).optional(),
    LINKEDIN_ISSUER: httpUrl.default('https://www.linkedin.com/oauth'),
    PAYMENT_PROVIDER: z.enum(PAYMENT_PROVIDERS, { error: 'must be stripe or paddle' }).optional(),
    STRIPE_SECRET_KEY: z
      .string()
      .regex(
        /^(sk|rk)_(test|live)_[A-Za-z0-9]{1,250}$/,
        'must be a Stripe secret key (sk_live_..., sk_test_...)',
      )
      .optional(),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]{1,250}$/, 'must be a Stripe webhook signing secret (whsec_...)')
      .optional(),
    STRIPE_API_URL: httpUrl.optional(),
    PADDLE_API_KEY: z
      .string()
      .regex(/^[A-Za-z0-9_]{20,250}$/, 'must be a Paddle API key (pdl_live_apikey_..., pdl_sdbx_apikey_...)')
      .optional(),
    PADDLE_WEBHOOK_SECRET: z
      .string()
      .regex(/^[A-Za-z0-9_]{8,250}$/, 'must be the secret key of a Paddle notification destination')
      .optional(),
    PADDLE_CLIENT_TOKEN: z
      .string()
      .regex(/^(live|test)_[A-Za-z0-9]{8,250}$/, 'must be a Paddle client-side token (live_... or test_...)')
      .optional(),
    PADDLE_ENVIRONMENT: z
      .enum(['sandbox', 'production'], { error: 'must be sandbox or production' })
      .default('sandbox'),
    PADDLE_API_URL: httpUrl.optional(),
    PADDLE_PRICE_ID: z
      .string()
      .regex(/^pri_[a-z0-9]{8,64}$/, 'must be a Paddle price id (pri_...)')
      .optional(),
  })
  .superRefine((env, ctx) => {
    // A provider is either configured whole or not at all: half a configuration would take money that
    // no webhook could credit, or refuse checkouts for a reason nobody sees.
    const stripeKeys = ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const;
    const paddleKeys = ['PADDLE_API_KEY', 'PADDLE_WEBHOOK_SECRET', 'PADDLE_CLIENT_TOKEN'] as const;
    for (const [provider, keys] of [
      ['stripe', stripeKeys],
      ['paddle', paddleKeys],
    ] as const) {
      const set = keys.filter((key) => env[key] !== undefined);
      // Stripe is also the default: choosing it says nothing about whether there are keys.
      const chosen = env.PAYMENT_PROVIDER === provider && provider !== 'stripe';
      if (set.length === keys.length || (set.length === 0 && !chosen)) continue;
      for (const key of keys)
        if (env[key] === undefined)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: chosen
              ? `is required with PAYMENT_PROVIDER=${provider}`
              : `is required with ${set.join(' and ')}`,
          });
    }
    // In production mail must really go out, and links and cookies need the real address.
    if (env.NODE_ENV !== 'production') return;
    if (!env.SMTP_URL)
      ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'is required when NODE_ENV=production' });
    if (!env.PUBLIC_URL?.startsWith('https://'))
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_URL'],
        message: 'must be an https:// URL when NODE_ENV=production',
      });
  })
  .transform((env) => ({
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    dataDir: path.resolve(env.DATA_DIR),
    /** Started as root, the API runs as this user; the host work stays in a root process beside it. */
    apiUser: env.API_USER,
    databaseUrl: env.DATABASE_URL,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL,
    // Readable lines on a terminal, JSON everywhere else (log collectors, CI).
    logFormat: env.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    portalDist: env.PORTAL_DIST
      ? path.resolve(env.PORTAL_DIST)
      : path.resolve(import.meta.dirname, '../../portal/dist'),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    /** Unset: generated once and kept in DATA_DIR (one API replica); set it when running several. */
    jwtSecret: env.JWT_SECRET,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    /** Where the contact form's messages go; the security and careers mail too unless set apart. */
    staffEmail: env.STAFF_EMAIL,
    /** Where vulnerability reports are mailed. */
    securityEmail: env.SECURITY_EMAIL ?? env.STAFF_EMAIL,
    /**
     * An armored OpenPGP private key (unprotected) that signs security.txt and whose public half is
     * /pgp-key.asc; unset: a key generated on the first start and kept sealed in the database.
     */
    securityPgpKeyFile: env.SECURITY_PGP_KEY_FILE ? path.resolve(env.SECURITY_PGP_KEY_FILE) : undefined,
    /** Where job applications are mailed. */
    careersEmail: env.CAREERS_EMAIL ?? env.STAFF_EMAIL,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    argon2: { memoryKiB: env.ARGON2_MEMORY_KIB, timeCost: env.ARGON2_TIME_COST },
    hashConcurrency: env.HASH_CONCURRENCY,
    /** Calls that change something (POST, PUT, PATCH, DELETE) one signed-in user may make a minute. */
    userCallsPerMinute: env.USER_CALLS_PER_MINUTE,
    /** Free credits (hundredths) every new account starts with, so a new player can run a box. */
    startingFreeCreditsCents: Math.round(env.STARTING_FREE_CREDITS * 100),
    orchestrator: env.ORCHESTRATOR,
    boxes: {
      prefix: env.BOX_PREFIX,
      imageDir: path.resolve(env.BOX_IMAGE_DIR ?? path.join(env.DATA_DIR, 'images')),
      imageSuite: env.BOX_IMAGE_SUITE,
      imageMirror: env.BOX_IMAGE_MIRROR,
      resources: { memoryMiB: env.BOX_MEMORY_MIB, cpuMillis: env.BOX_CPU_MILLIS, pids: env.BOX_PIDS_MAX },
      diskMiB: env.BOX_DISK_MIB,
      playerCpus: env.PLAYER_CPUS,
      minimumChargeMinutes: env.BOX_MINIMUM_CHARGE_MINUTES,
      stopTimeoutMs: env.BOX_STOP_TIMEOUT_MS,
      tickMs: env.BOX_TICK_MS,
      loadout: { in: env.BOX_LOADOUT_IN, up: env.BOX_LOADOUT_UP },
      warmPool: env.BOX_WARM_POOL,
      basicDailyLimitSeconds: env.BASIC_DAILY_LIMIT_MINUTES * 60,
      arenaSubnet: env.ARENA_SUBNET,
      transitSubnet: env.TRANSIT_SUBNET,
      agentPort: env.AGENT_PORT,
    },
    attacks: {
      timeLimitMs: Math.round(env.ATTACK_TIME_LIMIT_MINUTES * 60_000),
      mmrK: env.MMR_K,
      footholdScore: env.FOOTHOLD_SCORE,
      agentSilenceMs: env.AGENT_SILENCE_SECONDS * 1000,
      serviceCheckIntervalMs: Math.round(env.SERVICE_CHECK_INTERVAL_SECONDS * 1000),
      serviceGraceMs: Math.round(env.SERVICE_GRACE_SECONDS * 1000),
    },
    grid: {
      presenceGraceMs: env.GRID_PRESENCE_GRACE_SECONDS * 1000,
      matchTickMs: env.MATCH_TICK_MS,
      proposalMs: Math.round(env.MATCH_PROPOSAL_SECONDS * 1000),
      noMatchAfterMs: Math.round(env.MATCH_NO_MATCH_SECONDS * 1000),
      window: {
        base: env.MATCH_WINDOW_BASE,
        perSecond: env.MATCH_WINDOW_PER_SECOND,
        cap: env.MATCH_WINDOW_CAP,
      },
      /** Core-app section 9: PVP prompts 30 s, target info cached 5 minutes. */
      pvpRequestMs: GRID_TIMINGS.pvpRequestMs,
      targetInfoCacheMs: GRID_TIMINGS.targetInfoCacheMs,
    },
    kubernetes: {
      /** Where the Box and VpnPool resources live (default: the pod's own namespace, else default). */
      namespace: env.KUBE_NAMESPACE,
      poolName: env.VPN_POOL_NAME,
      /** The boxes' KubeVirt container disk image (default: the Box resource's default). */
      boxImage: env.BOX_CONTAINER_DISK,
      /** The VolumeSnapshotClass of the boxes' snapshots (default: the cluster's default). */
      snapshotClass: env.BOX_SNAPSHOT_CLASS,
    },
    vpn: {
      udpSubnet: env.VPN_UDP_SUBNET,
      tcpSubnet: env.VPN_TCP_SUBNET,
      /** The address players' .ovpn files point at: the host of PUBLIC_URL unless set. */
      // (localhost becomes 127.0.0.1: OpenVPN would try ::1 first and wait a minute there).
      publicHost:
        env.VPN_PUBLIC_HOST ??
        new URL(env.PUBLIC_URL ?? 'http://localhost').hostname.replace(/^localhost$/, '127.0.0.1'),
      listenHost: env.VPN_LISTEN_HOST,
      udpPort: env.VPN_UDP_PORT,
      tcpPort: env.VPN_TCP_PORT,
      maxClients: env.VPN_MAX_CLIENTS,
      limitedPercent: env.VPN_LIMITED_PERCENT,
    },
    social: {
      google:
        env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET
          ? {
              clientId: env.GOOGLE_CLIENT_ID,
              clientSecret: env.GOOGLE_CLIENT_SECRET,
              authorizationUrl: env.GOOGLE_AUTHORIZATION_URL,
              tokenUrl: env.GOOGLE_TOKEN_URL,
              userInfoUrl: env.GOOGLE_USERINFO_URL,
            }
          : undefined,
      github:
        env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET
          ? {
              clientId: env.GITHUB_CLIENT_ID,
              clientSecret: env.GITHUB_CLIENT_SECRET,
              authorizationUrl: env.GITHUB_AUTHORIZATION_URL,
              tokenUrl: env.GITHUB_TOKEN_URL,
              apiUrl: env.GITHUB_API_URL.replace(/\/+$/, ''),
            }
          : undefined,
      linkedin:
        env.LINKEDIN_CLIENT_ID && env.LINKEDIN_CLIENT_SECRET
          ? {
              clientId: env.LINKEDIN_CLIENT_ID,
              clientSecret: env.LINKEDIN_CLIENT_SECRET,
              issuer: env.LINKEDIN_ISSUER.replace(/\/+$/, ''),
            }
          : undefined,
    },
    payments: paymentSettings(env),
  }));

/**
 * The payment provider and its keys (docs/payments.md). Checkout goes through PAYMENT_PROVIDER, else the one
 * configured, else stripe; without its keys `enabled` is false and nothing is charged. Webhooks are heard
 * from every configured provider (refunds of the other one's purchases still arrive after a switch).
 */
function paymentSettings(env: {
  PAYMENT_PROVIDER?: PaymentProviderName | undefined;
  STRIPE_SECRET_KEY?: string | undefined;
  STRIPE_WEBHOOK_SECRET?: string | undefined;
  STRIPE_API_URL?: string | undefined;
  PADDLE_API_KEY?: string | undefined;
  PADDLE_WEBHOOK_SECRET?: string | undefined;
  PADDLE_CLIENT_TOKEN?: string | undefined;
  PADDLE_ENVIRONMENT: 'sandbox' | 'production';
  PADDLE_API_URL?: string | undefined;
  PADDLE_PRICE_ID?: string | undefined;
}) {
  const stripe =
    env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET
      ? {
          secretKey: env.STRIPE_SECRET_KEY,
          webhookSecret: env.STRIPE_WEBHOOK_SECRET,
          /** Where the SDK sends its calls instead of Stripe's API (tests: stripe-mock). */
          apiUrl: env.STRIPE_API_URL?.replace(/\/+$/, ''),
        }
      : undefined;
  const paddle =
    env.PADDLE_API_KEY && env.PADDLE_WEBHOOK_SECRET && env.PADDLE_CLIENT_TOKEN
      ? {
          apiKey: env.PADDLE_API_KEY,
          webhookSecret: env.PADDLE_WEBHOOK_SECRET,
          clientToken: env.PADDLE_CLIENT_TOKEN,
          environment: env.PADDLE_ENVIRONMENT,
          /** Where the SDK sends its calls instead of Paddle's API (tests: a local fake). */
          apiUrl: env.PADDLE_API_URL?.replace(/\/+$/, ''),
          /** A catalog price of 1 USD a unit; unset: each transaction carries a price of its own. */
          priceId: env.PADDLE_PRICE_ID,
        }
      : undefined;
  const provider: PaymentProviderName = env.PAYMENT_PROVIDER ?? (paddle && !stripe ? 'paddle' : 'stripe');
  return { provider, enabled: provider === 'stripe' ? !!stripe : !!paddle, stripe, paddle };
}

type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

function parseTrustProxy(value: string): boolean | number | string {
  if (/^false$/i.test(value)) return false;
  if (/^true$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

export type Config = z.output<typeof configSchema>;

/** Settings whose values are credentials (or URLs that may embed one). */
const SECRET_KEYS = /SECRET|PASSWORD|API_KEY|^DATABASE_URL$|^SMTP_URL$/;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads the configuration from an environment. Empty strings count as unset, so
 * `PORT= make run` behaves like no PORT at all. Throws ConfigError listing every bad value.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const keys = Object.keys(configSchema.in.shape) as (keyof typeof configSchema.in.shape)[];
  const input = Object.fromEntries(
    keys.map((key) => [key, environment[key] === '' ? undefined : environment[key]]),
  );
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? 'configuration');
      const value = environment[key];
      // Never echo a credential into a terminal or a log collector.
      const shown = SECRET_KEYS.test(key) && value ? '[hidden]' : JSON.stringify(value ?? '');
      return `  ${key}=${shown}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
