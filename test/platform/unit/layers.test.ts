import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

// The real eslint.config.js, without the type-aware rules (the probes are not files of the
// TypeScript project): what is under test is only which imports each layer may make.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [tseslint.configs.disableTypeChecked],
});

/**
 * The layer rules' messages for `source` imported from a file at `file`: statically, with
 * `import()` when `source` is written `import(<path>)`, or as a type when `type:<path>`.
 */
async function refusals(file: string, source: string): Promise<string[]> {
  const dynamic = /^import\((.+)\)$/.exec(source)?.[1];
  const typeOnly = /^type:(.+)$/.exec(source)?.[1];
  const code = dynamic
    ? `export const probe = () => import('${dynamic}');\n`
    : typeOnly
      ? `import type { Probe } from '${typeOnly}';\nexport type Used = Probe;\n`
      : `import { probe } from '${source}';\nvoid probe;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((message) =>
      [
        'no-restricted-imports',
        '@typescript-eslint/no-restricted-imports',
        'no-restricted-syntax',
        'portal/module-faces',
        'portal/reports-service',
      ].includes(message.ruleId ?? ''),
    )
    .map((message) => message.message);
}

describe('layers (docs/architecture.md "Layers")', () => {
  it.each([
    ['src/platform/http/probe.ts', '../../modules/payments/service.js', 'platform/ is the floor'],
    ['src/platform/probe.ts', '../ledger/receipts.js', 'platform/ is the floor'],
    ['src/platform/db/probe.ts', '../../reports/client.js', 'platform/ is the floor'],
    ['src/platform/probe.ts', '../dev/dev-defaults.js', 'dev/ is for the entry points'],
    ['src/platform/http/probe.ts', '../../config.js', 'config.ts fills them'],
    ['src/ledger/probe.ts', '../modules/payments/queries.js', 'import no portal module'],
    ['src/reports/pdf/probe.ts', '../../modules/coupons/service.js', 'import no portal module'],
    ['src/reports/coupon-source.ts', '../ledger/coupons/service.js', 'imports no ledger code'],
    ['src/reports/main.ts', '../dev/dev-defaults.js', 'dev/ is for the entry points'],
    ['src/reports/main.ts', 'import(../dev/dev-defaults.js)', 'dev/ is for the entry points'],
    // The reports service is its own process: nothing imports it, types included.
    ['src/ledger/probe.ts', 'type:../reports/receipt-report.js', 'the reports service alone'],
    ['src/modules/statement/probe.ts', '../../reports/statement-report.js', 'service alone'],
    ['src/server.ts', 'import(./reports/main.js)', 'the reports service alone'],
    ['src/platform/reports/probe.ts', '../../reports/app.js', 'platform/ is the floor'],
    ['src/modules/profile/probe.ts', '../auth/queries.js', 'through its face only'],
    ['src/modules/profile/probe.ts', '../auth/service.js', 'through its face only'],
    ['src/modules/payments/gateways/probe.ts', '../../account/queries.js', 'through its face'],
    ['src/modules/coupons/probe.ts', '../payments/checkout/debts-in-flight.js', 'its face'],
    ['src/modules/payments/emails/probe.ts', '../../receipts/pdf.js', 'through its face only'],
    ['src/modules/receipts/probe.ts', '../payments/receipts/writer.js', 'through its face only'],
    ['src/modules/account/probe.ts', '../payments/index.ts/../queries/payments.js', 'its face'],
    ['src/modules/coupons/probe.ts', '../../ledger/coupons/queries.js', "the ledger's services"],
    ['src/modules/auth/probe.ts', '../../dev/embedded-postgres.js', 'dev/ is for the entry points'],
    ['src/modules/auth/probe.ts', '../../app.js', 'nothing imports them'],
    ['src/modules/payments/probe.ts', '../../modules/account/queries.js', 'its face only'],
    ['src/config.ts', './modules/payments/start.js', 'platform/ is the floor'],
    ['src/config.ts', './dev/dev-defaults.js', 'dev/ is for the entry points'],
    ['src/platform/probe.ts', 'import(../modules/payments/start.js)', 'platform/ is the floor'],
    ['src/ledger/probe.ts', 'import(../modules/account/service.js)', 'import no portal module'],
    ['src/modules/auth/probe.ts', 'import(../../dev/dev-defaults.js)', 'dev/ is for the entry'],
    ['src/modules/profile/probe.ts', 'import(../auth/queries.js)', 'through its face only'],
    ['web/src/pages/probe.tsx', '../../../src/platform/money.js', 'over HTTP only'],
    ['web/src/api/probe.ts', '../../../contract/account.js', 'as types only'],
    ['contract/probe.ts', '../src/platform/ids.js', 'schemas only'],
    ['src/cli-probe.ts', './modules/print/keys.js', 'through its face only'],
    ['src/dev/probe.ts', '../modules/payments/receipts/writer.js', 'through its face only'],
    ['bench/probe.ts', '../src/modules/reminders/queries.js', 'through its face only'],
    ['bench/probe.ts', 'import(../src/modules/statement/service.js)', 'through its face only'],
    // Modules meet one way: types from another's face, its functions given by app.ts.
    ['src/modules/coupons/probe.ts', '../payments/index.js', 'what app.ts gives it'],
    ['src/modules/payments/emails/probe.ts', '../../receipts/index.js', 'what app.ts gives it'],
    ['src/modules/profile/probe.ts', 'import(../auth/index.js)', 'what app.ts gives it'],
  ])('%s may not import %s', async (file, source, reason) => {
    // A file outside the modules reaching into one is refused by its layer's rule and by the
    // face rule alike: the layer's reason must be among them.
    const messages = await refusals(file, source);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.some((message) => message.includes(reason))).toBe(true);
  });

  it.each([
    ['src/modules/payments/gateways/probe.ts', '../queries.js'],
    ['src/modules/payments/probe.ts', './queries.js'],
    ['src/modules/coupons/probe.ts', 'type:../payments/index.js'],
    ['src/modules/payments/emails/probe.ts', 'type:../../receipts/index.js'],
    ['src/modules/payments/emails/probe.ts', '../receipts/issuer.js'],
    ['src/modules/payments/probe.ts', './receipts/writer.js'],
    ['src/modules/profile/probe.ts', '../shared.js'],
    ['src/modules/account/probe.ts', '../../../contract/account.js'],
    ['contract/probe.ts', './envelope.js'],
    ['web/src/api/probe.ts', 'type:../../../contract/account.js'],
    ['src/modules/coupons/probe.ts', '../../ledger/coupons/service.js'],
    ['src/modules/payments/probe.ts', '../../ledger/pending-debts.js'],
    ['src/ledger/probe.ts', '../platform/money.js'],
    ['src/reports/main.ts', '../platform/dev-defaults.js'],
    ['src/reports/app.ts', '../platform/reports/token.js'],
    ['src/reports/declare.ts', '../../contract/reports.js'],
    ['src/platform/probe.ts', './reports/client.js'],
    ['src/platform/http/probe.ts', '../reports/client.js'],
    ['src/ledger/probe.ts', '../platform/reports/client.js'],
    ['src/modules/receipts/probe.ts', '../../platform/reports/client.js'],
    ['test/reports/probe.ts', '../../src/reports/statement-report.js'],
    ['src/server.ts', './dev/embedded-runtime.js'],
    ['src/server.ts', 'import(./dev/embedded-runtime.js)'],
    ['src/modules/payments/probe.ts', 'import(./queries/payments.js)'],
    ['src/config.ts', './platform/paths.js'],
    ['src/reports/coupon-source.ts', './app.js'],
    ['src/cli-probe.ts', './modules/print/index.js'],
    ['bench/probe.ts', '../src/modules/payments/index.js'],
    ['test/payments/probe.ts', '../../src/modules/payments/receipts/writer.js'],
  ])('%s may import %s', async (file, source) => {
    expect(await refusals(file, source)).toEqual([]);
  });
});
