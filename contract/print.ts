import { Type } from 'typebox';
import { Envelope } from './envelope.js';

/** docs/api.md leaves the size open: at most 64 KB of UTF-8 to sign. */
export const MAX_SIGN_BYTES = 64 * 1024;

/** A text/plain answer, documented as such in the OpenAPI document. */
export function PlainText(description: string) {
  return { description, content: { 'text/plain': { schema: Type.String() } } };
}

export const SignBody = Type.Object(
  {
    data: Type.String({
      minLength: 1,
      // Characters here; the signer also refuses more than 64 KB of UTF-8.
      maxLength: MAX_SIGN_BYTES,
      description: 'The text QZ Tray hands to setSignaturePromise, signed as its UTF-8 bytes',
    }),
  },
  { additionalProperties: false },
);

/** docs/decisions.md #40. */
const PrintedDocument = Type.Enum(['recibo', 'cupon']);
const Paper = Type.Enum(['A4', 'carta', '80mm']);
const Copies = Type.Integer({ minimum: 1, maximum: 5 });
const Printer = Type.String({
  minLength: 1,
  maxLength: 255,
  // Kept exactly as sent (QZ Tray matches printer names exactly): not blank, no control characters.
  pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f]+$',
  description: 'Printer name as QZ Tray reports it (qz.printers.find)',
});

export const PrintConfig = Type.Object({
  id: Type.String({ format: 'uuid' }),
  documento: PrintedDocument,
  impresora: Type.String(),
  papel: Paper,
  copias: Type.Integer(),
  predeterminada: Type.Boolean(),
});

export const PrintConfigResponse = Envelope(PrintConfig);
export const PrintConfigListResponse = Envelope(Type.Array(PrintConfig));

export const PrintConfigCreateBody = Type.Object(
  {
    documento: PrintedDocument,
    impresora: Printer,
    papel: Paper,
    // Their defaults are the service's (one place); the descriptions document them.
    copias: Type.Optional({ ...Copies, description: '1 when absent' }),
    predeterminada: Type.Optional(
      Type.Boolean({
        description:
          'true makes it the default for its documento (the previous one stops being); false when absent',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Any of the fields, at least one; the others keep their values. */
export const PrintConfigUpdateBody = Type.Object(
  {
    documento: Type.Optional(PrintedDocument),
    impresora: Type.Optional(Printer),
    papel: Type.Optional(Paper),
    copias: Type.Optional(Copies),
    predeterminada: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** Any text: an id that is not one of ours (not even a uuid) is simply not found. */
export const PrintConfigParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const PrintConfigQuery = Type.Object({ documento: Type.Optional(PrintedDocument) });
