/** `@parlance/client/conformance`: the persistence adapter contract as checks any adapter can run in its own tests. */
export { adapterConformance, type ConformanceCase } from './adapter-conformance.ts';
