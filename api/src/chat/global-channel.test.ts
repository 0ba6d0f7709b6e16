import { expect } from 'chai';
import { CHAT_MESSAGES, type GlobalChatMessageEvent } from '../contracts/index.ts';
import type { BatchResult } from '../db/batch-writer.ts';
import { userRoom, type GridNamespace } from '../realtime/io.ts';
import { GlobalChannel } from './global-channel.ts';
import type { GlobalPost, PostedGlobal } from './service.ts';

/** What the channel emitted: to everyone but `except`, or to one room. */
type Emitted = { except?: string[]; to?: string; contents: string[]; tempIds: (string | undefined)[] };

/** A namespace that records broadcasts instead of sending them (the real one is in chat.test.ts). */
function recordingNamespace() {
  const emitted: Emitted[] = [];
  const emitter = (target: Omit<Emitted, 'contents' | 'tempIds'>) => ({
    emit: (_event: 'globalChatMessage', ...messages: GlobalChatMessageEvent[]) => {
      emitted.push({
        ...target,
        contents: messages.map((m) => m.content),
        tempIds: messages.map((m) => m.tempId),
      });
      return true;
    },
  });
  const ns = {
    except: (rooms: string[]) => emitter({ except: [...rooms].sort() }),
    to: (room: string) => emitter({ to: room }),
  };
  return { ns: ns as unknown as GridNamespace, emitted };
}

/** A store that holds each batch until released, as a slow database would, and blocks by sender. */
function heldStore(blockersOf: Record<string, string[]> = {}) {
  const batches: string[][] = [];
  const releases: (() => void)[] = [];
  let n = 0;
  const storeGlobal = async (posts: GlobalPost[]): Promise<BatchResult<PostedGlobal>[]> => {
    batches.push(posts.map((p) => p.text));
    await new Promise<void>((resolve) => releases.push(resolve));
    return posts.map((post) =>
      post.senderId === 'ghost'
        ? { ok: false, error: new Error('Player not found.') }
        : {
            ok: true,
            value: {
              message: {
                id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
                senderId: post.senderId,
                sender: { id: post.senderId, handle: post.senderId },
                content: post.text,
                timestamp: new Date().toISOString(),
              },
              blockers: blockersOf[post.senderId] ?? [],
            },
          },
    );
  };
  return { storeGlobal, batches, release: (i: number) => releases[i]!() };
}

/** Lets the event loop go round until `done` holds (the channel takes a batch a turn after it was posted). */
async function until(done: () => boolean) {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).to.equal(true);
}

describe('GlobalChannel: global messages stored and delivered in batches', () => {
  it('sends what arrived during a batch as one event, in order, the senders their own with tempIds', async () => {
    const { ns, emitted } = recordingNamespace();
    const store = heldStore();
    const channel = new GlobalChannel(ns, store);

    const first = channel.post('ann', ' one ', 't1');
    await until(() => store.batches.length === 1);
    const later = [channel.post('bob', 'two', 't2'), channel.post('ann', 'three', 't3')];
    store.release(0);
    expect((await first).content).to.equal('one');
    expect(emitted).to.deep.equal([
      { except: [userRoom('ann')], contents: ['one'], tempIds: [undefined] },
      { to: userRoom('ann'), contents: ['one'], tempIds: ['t1'] },
    ]);

    await until(() => store.batches.length === 2);
    expect(store.batches).to.deep.equal([['one'], ['two', 'three']]);
    store.release(1);
    await Promise.all(later);
    expect(emitted.slice(2)).to.deep.equal([
      {
        except: [userRoom('ann'), userRoom('bob')],
        contents: ['two', 'three'],
        tempIds: [undefined, undefined],
      },
      { to: userRoom('bob'), contents: ['two', 'three'], tempIds: ['t2', undefined] },
      { to: userRoom('ann'), contents: ['two', 'three'], tempIds: [undefined, 't3'] },
    ]);
  });

  it('leaves out of a batch, for each player who blocked a sender, only that sender', async () => {
    const { ns, emitted } = recordingNamespace();
    // Cid blocked Ann; Bob blocked Cid.
    const store = heldStore({ ann: ['cid'], cid: ['bob'] });
    const channel = new GlobalChannel(ns, store);
    const sent = [channel.post('ann', 'from ann', 'a'), channel.post('cid', 'from cid', 'c')];
    await until(() => store.batches.length === 1);
    store.release(0);
    await Promise.all(sent);
    expect(emitted).to.deep.equal([
      {
        except: [userRoom('ann'), userRoom('bob'), userRoom('cid')],
        contents: ['from ann', 'from cid'],
        tempIds: [undefined, undefined],
      },
      { to: userRoom('ann'), contents: ['from ann', 'from cid'], tempIds: ['a', undefined] },
      { to: userRoom('cid'), contents: ['from cid'], tempIds: ['c'] },
      { to: userRoom('bob'), contents: ['from ann'], tempIds: [undefined] },
    ]);
  });

  it('refuses a message against the rule before storing anything, and fails a sender the store refused alone', async () => {
    const { ns, emitted } = recordingNamespace();
    const store = heldStore();
    const channel = new GlobalChannel(ns, store);
    let refused: unknown;
    await channel.post('ann', '<b>hi</b>', 't').catch((err: unknown) => (refused = err));
    expect((refused as Error).message).to.equal(CHAT_MESSAGES.html);
    expect(store.batches).to.deep.equal([]);

    const both = Promise.allSettled([channel.post('ghost', 'boo', 'g'), channel.post('ann', 'hi', 'h')]);
    await until(() => store.batches.length === 1);
    store.release(0);
    const [ghost, ann] = await both;
    expect(ghost.status).to.equal('rejected');
    expect(ann.status).to.equal('fulfilled');
    expect(emitted.map((e) => e.contents)).to.deep.equal([['hi'], ['hi']]);
  });
});
