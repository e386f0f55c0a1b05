// ESLint: the recommended rules of ESLint and typescript-eslint (without type information, so the
// whole tree lints in seconds), and the layering rules that imports cannot express: SQL runs only in
// repositories and db/ (docs/architecture.md, "Layers"); a connector's money operations are called
// only by the money engine (docs/architecture.md#the-money-engine). The import rules are dependency-cruiser's
// (.dependency-cruiser.mjs). Layout is Prettier's (.prettierrc.json): no stylistic rule here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Where SQL may be written: the repositories (`<aggregate>-repository.ts`) and db/. */
export const SQL_ALLOWED = ['src/**/*-repository.ts', 'src/db/**'];

const SQL_KEYWORDS = '^\\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH|CREATE|ALTER|DROP|TRUNCATE|LOCK TABLE)\\s';
const SQL_MESSAGE = 'SQL is written only in a repository (<aggregate>-repository.ts) or under src/db/ (docs/architecture.md, "Layers").';
const SQL_SELECTORS = [
  // A statement run on a database handle or a transaction (`Sql.query`). `.exec(` is also a
  // regular expression's: a script for `Sql.exec` is caught by its text below.
  { selector: "CallExpression[callee.property.name='query']", message: SQL_MESSAGE },
  // SQL text, wherever it is put together.
  { selector: `Literal[value=/${SQL_KEYWORDS}/]`, message: SQL_MESSAGE },
  { selector: `TemplateLiteral > TemplateElement:first-child[value.raw=/${SQL_KEYWORDS}/]`, message: SQL_MESSAGE },
];
/** A connector's money operations, called only by the money engine (src/money/) and the connectors themselves (src/psp/). */
const MONEY_OPERATION = {
  selector: 'CallExpression[callee.property.name=/^(authorize|capture|void|refund|chargeOffSession)$/]',
  message:
    "A connector's money operation is called only by the money engine: describe the call as a step (src/money/psp-call.ts) or a movement (docs/architecture.md#the-money-engine).",
};

export default tseslint.config(
  // Browser scripts served as they are (pages/assets, sandbox/assets), the docs and the built
  // bundle (dist/, npm run build) are not linted.
  { ignores: ['node_modules/**', 'src/pages/assets/**', 'src/sandbox/assets/**', 'docs/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `const { secret: _secret, ...rest } = x` drops a field on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Input checks reject or strip control characters on purpose (messaging/templates.ts, psp/credentials.ts).
      'no-control-regex': 'off',
      // French texts put a narrow no-break space before « : » and « ? » in template literals on purpose.
      'no-irregular-whitespace': ['error', { skipTemplates: true }],
      // Several PSP statuses mapped to one of ours, with a comment between the cases, is not a fallthrough bug.
      'no-fallthrough': ['error', { allowEmptyCase: true }],
    },
  },
  {
    // Plain JavaScript preloaded into Node.js processes (the bundle cannot preload TypeScript).
    files: ['bench/*.mjs'],
    languageOptions: { globals: { process: 'readonly', setTimeout: 'readonly' } },
  },
  {
    // Tests and the PSP fakes read JSON bodies as loosely as the PSP writes them; src/ keeps the rule.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: SQL_ALLOWED,
    rules: { 'no-restricted-syntax': ['error', ...SQL_SELECTORS] },
  },
  {
    // Outside the engine and the connectors, no connector's money operation either (the same
    // rule's selectors: a later block replaces an earlier one's for its files, so both are here).
    files: ['src/**/*.ts'],
    ignores: [...SQL_ALLOWED, 'src/money/**', 'src/psp/**'],
    rules: { 'no-restricted-syntax': ['error', ...SQL_SELECTORS, MONEY_OPERATION] },
  },
);
