import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it, inject } from 'vitest';
import { DEFAULT_CONTEXT } from '../../helpers/browser.js';
import { checkPage, expectHeading } from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';
import { databaseUrlFor } from '../../../src/platform/db/admin.js';

/*
 * Registering from an invitation in the browser (issue 45; docs/pay-links.md "Invitations"): the
 * address's fragment carries the token, which leaves the address at once; the page greets the
 * invited customer by name and asks only an e-mail and a password; the account is made and the
 * invitation spent; a spent invitation turns the page into the normal registration.
 */

const web = useSharedWebClient();

async function query<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * An invitation of María González (cnro 1002 of the demo's suc0001), as staff's invitar writes
 * it: only its token's hash, in the registry (the shared portal's sibling of this file's tenant).
 */
async function invitation(): Promise<string> {
  const [row] = await web.portal.tenantQuery<{ db: string }>('SELECT current_database() AS db');
  const base = /^(.+)_(demo|t\d+)$/.exec(row?.db ?? '')?.[1];
  if (base === undefined) throw new Error('unexpected tenant database name');
  const systemUrl = databaseUrlFor(inject('pgServerUrl'), `${base}_sys`);
  const token = randomBytes(32).toString('base64url');
  await query(
    systemUrl,
    `INSERT INTO portal_invitations
       (token_hash, tenant_id, sucursal_id, customer_schema, cnro, email, expires_at)
     VALUES ($1, $2, 1, 'suc0001', 1002, 'maria@example.com', now() + interval '14 days')`,
    [createHash('sha256').update(token).digest('hex'), web.portal.tenantId],
  );
  return token;
}

describe('registering from an invitation', () => {
  it('greets the invited customer, asks only an e-mail and a password, and spends the invitation', async () => {
    const token = await invitation();
    const context = await web.session.browser.newContext({
      ...DEFAULT_CONTEXT,
      extraHTTPHeaders: { ...web.portal.clientHeaders },
    });
    const seen: string[] = [];
    context.on('request', (request) => seen.push(request.url()));
    try {
      const page = await context.newPage();
      await page.goto(`${web.portal.url}/e/${web.portal.tenantId}/registro#invitacion=${token}`);
      await expectHeading(page, 'Creá tu cuenta');
      expect(await page.evaluate<string>('location.hash')).toBe('');
      await page.getByText(/Hola, María/).waitFor();
      expect(await page.getByLabel('E-mail').inputValue()).toBe('maria@example.com');
      await checkPage(page, 'registro-invitacion');
      await page.getByLabel('E-mail').fill('pagos.maria@example.com');
      await page.getByLabel('Contraseña', { exact: true }).fill('Invitada2026');
      await page.getByLabel('Repetí la contraseña').fill('Invitada2026');
      await page.getByRole('button', { name: 'Crear cuenta' }).click();
      await page.getByText(/Creamos tu cuenta/).waitFor();
      const accounts = await web.portal.tenantQuery<{ email: string }>(
        'SELECT email FROM suc0001.portal_users WHERE cnro = 1002',
      );
      expect(accounts).toEqual([{ email: 'pagos.maria@example.com' }]);
      // The token went in a body, never in an address.
      expect(seen.filter((url) => url.includes(token))).toEqual([]);

      // Spent: the same address now leads to the normal registration, saying so.
      const again = await context.newPage();
      await again.goto(`${web.portal.url}/e/${web.portal.tenantId}/registro#invitacion=${token}`);
      await again
        .getByText(/invitación ya no sirve|no es válida/i)
        .first()
        .waitFor();
    } finally {
      await context.close();
    }
  });
});
