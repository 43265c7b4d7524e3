// The planner's vocabulary, one module per stage, gathered. All readonly, plain and
// JSON-serialisable, so a snapshot can be saved, a plan rendered, and both compared byte for byte.
export type * from './snapshot-types.js';
export type * from './config-types.js';
export type * from './translation-types.js';
export type * from './plan-types.js';
export type * from './profile-types.js';
