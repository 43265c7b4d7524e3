// How a credential appears in the preview and the JSON plan. Certificates (caData, certData)
// are public: their SHA-256 fingerprint shows a rotation and can be checked against the file.
// Passwords, tokens and keys get no hash at all: a short unkeyed hash of a low-entropy secret
// can be guessed offline, and core is pure (no per-process key to make a keyed one), so the
// preview says only that the value is there and, in a diff, that it changed.

import { maskedUrl } from '../common/server-address.js';
import { fingerprint } from './sha256.js';

/** The stand-in for a password, token, key or any unrecognised sensitive value. */
export const CONCEALED = '(sensitive value)';

const FINGERPRINT = /^sha256:[0-9a-f]{12,64}$/;

/** Fields (by their last path segment) whose values are public certificates. */
const CERTIFICATE_FIELDS: ReadonlySet<string> = new Set(['caData', 'certData']);

/**
 * A sensitive value of `field` for display. Values already shown safely pass through, so a
 * renderer may apply this to what the planner produced; anything else is fingerprinted
 * (certificates) or concealed, so a slip upstream cannot leak a secret or a hash of one.
 */
export function sensitiveDisplay(field: string, value: string): string {
  if (value === CONCEALED) return value;
  if (!CERTIFICATE_FIELDS.has(field.slice(field.lastIndexOf('.') + 1))) return CONCEALED;
  return FINGERPRINT.test(value) ? value : fingerprint(value);
}

/**
 * Environment variables of an exec block whose values are public: the ones the translations
 * write (an AWS region, an Azure environment name, an application id). Any other variable's
 * value may be a credential (a hand-edited registration), so it is concealed.
 */
export const PUBLIC_EXEC_ENV: ReadonlySet<string> = new Set([
  'AWS_REGION',
  'AAD_ENVIRONMENT_NAME',
  'AAD_SERVER_APPLICATION_ID',
]);

/**
 * A server or proxy URL for display: user-info, query and fragment masked (a hand-edited
 * registration's proxy password); text that is no URL concealed whole.
 */
export function urlDisplay(value: string): string {
  return maskedUrl(value) ?? CONCEALED;
}

/**
 * The words of argocd-k8s-auth's command lines that the translations write: subcommands, the
 * flags, and the values of the flags that name an EKS cluster and an IAM role (identifiers, as
 * in awsAuthConfig). Any other argument may be a credential (a hand-edited plugin's
 * `--token`), so it is concealed.
 */
const SUBCOMMANDS: ReadonlySet<string> = new Set(['aws', 'azure', 'gcp']);
const FLAGS_WITH_PUBLIC_VALUES: ReadonlySet<string> = new Set(['--cluster-name', '--role-arn']);

/** An exec block's args for display: public words as they are, any other one concealed. */
export function execArgsDisplay(args: readonly string[]): string[] {
  return args.map((arg, index) =>
    SUBCOMMANDS.has(arg) ||
    FLAGS_WITH_PUBLIC_VALUES.has(arg) ||
    FLAGS_WITH_PUBLIC_VALUES.has(args[index - 1] ?? '')
      ? arg
      : CONCEALED,
  );
}
