import { readdirSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * The layers (docs/architecture.md "Layers"): platform/ is the floor and imports no capability;
 * ledger/ and reports/ are the ERP's services and import no portal module; a module reaches
 * another module through its service, never its queries; nothing but the entry points reaches
 * dev/ (development defaults, embedded PostgreSQL); web/ talks to the API over HTTP only.
 */
const dev = {
  regex: '^(\\.\\.?/)+dev/',
  message: 'dev/ is for the entry points only (boot, server, cli).',
};
const entryPoints = {
  regex: '^(\\.\\./)+(app|server|boot|cli)\\.js$',
  message: 'The entry points wire the layers; nothing imports them.',
};
/** The same pattern for `import('...')`, which no-restricted-imports does not see. */
const dynamicImport = ({ regex, message }) => ({
  // esquery ends a regex at the first "/", so the pattern spells it \x2F.
  selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\x2F')}/]`,
  message,
});
const layerRule = (...patterns) => {
  const all = [...patterns, dev, entryPoints];
  return {
    'no-restricted-imports': ['error', { patterns: all }],
    'no-restricted-syntax': ['error', ...all.map(dynamicImport)],
  };
};
const modules = readdirSync(path.join(import.meta.dirname, 'src/modules'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'coverage/', 'web/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['src/platform/**/*.ts', 'src/config.ts'],
    rules: layerRule({
      regex: '^(\\.\\.?/)+(modules|ledger|reports)/',
      message: 'platform/ is the floor: it imports no module, ledger or reports code.',
    }),
  },
  {
    files: ['src/ledger/**/*.ts', 'src/reports/**/*.ts'],
    // The reports service's own entry point wires it, development defaults included.
    ignores: ['src/reports/main.ts'],
    rules: layerRule({
      regex: '^(\\.\\./)+modules/',
      message: 'The ledger and the reports service are the ERP side: they import no portal module.',
    }),
  },
  ...modules.map((name) => ({
    files: [`src/modules/${name}/**/*.ts`],
    rules: layerRule(
      {
        regex: `^(\\.\\./)+(modules/)?(?!${name}/)[\\w-]+/queries(\\.js$|/)`,
        message: "A module reaches another through its service, never through the other's queries.",
      },
      {
        regex: '^(\\.\\./)+ledger/(.+/)?queries(\\.js$|/)',
        message: "Modules call the ledger's services, not its queries.",
      },
    ),
  })),
  {
    // Vitest's asymmetric matchers (expect.stringContaining, ...) are typed `any`.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // The web client (web/tsconfig.json: DOM lib, Preact JSX) runs in the browser: it talks to
    // the API over HTTP only, and the access token never goes to storage.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/',
              message: 'web/ talks to the API over HTTP only; it imports nothing from src/.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'localStorage', message: 'The session lives in memory (docs/web.md "Session").' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'window',
          property: 'localStorage',
          message: 'The session lives in memory only.',
        },
      ],
    },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node scripts run by npm (prepare, prestart) before dependencies may be there.
    files: ['scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-console': 'off' },
  },
);
