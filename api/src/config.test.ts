import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  it('uses the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.port).to.equal(3000);
    expect(config.host).to.equal('127.0.0.1');
    expect(config.dataDir).to.equal(path.resolve('.data'));
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.publicUrl).to.equal('http://localhost:3000');
    expect(config.logLevel).to.equal('info');
  });

  it('reads every setting from the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      DATA_DIR: '/var/lib/eg',
      DATABASE_URL: 'postgres://u:p@db:5432/eg',
      PUBLIC_URL: 'https://grid.example/',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
    });
    expect(config).to.include({
      port: 8080,
      dataDir: '/var/lib/eg',
      databaseUrl: 'postgres://u:p@db:5432/eg',
      publicUrl: 'https://grid.example',
      logLevel: 'debug',
      logFormat: 'json',
    });
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' })).to.include({ port: 3000, databaseUrl: undefined });
  });

  it('refuses a port that is not a number, naming the variable and the value', () => {
    expect(() => loadConfig({ PORT: 'abc' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/PORT="abc": must be a number/);
  });

  it('refuses a port out of range', () => {
    expect(() => loadConfig({ PORT: '70000' })).to.throw(
      ConfigError,
      /PORT="70000": must be between 0 and 65535/,
    );
  });

  it('refuses a database URL of another scheme without echoing it (it may hold a password)', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x:hunter2@y/z' }))
      .to.throw(ConfigError, /DATABASE_URL=\[hidden\]: must be a postgres:\/\/ or postgresql:\/\/ URL/)
      .with.property('message')
      .that.does.not.include('hunter2');
  });

  it('sends the forms to the staff mailbox unless security or careers have their own, and refuses what is not an address', () => {
    expect(loadConfig({})).to.include({
      staffEmail: 'staff@localhost',
      securityEmail: 'staff@localhost',
      careersEmail: 'staff@localhost',
    });
    expect(
      loadConfig({
        STAFF_EMAIL: 'team@example.com',
        SECURITY_EMAIL: 'security@example.com',
      }),
    ).to.include({
      staffEmail: 'team@example.com',
      securityEmail: 'security@example.com',
      careersEmail: 'team@example.com',
    });
    expect(() => loadConfig({ CAREERS_EMAIL: 'Jobs <jobs@example.com>' })).to.throw(
      ConfigError,
      /CAREERS_EMAIL="Jobs <jobs@example.com>": must be an email address/,
    );
  });

  it('takes the security OpenPGP key from a file when SECURITY_PGP_KEY_FILE names one, else generates it', () => {
    expect(loadConfig({}).securityPgpKeyFile).to.equal(undefined);
    expect(loadConfig({ SECURITY_PGP_KEY_FILE: 'keys/security.asc' }).securityPgpKeyFile).to.equal(
      path.resolve('keys/security.asc'),
    );
    expect(loadConfig({ SECURITY_PGP_KEY_FILE: '' }).securityPgpKeyFile).to.equal(undefined);
    expect(() => loadConfig({ SECURITY_PGP_KEY_FILE: 'k'.repeat(4097) })).to.throw(
      ConfigError,
      /SECURITY_PGP_KEY_FILE/,
    );
  });

  it('reads the kubernetes runtime’s namespace, pool, box image and snapshot class, and refuses names Kubernetes would not take', () => {
    expect(loadConfig({}).kubernetes).to.deep.equal({
      namespace: undefined,
      poolName: 'arena',
      boxImage: undefined,
      snapshotClass: undefined,
    });
    expect(
      loadConfig({
        ORCHESTRATOR: 'kubernetes',
        KUBE_NAMESPACE: 'exploit-grid',
        VPN_POOL_NAME: 'eu-west',
        BOX_CONTAINER_DISK: 'registry.example/eg/box-debian:bookworm',
        BOX_SNAPSHOT_CLASS: 'csi-hostpath-snapclass',
      }).kubernetes,
    ).to.deep.equal({
      namespace: 'exploit-grid',
      poolName: 'eu-west',
      boxImage: 'registry.example/eg/box-debian:bookworm',
      snapshotClass: 'csi-hostpath-snapclass',
    });
    expect(() => loadConfig({ BOX_SNAPSHOT_CLASS: 'Fast Snapshots' })).to.throw(
      ConfigError,
      /BOX_SNAPSHOT_CLASS="Fast Snapshots": must be a Kubernetes object name/,
    );
    expect(() => loadConfig({ KUBE_NAMESPACE: 'Exploit_Grid' })).to.throw(
      ConfigError,
      /KUBE_NAMESPACE="Exploit_Grid": must be a Kubernetes namespace name/,
    );
    expect(() => loadConfig({ VPN_POOL_NAME: 'a'.repeat(64) })).to.throw(
      ConfigError,
      /VPN_POOL_NAME="a{64}": must be at most 63 characters/,
    );
  });

  it('reads where players’ work runs (PLAYER_CPUS), auto by default, and refuses what is no CPU list', () => {
    expect(loadConfig({}).boxes.playerCpus).to.equal('auto');
    expect(loadConfig({ PLAYER_CPUS: '1-3,6' }).boxes.playerCpus).to.equal('1-3,6');
    expect(loadConfig({ PLAYER_CPUS: 'all' }).boxes.playerCpus).to.equal('all');
    for (const bad of ['1;reboot', 'one', '1-', ',1'])
      expect(() => loadConfig({ PLAYER_CPUS: bad }), bad).to.throw(
        ConfigError,
        /PLAYER_CPUS=.*must be auto, all, or a list of CPUs such as 1-3/,
      );
  });

  it('never echoes a secret that is refused', () => {
    expect(() => loadConfig({ JWT_SECRET: 'too-short-secret' }))
      .to.throw(ConfigError, /JWT_SECRET=\[hidden\]: must be at least 32 characters/)
      .with.property('message')
      .that.does.not.include('too-short-secret');
  });

  it('requires real mail and an https address in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'http://grid.example' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/SMTP_URL="": is required when NODE_ENV=production/)
      .and.matches(/PUBLIC_URL="http:\/\/grid.example": must be an https:\/\/ URL when NODE_ENV=production/);
    expect(
      loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://grid.example', SMTP_URL: 'smtp://mail:587' })
        .env,
    ).to.equal('production');
  });

  it('lists every bad value at once', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud', PUBLIC_URL: 'ftp://x' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/LOG_LEVEL="loud": must be one of fatal, error/)
      .and.matches(/PUBLIC_URL="ftp:\/\/x": must be an http/);
  });

  describe('payments', () => {
    const stripe = { STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_abc123' };
    const paddle = {
      PADDLE_API_KEY: 'pdl_sdbx_apikey_01abcdefghijklmnop',
      PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_01abcdefgh',
      PADDLE_CLIENT_TOKEN: 'test_0123456789abcdef',
    };

    it('are off without keys, on stripe by default', () => {
      expect(loadConfig({}).payments).to.deep.equal({
        provider: 'stripe',
        enabled: false,
        stripe: undefined,
        paddle: undefined,
      });
      expect(loadConfig({ PAYMENT_PROVIDER: 'stripe' }).payments).to.include({
        provider: 'stripe',
        enabled: false,
      });
    });

    it('go through stripe when both providers are configured, and through the one that is otherwise', () => {
      const both = loadConfig({ ...stripe, ...paddle }).payments;
      expect(both).to.include({ provider: 'stripe', enabled: true });
      expect(both.stripe).to.deep.equal({
        secretKey: 'sk_test_abc123',
        webhookSecret: 'whsec_abc123',
        apiUrl: undefined,
      });
      expect(both.paddle).to.deep.include({ environment: 'sandbox', priceId: undefined, apiUrl: undefined });
      expect(loadConfig({ ...paddle }).payments).to.include({ provider: 'paddle', enabled: true });
      expect(loadConfig({ ...stripe, ...paddle, PAYMENT_PROVIDER: 'paddle' }).payments.provider).to.equal(
        'paddle',
      );
    });

    it('read the API overrides, the Paddle environment and its price', () => {
      const payments = loadConfig({
        ...stripe,
        ...paddle,
        STRIPE_API_URL: 'http://127.0.0.1:12111/',
        PADDLE_API_URL: 'http://127.0.0.1:9000',
        PADDLE_ENVIRONMENT: 'production',
        PADDLE_PRICE_ID: 'pri_01abcdefgh',
      }).payments;
      expect(payments.stripe?.apiUrl).to.equal('http://127.0.0.1:12111');
      expect(payments.paddle).to.deep.include({
        apiUrl: 'http://127.0.0.1:9000',
        environment: 'production',
        priceId: 'pri_01abcdefgh',
      });
    });

    it('refuse half a provider, or a chosen one without its keys, naming what is missing', () => {
      expect(() => loadConfig({ PAYMENT_PROVIDER: 'paddle', ...stripe })).to.throw(
        ConfigError,
        /PADDLE_API_KEY="": is required with PAYMENT_PROVIDER=paddle/,
      );
      expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_live_abc' })).to.throw(
        ConfigError,
        /STRIPE_WEBHOOK_SECRET="": is required with STRIPE_SECRET_KEY/,
      );
      expect(() => loadConfig({ PAYMENT_PROVIDER: 'paddle', PADDLE_API_KEY: paddle.PADDLE_API_KEY }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(/PADDLE_WEBHOOK_SECRET="": is required with PAYMENT_PROVIDER=paddle/)
        .and.matches(/PADDLE_CLIENT_TOKEN="": is required with PAYMENT_PROVIDER=paddle/);
    });

    it('refuse keys of the wrong shape without echoing them', () => {
      expect(() => loadConfig({ ...stripe, STRIPE_SECRET_KEY: 'pk_live_secret42' }))
        .to.throw(ConfigError, /STRIPE_SECRET_KEY=\[hidden\]: must be a Stripe secret key/)
        .with.property('message')
        .that.does.not.include('secret42');
      expect(() => loadConfig({ ...paddle, PADDLE_API_KEY: 'short key!' }))
        .to.throw(ConfigError, /PADDLE_API_KEY=\[hidden\]: must be a Paddle API key/)
        .with.property('message')
        .that.does.not.include('short key');
      expect(() => loadConfig({ PAYMENT_PROVIDER: 'paypal' })).to.throw(
        ConfigError,
        /PAYMENT_PROVIDER="paypal": must be stripe or paddle/,
      );
      expect(() => loadConfig({ PADDLE_ENVIRONMENT: 'live' })).to.throw(
        ConfigError,
        /PADDLE_ENVIRONMENT="live": must be sandbox or production/,
      );
    });
  });
});
