/**
 * The layering of shared/design/architecture.md, checked by dependency-cruiser as a stage of
 * `npm test` (scripts/test.mjs) before the suites. Each rule's `comment` is what a violation prints.
 * Type-only imports count: `tsPreCompilationDeps` reads them before TypeScript erases them.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'db-imports-nothing-of-the-product',
      comment: 'server/db/ holds storage only: it imports nothing of the product above it (architecture.md "Nothing imports upward")',
      severity: 'error',
      from: { path: '^server/db/' },
      to: { path: '^(server/(?!db/)|main/|renderer/)' },
    },
    {
      name: 'integrations-import-nothing-of-the-product',
      comment: 'server/integrations/<svc>/ knows one protocol and nothing about the product: it imports nothing of the product above it',
      severity: 'error',
      from: { path: '^server/integrations/' },
      // priority.ts (the process's CPU priority of background work) and sleep.ts (an abortable wait):
      // leaves that import nothing of the product.
      to: { path: '^(server/(?!integrations/)|main/|renderer/)', pathNot: '^server/(priority|sleep)\\.ts$' },
    },
    {
      name: 'domain-never-imports-routes',
      comment: 'server/domain/ holds the rules and never imports the doors above it (api, rest, http, ws)',
      severity: 'error',
      from: { path: '^server/domain/' },
      to: { path: '^server/(api|rest|http|ws)/' },
    },
    {
      name: 'routes-never-import-integrations',
      comment: 'api/ and rest/ reach outside services only through domain/, never server/integrations/ directly',
      severity: 'error',
      from: { path: '^server/(api|rest)/' },
      to: { path: '^server/integrations/' },
    },
    {
      name: 'main-never-imports-server',
      comment: 'main/ (Electron) starts the server as a child process and never imports server/',
      severity: 'error',
      from: { path: '^main/' },
      to: { path: '^server/' },
    },
    {
      name: 'no-import-cycles',
      comment: 'no import cycles, type-only imports included: put shared types in a types.ts beside the service, or in a leaf module',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|\\.test\\.ts$|^test/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
