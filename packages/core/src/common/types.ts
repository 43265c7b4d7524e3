// The planner's vocabulary: what it reads (a Snapshot), what it decides (a Plan) and the
// typed reasons in between. Everything here is readonly, plain data and JSON-serialisable,
// so a snapshot can be saved, a plan rendered, and both compared byte for byte.

// The vocabulary lives in one module per stage; this module gathers it so every import of
// './types.js' keeps working.
export type * from './snapshot-types.js';
export type * from './config-types.js';
export type * from './translation-types.js';
export type * from './plan-types.js';
export type * from './profile-types.js';
