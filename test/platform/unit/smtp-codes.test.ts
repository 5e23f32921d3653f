import { describe, expect, it } from 'vitest';
import { smtpCodes } from '../../../src/platform/mail/smtp-codes.js';

describe('smtpCodes', () => {
  it("says nodemailer's code and the SMTP reply code, never the message (it may quote the address)", () => {
    const refused = Object.assign(new Error('550 <ana@example.com>: mailbox unavailable'), {
      code: 'EENVELOPE',
      responseCode: 550,
    });
    expect(smtpCodes(refused)).toBe('EENVELOPE 550');
    expect(smtpCodes(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }))).toBe('ETIMEDOUT');
  });

  it('says unknown for an error without codes, or for what is not an error', () => {
    expect(smtpCodes(new Error('ana@example.com'))).toBe('unknown');
    expect(smtpCodes({ code: { nested: true } })).toBe('unknown');
    expect(smtpCodes('refused')).toBe('unknown');
    expect(smtpCodes(null)).toBe('unknown');
  });
});
