// Public entry of the argocd-cluster-registrar package (the bin is main.js). Named exports
// for embedding the registrar or driving it from tests and benchmarks.
export { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, UsageError, main, version } from './main.js';
export type { Io } from './main.js';
export { FLAGS, envName, parseFlags, parseListenAddress, renderHelp } from './flags.js';
export type { CliOptions, FlagError, FlagParseResult, LogFormat, OutputFormat } from './flags.js';
export { Daemon, DEFAULT_TIMING } from './daemon.js';
export type { DaemonOptions, DaemonTiming } from './daemon.js';
export { passNeedsRetry, runPass } from './reconciler.js';
export type { PassOptions, PassReport, PassScope, ReconcilerDeps } from './reconciler.js';
export { REDACTED, createLogger, resolveLogFormat, silentLogger } from './logging.js';
export type { LogFields, LogLevel, Logger, LoggerOptions } from './logging.js';
export { RegistrarMetrics } from './metrics.js';
export { startServers } from './server.js';
export type { Endpoints, ProbeResult, RunningServers } from './server.js';
