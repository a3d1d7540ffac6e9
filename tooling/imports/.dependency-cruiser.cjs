/**
 * Imports stay one-way. dependency-cruiser reads every TypeScript source of every package, app
 * and tool (type-only imports included: a circle of types is still a circle a reader has to hold
 * at once) and fails on any import circle, inside a package or across packages (a workspace
 * import resolves to the package's source). https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: split the shared part into a module both sides import (see protocol/src/pause.ts, thread-shape.ts).',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|build|\\.next|\\.react-router|\\.wrangler|\\.turbo|test-results|playwright-report)/' },
    includeOnly: { path: '^(\\.\\./\\.\\./)?(packages|apps|tooling)/' },
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
