/*
 * What the SMTP sink received, read as a mail client would: unfolded headers, RFC 2047 subjects,
 * the text part and the attachments of a nodemailer message.
 */

export interface Mail {
  to: string[];
  subject: string;
  text: string;
  attachments: { contentType: string; filename: string; content: Buffer }[];
}

/** Unfolded headers of a MIME entity, names in lower case. */
export function headersOf(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`), as nodemailer writes them. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_word, encoding: string, data: string) =>
      encoding.toLowerCase() === 'b'
        ? Buffer.from(data, 'base64').toString('utf8')
        : Buffer.from(
            data
              .replace(/_/g, ' ')
              .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
                String.fromCharCode(parseInt(hex, 16)),
              ),
            'latin1',
          ).toString('utf8'),
    );
}

function decodeBody(body: string, encoding: string | undefined): Buffer {
  if (encoding?.toLowerCase() === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding?.toLowerCase() === 'quoted-printable') {
    const latin1 = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(latin1, 'latin1');
  }
  return Buffer.from(body, 'utf8');
}

/** The parts of a message as nodemailer builds it: one text part, maybe multipart/mixed. */
export function parseMail(raw: string, to: string[]): Mail {
  const split = raw.indexOf('\r\n\r\n');
  const headers = headersOf(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const mail: Mail = {
    to,
    subject: decodeWords(headers.get('subject') ?? ''),
    text: '',
    attachments: [],
  };
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const entities = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((part) => part.replace(/^\r\n/, ''))
    : [raw];
  for (const entity of entities) {
    const end = entity.indexOf('\r\n\r\n');
    const partHeaders = headersOf(entity.slice(0, end));
    const content = decodeBody(
      entity.slice(end + 4).replace(/\r\n$/, ''),
      partHeaders.get('content-transfer-encoding'),
    );
    const partType = partHeaders.get('content-type') ?? 'text/plain';
    if (partType.startsWith('text/plain') && !mail.text) {
      mail.text = content.toString('utf8');
    } else {
      const filename = /filename="?([^";]+)"?/i.exec(
        `${partHeaders.get('content-disposition') ?? ''}; ${partType}`,
      )?.[1];
      mail.attachments.push({
        contentType: partType.split(';')[0] ?? '',
        filename: filename ?? '',
        content,
      });
    }
  }
  return mail;
}
