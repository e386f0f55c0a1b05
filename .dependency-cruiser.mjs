/**
 * The layering rules of docs/architecture.md ("Layers"), checked on every import of src/
 * (type-only imports included) by `npm run lint` and by test/docs/layering.test.ts.
 *
 * The rules say where the layers are by path, so they hold whatever a layer's files are called.
 */

/** Files that hold the SQL of one aggregate: `<aggregate>-repository.ts` (docs/architecture.md, "Layers"). */
const REPOSITORY = '/[a-z0-9-]+-repository\\.ts$';

/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
/**
 * The use cases' capability folders (src/use-cases/<folder>/, docs/architecture.md#use-cases): what
 * a person does, and the folders each may call. A call the map does not allow fails lint
 * (`use-case-folder-<folder>`); the map has no cycle, and `deps.ts` is the only file beside the
 * folders they may import (`jobs.ts` registers their handlers, above them).
 */
export const USE_CASE_FOLDERS = {
  checkout: ['risk', 'installments', 'pot', 'give-back', 'notices'],
  pot: ['risk', 'installments', 'give-back', 'notices'],
  installments: ['notices'],
  'shopper-space': ['installments', 'give-back', 'notices'],
  refunds: ['pot', 'notices'],
  'give-back': ['notices'],
  disputes: [],
  reconciliation: ['checkout', 'pot', 'installments', 'shopper-space', 'disputes'],
  payouts: [],
  risk: [],
  'merchant-setup': [],
  'back-office': ['refunds'],
  notices: [],
};

const useCaseFolderRules = Object.entries(USE_CASE_FOLDERS).map(([folder, calls]) => ({
  name: `use-case-folder-${folder}`,
  severity: 'error',
  comment: `src/use-cases/${folder}/ calls only ${calls.length ? calls.map((c) => `${c}/`).join(', ') + ' and ' : ''}deps.ts (USE_CASE_FOLDERS, docs/architecture.md#use-cases).`,
  from: { path: `^src/use-cases/${folder}/` },
  to: { path: '^src/use-cases/', pathNot: `^src/use-cases/(${[folder, ...calls].join('|')})/|^src/use-cases/deps\\.ts$` },
}));

const forbidden = [
  ...useCaseFolderRules,
  {
    name: 'no-circular',
    severity: 'error',
    comment: 'Modules import each other in a circle: a layer depends on itself through another, and no file of the circle can be read or tested on its own.',
    from: { path: '^src/' },
    to: { circular: true },
  },
  {
    name: 'no-folder-cycle',
    severity: 'error',
    scope: 'folder',
    comment:
      'Two folders directly under src/ import each other (through different files, so no-circular does not see it): neither can be read or moved without the other. Move what both need down to the lower one (docs/architecture.md, "Layers").',
    from: { path: '^src/[^/]+/?$' },
    to: { path: '^src/[^/]+/?$', circular: true },
  },
  {
    name: 'domain-imports-only-domain',
    severity: 'error',
    comment: 'domain/ holds the pure rules: it imports nothing of ours outside domain/ (Node built-ins only otherwise).',
    from: { path: '^src/domain/' },
    to: { pathNot: '^src/domain/', dependencyTypesNot: ['core'] },
  },
  {
    name: 'i18n-and-html-below-everything',
    severity: 'error',
    comment: 'i18n/ and html/ sit below everything that renders: they import only each other and domain/.',
    from: { path: '^src/(i18n|html)/' },
    to: { path: '^src/', pathNot: '^src/(domain|i18n|html)/' },
  },
  {
    name: 'db-imports-only-db',
    severity: 'error',
    comment: 'db/ is the bottom layer: the database handle, migrations and locks know nothing above them (source-files.ts, a leaf that finds the migrations from the root, aside).',
    from: { path: '^src/db/' },
    to: { path: '^src/', pathNot: '^src/(db/|source-files\\.ts$)' },
  },
  {
    name: 'repositories-import-nothing-above',
    severity: 'error',
    comment: 'A repository holds the SQL of one aggregate: it never reaches up into use cases, jobs, messages, pages or HTTP.',
    from: { path: REPOSITORY },
    to: { path: '^src/(use-cases|jobs|messaging|pages|http)/' },
  },
  {
    name: 'routes-call-use-cases-not-repositories',
    severity: 'error',
    comment:
      'A route (and a back-office handler) parses its input, calls a use case or a query module of use-cases/, and maps the outcome: it never reaches the SQL of a repository itself (docs/architecture.md, "Layers").',
    from: { path: '^src/http/(routes|backoffice/(routes|api))/' },
    to: { path: REPOSITORY },
  },
  {
    name: 'money-moves-through-the-engine',
    severity: 'error',
    comment: 'A payment row is reserved and a PSP answer recorded (insertPayment, recordResult) only by the money engine (src/money/, docs/architecture.md#the-money-engine).',
    from: { path: '^src/', pathNot: '^src/money/' },
    to: { path: '^src/money/payment-record-repository\\.ts$' },
  },
  {
    name: 'no-http-below-routes',
    severity: 'error',
    comment: 'Only the HTTP layer (and the composition root, app.ts/main.ts) knows HTTP: use cases return outcomes, never HTTP types.',
    from: { path: '^src/(domain|use-cases|jobs|db|messaging|psp|pages|i18n|html|staff)/|^src/services\\.ts$|' + REPOSITORY },
    to: { path: '^src/http/' },
  },
  {
    name: 'psp-and-messaging-never-import-pages',
    severity: 'error',
    comment: 'Connectors and messages do not render hosted pages (the sandbox PSP 3-D Secure page has its own minimal shell).',
    from: { path: '^src/(psp|messaging)/' },
    to: { path: '^src/pages/' },
  },
  {
    name: 'psp-and-messaging-never-import-use-cases',
    severity: 'error',
    comment: 'Use cases call connectors and send messages, not the other way round.',
    from: { path: '^src/(psp|messaging)/' },
    to: { path: '^src/use-cases/' },
  },
  {
    name: 'src-never-imports-tests',
    severity: 'error',
    comment: 'Production code never depends on test/ or bench/.',
    from: { path: '^src/' },
    to: { path: '^(test|bench)/' },
  },
  {
    name: 'no-unresolvable-import',
    severity: 'error',
    comment: 'An import that resolves to no file (or a package not in package.json) would fail at run time.',
    from: {},
    to: { couldNotResolve: true },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden,
  options: {
    // Type-only imports count: a domain file that imports a type from http/ depends on http/.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // Browser scripts served as files (pages/assets, sandbox/assets) are not modules of the service.
    exclude: { path: '^src/(pages|sandbox)/assets/' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
  },
};
