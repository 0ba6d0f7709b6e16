/** Chat texts (core-app sections 2, 4, 5, 8); the validation texts are the contracts' CHAT_MESSAGES. */

// Toasts (section 8), verbatim.
export const messagesLoadFailed = (message: string) => `Failed to load messages: ${message}`;
export const chatRefreshFailed = (message: string) => `Failed to refresh chat data: ${message}`;
export const CHAT_NOT_CONNECTED = 'Not connected to server. Please refresh the page.';
export const CHAT_CONNECTION_LOST = 'Connection lost. Please refresh the page.';
export const CHAT_ACCEPT_FAILED = 'Failed to accept chat request. Please try again.';
export const chatRequestAnswered = (handle: string, accepted: boolean) =>
  `Chat request from ${handle} ${accepted ? 'accepted' : 'declined'}.`;
export const socketErrorToast = (message: string) => `Socket error: ${message}`;
export const CHAT_STARTED = 'Chat started! You can now send private messages.';
export const chatRequestSent = (handle: string) => `Chat request sent to ${handle}.`;

// The Grid's chat panel.
export const CHAT_PANEL = 'Chat';
export const SHOW_CHAT = 'Show chat';
export const HIDE_CHAT = 'Hide chat';
export const TAB_GLOBAL = 'Global';
export const TAB_PRIVATE = 'Private';
export const TAB_BLOCKED = 'Blocked';
export const TAB_AI = 'AI';
export const COMING_SOON = 'Coming soon';
export const NO_GLOBAL_MESSAGES = 'No messages yet. Say hello to the Grid.';
export const NO_PRIVATE_CHATS = 'No private chats yet. Pick an operator on the globe and press Chat.';
export const NO_BLOCKED_USERS = 'You have not blocked anyone.';
export const LOAD_OLDER = 'Load older messages';
export const MESSAGE_LABEL = 'Message';
export const MESSAGE_PLACEHOLDER = 'Type a message. Enter sends, Shift+Enter adds a line.';
export const SEND = 'Send';
export const RETRY = 'Retry';
export const SEND_FAILED = 'Not sent.';
export const SENDING = 'Sending…';
export const BACK_TO_CHATS = 'Back to chats';
export const UNBLOCK = 'Unblock';
export const MESSAGES_LOADING = 'Loading messages…';
export const NO_MESSAGES = 'No messages yet.';

// /chats.
export const CHATS_TITLE = 'Chats';
export const CHATS_DESCRIPTION = 'Your private chats with other operators on the Grid, and chat requests.';
export const TAB_ACTIVE = 'Active';
export const TAB_REQUESTS = 'Requests';
export const SELECT_CHAT = 'Select a chat to start talking.';
export const AI_COMING = 'The AI assistant is coming soon.';
export const NO_REQUESTS = 'No chat requests.';
export const ACCEPT = 'Accept';
export const DECLINE = 'Decline';
export const CHAT_REQUEST_TITLE = 'Chat request';
export const wantsToChat = (handle: string) => `${handle} wants to chat.`;
export const waitingFor = (handle: string) => `Waiting for ${handle} to answer.`;
export const chatWith = (handle: string) => `Chat with ${handle}`;
