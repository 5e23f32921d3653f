import { readdirSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * The layers (docs/architecture.md "Layers"): platform/ is the floor and imports no capability;
 * ledger/ is the ERP's services and imports no portal module; reports/ is the reports service
 * alone, which imports no portal module and no ledger code, and which nothing imports (the API
 * calls it over HTTP through platform/reports/); a module reaches another module through its
 * face (index.js) only; nothing but the entry points reaches dev/ (embedded PostgreSQL, the demo
 * seed, generated keys); web/ talks to the API over HTTP only.
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
const modulesDir = path.join(import.meta.dirname, 'src/modules');
const modules = readdirSync(modulesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The module a path is in (`src/modules/<m>/...`), if any. */
function moduleOf(file) {
  const [first, ...rest] = path.relative(modulesDir, file).split(path.sep);
  return rest.length > 0 && modules.includes(first) ? first : undefined;
}

/** Whether an import or re-export carries types only (`import type`, or every name `type`). */
function typeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return (
    specifiers.length > 0 &&
    specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type')
  );
}

const reportsDir = path.join(import.meta.dirname, 'src/reports');
const platformDir = path.join(import.meta.dirname, 'src/platform');

/** Whether `file` is inside `dir`. */
function inside(dir, file) {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * src/reports/ is the reports service, its own process: no file outside it imports it, statically,
 * as types or with import() (docs/architecture.md "Layers"). The API calls it through its route
 * table (contract/reports.ts) with the client in src/platform/reports/, whose supervisor starts
 * it by path. Paths are resolved, so platform/reports/ is told apart from the service.
 */
const reportsService = {
  meta: {
    type: 'problem',
    messages: {
      service:
        'src/reports/ is the reports service alone: nothing imports it. Call it through contract/reports.ts and src/platform/reports/ (docs/architecture.md "Layers").',
      floor: 'platform/ is the floor: it imports no module, ledger or reports code.',
    },
    schema: [],
  },
  create(context) {
    if (inside(reportsDir, context.filename)) return {};
    const messageId = inside(platformDir, context.filename) ? 'floor' : 'service';
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      if (target === reportsDir || inside(reportsDir, target)) context.report({ node, messageId });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

/**
 * A module reaches another only through its face, `../<m>/index.js` (docs/architecture.md "A
 * module's face"). Paths are resolved, so a sub-folder named like a module (payments/receipts/)
 * is told apart from the module (receipts/).
 */
const moduleFaces = {
  meta: {
    type: 'problem',
    messages: {
      face: 'A module is reached through its face only: src/modules/{{module}}/index.ts (docs/architecture.md "A module\'s face").',
      given:
        'A module uses another only through what app.ts gives it: import its types, and take the functions as a parameter of the register function (docs/architecture.md "How modules meet").',
    },
    schema: [],
  },
  create(context) {
    // A file outside every module (an entry point, dev/, a bench) is held to the same faces.
    const own = moduleOf(context.filename);
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      const other = moduleOf(target);
      if (other === undefined || other === own) return;
      if (path.relative(path.join(modulesDir, other), target) !== 'index.js') {
        context.report({ node, messageId: 'face', data: { module: other } });
        return;
      }
      // Inside a module, another's face gives types only: its functions come as parameters.
      if (own !== undefined && !typeOnly(node)) {
        context.report({ node, messageId: 'given', data: { module: other } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

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
    files: ['src/config.ts'],
    rules: layerRule({
      regex: '^(\\.\\.?/)+(modules|ledger|reports)/',
      message: 'platform/ is the floor: it imports no module, ledger or reports code.',
    }),
  },
  {
    // config.ts fills the settings each platform piece declares; platform never reads config.ts.
    // The reports service is refused by portal/reports-service, which tells platform/reports/
    // (the client) apart from it.
    files: ['src/platform/**/*.ts'],
    rules: layerRule(
      {
        regex: '^(\\.\\.?/)+(modules|ledger)/',
        message: 'platform/ is the floor: it imports no module, ledger or reports code.',
      },
      {
        regex: '^(\\.\\./)+config\\.js$',
        message:
          'platform/ declares the settings it takes; config.ts fills them, never the reverse.',
      },
    ),
  },
  {
    files: ['src/ledger/**/*.ts'],
    rules: layerRule({
      regex: '^(\\.\\./)+modules/',
      message: 'The ledger and the reports service are the ERP side: they import no portal module.',
    }),
  },
  {
    // Its entry point (main.ts) too: development defaults come from platform/, or from the API
    // that starts it, and what it draws comes in the bodies of contract/reports.ts.
    files: ['src/reports/**/*.ts'],
    rules: layerRule(
      {
        regex: '^(\\.\\./)+modules/',
        message:
          'The ledger and the reports service are the ERP side: they import no portal module.',
      },
      {
        regex: '^(\\.\\./)+ledger/',
        message:
          'The reports service imports no ledger code: what it draws comes in the bodies of contract/reports.ts (shared rules live in platform/).',
      },
    ),
  },
  {
    // Every file but the tests: a module is reached through its face only.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    plugins: {
      portal: { rules: { 'module-faces': moduleFaces, 'reports-service': reportsService } },
    },
    rules: { 'portal/module-faces': 'error' },
  },
  {
    // The tests and the benches may take the service's parts apart (its page geometry); the
    // code that ships reaches it over HTTP only.
    files: ['src/**/*.ts'],
    rules: { 'portal/reports-service': 'error' },
  },
  {
    files: ['src/modules/**/*.ts'],
    rules: {
      ...layerRule({
        regex: '^(\\.\\./)+ledger/(.+/)?queries(\\.js$|/)',
        message: "Modules call the ledger's services, not its queries.",
      }),
    },
  },
  {
    // The API's schemas, shared with the web client: TypeBox and each other, nothing else.
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./',
              message: 'contract/ holds schemas only: it imports typebox and its own files.',
            },
          ],
        },
      ],
    },
  },
  {
    // The route table reaches the browser: its schemas are types only, or TypeBox would follow.
    files: ['contract/routes.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '.',
              allowTypeImports: true,
              message:
                'contract/routes.ts is plain data at run time (the web client bundles it): import types only.',
            },
          ],
        },
      ],
    },
  },
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
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/',
              message: 'web/ talks to the API over HTTP only; it imports nothing from src/.',
            },
            {
              // The route table (contract/routes.ts) is plain data and the names of documents
              // (contract/names.ts) plain code without imports: the contract files whose values
              // the web client takes.
              regex: '^(\\.\\./)+contract/(?!(routes|names)\\.js$)',
              allowTypeImports: true,
              message:
                "web/ reads the API's schemas as types only (import type): no server code in the bundle.",
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
    files: ['eslint.config.js', 'prettier.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node scripts run by npm (prepare, prestart) before dependencies may be there, and
    // the image's own (deploy/image: the health check and the migration role).
    files: ['scripts/**/*.mjs', 'deploy/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-console': 'off' },
  },
);
