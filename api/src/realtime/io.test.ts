import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import { GRID_NAMESPACE, SOCKET_UNAUTHORIZED, VPN_STATUS_NAMESPACE } from '../contracts/index.ts';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';
import { sessionRoom, userRoom } from './io.ts';

const VALID_TOKEN = 'token-of-alice';
const ALICE = 'c0ffee00-0000-4000-8000-000000000001';
const SESSION = 'c0ffee00-0000-4000-8000-0000000000aa';

describe('Socket.IO server', () => {
  let platform: TestPlatform;
  const sockets: Socket[] = [];

  before(async () => {
    platform = await startTestPlatform({
      verifyToken: (token) => (token === VALID_TOKEN ? { userId: ALICE, sessionId: SESSION } : null),
    });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  after(() => platform?.close());

  function open(namespace: string, options: { token?: string; userId?: string; transports?: string[] } = {}) {
    const socket = connect(`${platform.baseUrl}${namespace}`, {
      transports: options.transports ?? ['websocket'],
      auth: options.token === undefined ? {} : { token: options.token },
      query: options.userId === undefined ? {} : { userId: options.userId },
      reconnection: false,
      timeout: 5000,
    });
    sockets.push(socket);
    return new Promise<{ socket: Socket; error?: Error }>((resolve) => {
      socket.once('connect', () => resolve({ socket }));
      socket.once('connect_error', (error) => resolve({ socket, error }));
    });
  }

  for (const namespace of [GRID_NAMESPACE, VPN_STATUS_NAMESPACE]) {
    describe(namespace, () => {
      it('refuses a connection without a token', async () => {
        const { error } = await open(namespace, { userId: ALICE });
        expect(error?.message).to.equal(SOCKET_UNAUTHORIZED);
      });

      it('refuses a token the verifier does not accept', async () => {
        const { error } = await open(namespace, { token: 'forged', userId: ALICE });
        expect(error?.message).to.equal(SOCKET_UNAUTHORIZED);
      });

      it('refuses a valid token presented with another user id', async () => {
        const { error } = await open(namespace, { token: VALID_TOKEN, userId: 'someone-else' });
        expect(error?.message).to.equal(SOCKET_UNAUTHORIZED);
      });

      it("accepts a valid token and joins the user's room", async () => {
        const { socket, error } = await open(namespace, { token: VALID_TOKEN, userId: ALICE });
        expect(error).to.equal(undefined);
        expect(socket.connected).to.equal(true);
        const rooms = platform.realtime.io.of(namespace).adapter.rooms;
        expect(rooms.get(userRoom(ALICE))?.size).to.equal(1);
        expect(rooms.get(sessionRoom(SESSION))?.size).to.equal(1);
      });
    });
  }

  it('offers no long-polling transport', async () => {
    const res = await fetch(`${platform.baseUrl}/socket.io/?EIO=4&transport=polling`);
    expect(res.status).to.equal(400);
  });

  it('refuses the main namespace even with a valid token', async () => {
    const { error } = await open('/', { token: VALID_TOKEN, userId: ALICE });
    expect(error?.message).to.equal(SOCKET_UNAUTHORIZED);
  });
});

describe('Socket.IO server with accounts', () => {
  it('refuses a token that is not an access token of a live session', async () => {
    const platform = await startTestPlatform();
    try {
      const socket = connect(`${platform.baseUrl}${GRID_NAMESPACE}`, {
        transports: ['websocket'],
        auth: { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' },
        query: { userId: ALICE },
        reconnection: false,
      });
      const error = await new Promise<Error | undefined>((resolve) => {
        socket.once('connect', () => resolve(undefined));
        socket.once('connect_error', resolve);
      });
      socket.close();
      expect(error?.message).to.equal(SOCKET_UNAUTHORIZED);
    } finally {
      await platform.close();
    }
  });
});
