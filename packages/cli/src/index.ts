// Public entry of the argocd-cluster-registrar package (the bin is main.js). Named exports
// for embedding the registrar or driving it from tests and benchmarks.
export { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, UsageError, main, version } from './main.js';
export type { Io } from './main.js';
export { parseFlags } from './flags.js';
export type { CliOptions, FlagError, FlagParseResult } from './flags.js';
export { FLAGS, SETTINGS, envName } from './settings.js';
export type { LogFormat, OutputFormat, Setting } from './settings.js';
export { renderHelp } from './help.js';
export { parseListenAddress } from './values.js';
export { Daemon } from './manager.js';
export type { DaemonOptions } from './manager.js';
export { DEFAULT_TIMING, PassSchedule } from './schedule.js';
export type { DaemonTiming } from './schedule.js';
export { passNeedsRetry, runPass } from './reconciler.js';
export type { PassOptions, PassReport, PassScope, ReconcilerDeps } from './reconciler.js';
export { REDACTED, createLogger, resolveLogFormat, silentLogger } from './logging.js';
export type { LogFields, LogLevel, Logger, LoggerOptions } from './logging.js';
export { RegistrarMetrics } from './metrics.js';
export { ListenError, startServers } from './server.js';
export type { Endpoints, ProbeResult, RunningServers } from './server.js';
