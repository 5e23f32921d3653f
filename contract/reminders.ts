import { Type } from 'typebox';
import { Envelope } from './envelope.js';

/** The signed token of a reminder's unsubscribe link (docs/api.md "Unsubscribing from reminders"). */
export const UnsubscribeQuery = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 300 }),
});

/**
 * RFC 8058's one-click body, `List-Unsubscribe=One-Click`, form-encoded. Fields beyond it are
 * ignored rather than refused: the senders are mail clients, not the portal's own client.
 */
export const UnsubscribeBody = Type.Object(
  { 'List-Unsubscribe': Type.Literal('One-Click') },
  { additionalProperties: true },
);

/** The JSON answer of the one-click POST (a browser that asks for HTML gets a page instead). */
export const UnsubscribeResponse = Envelope(
  Type.Object({ avisos_vencimiento: Type.Literal(false) }),
);

const HtmlPage = { type: 'string', description: 'An es-AR page' };

/** GET: the page with the button that posts, for the OpenAPI document. */
export const UnsubscribePageResponse = {
  description: 'A page with a button that posts the one-click form; nothing changes',
  content: { 'text/html': { schema: HtmlPage } },
};

/** POST: the envelope, or a page for a browser that asks for HTML (the page's button). */
export const UnsubscribeDoneResponse = {
  description: 'Reminders are off for the token’s account',
  content: {
    'application/json': { schema: UnsubscribeResponse },
    'text/html': { schema: HtmlPage },
  },
};
