import type { GridNotification } from '@exploit-grid/api/contracts';
import { reaction } from 'mobx';
import { playSound as playBrowserSound, type SoundPlayer } from '../notifications/sounds.ts';
import { toast } from '../notifications/toast.ts';
import { paths } from '../routes/paths.ts';
import { SOUNDS, notificationText } from '../strings/grid.ts';
import type { RootStore } from './RootStore.ts';

/** Notification ids acknowledged in one event at most (the server takes up to 100). */
const NOTIFICATION_ACK_BATCH = 100;
/** Notifications arriving together (a reconnect sends every pending one) are acknowledged together. */
const NOTIFICATION_ACK_DELAY_MS = 250;

/**
 * Notifications (core-app section 8): each shown once however often the server sends it (a toast, with its
 * sound), then acknowledged so that the server stops sending it. The GridStore hands it the /grid socket's
 * `notification` events, and sends the acknowledgements.
 */
export class NotificationsStore {
  private readonly root: RootStore;
  private readonly play: SoundPlayer;
  private readonly seen = new Set<string>();
  /** Notification ids to acknowledge, sent together (the server counts every event against a rate limit). */
  private pendingAcks: string[] = [];
  private ackTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(root: RootStore, play: SoundPlayer = playBrowserSound) {
    this.root = root;
    this.play = play;
    // Another account (or none): what the previous one was shown, or was about to acknowledge, is forgotten.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  /** A notification (core-app section 8): toasted once, with its sound, then acknowledged. */
  notify(notification: GridNotification) {
    const { id, type, title, body } = notification;
    if (!this.seen.has(id)) {
      this.seen.add(id);
      switch (type) {
        case 'ATTACK_INBOUND':
          toast.error(notificationText(title, body));
          this.play(SOUNDS.underAttack);
          break;
        case 'CHAT_REQUEST':
          // On the Grid the request's prompt shows it (ChatStore.requestPrompts); elsewhere, a toast.
          if (!this.root.currentPath().startsWith(paths.attack)) toast.info(notificationText(title, body));
          this.play(SOUNDS.chatRequest);
          break;
        case 'PRIVATE_MESSAGE':
          if (!this.root.currentPath().startsWith(paths.chats)) toast.info(notificationText(title, body));
          break;
        case 'GENERIC':
          toast.show(body);
          break;
        case 'ERROR':
          toast.error(body);
          break;
        default:
          // An attack's end: the Grid's overlay tells it when it is on screen; elsewhere, a toast.
          if (
            this.root.grid.attackResult?.attackId !== notification.attackId ||
            !this.root.currentPath().startsWith(paths.attack)
          )
            toast.info(notificationText(title, body));
      }
    }
    this.acknowledge(id);
  }

  /**
   * Acknowledges notifications together, at most 100 an event, a moment after they arrived: a returning player
   * may have dozens pending, and every client event counts against the server's rate limit.
   */
  private acknowledge(id: string) {
    if (!this.pendingAcks.includes(id)) this.pendingAcks.push(id);
    this.ackTimer ??= setTimeout(() => {
      this.ackTimer = null;
      const ids = this.pendingAcks.splice(0);
      for (let i = 0; i < ids.length; i += NOTIFICATION_ACK_BATCH)
        this.root.grid.send('notifications:ack', { ids: ids.slice(i, i + NOTIFICATION_ACK_BATCH) });
    }, NOTIFICATION_ACK_DELAY_MS);
  }

  private reset() {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    this.pendingAcks = [];
    this.seen.clear();
  }
}
