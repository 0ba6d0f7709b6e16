import { CONTACT_SENT, contactRequest, messageResponse } from '../contracts/index.ts';
import { clientContext } from '../auth/routes.ts';
import { ApiRouter } from '../http/route.ts';
import type { ContactService } from './service.ts';

/** POST /contact: the public contact form (no sign-in). */
export function contactRoutes(deps: { contact: ContactService }): ApiRouter {
  return new ApiRouter().route({
    method: 'post',
    path: '/contact',
    summary: 'Send a message to the staff (public; a receipt is mailed to the sender)',
    tags: ['contact'],
    body: contactRequest,
    response: messageResponse,
    status: 201,
    errors: { 400: 'A field is missing or invalid', 429: 'Too many messages' },
    handler: async ({ body, req }) => {
      await deps.contact.submit(body, clientContext(req));
      return { message: CONTACT_SENT };
    },
  });
}
