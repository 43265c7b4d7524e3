// One gather pass: every API request goes through it, so it counts them and records each
// failure (a value, never a throw) under the scope that was being read.
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';

export interface GatherFailure {
  /** What was being read, e.g. 'list namespaces', 'list secrets in k3k-a'. */
  readonly scope: string;
  readonly failure: ApiFailure;
}

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: ApiFailure };

/** One gather: counts requests and collects failures. */
export class Pass {
  requests = 0;
  readonly failures: GatherFailure[] = [];

  /** `notFoundIsAnswer`: a 404 is the information sought (a lookup), not a failure. */
  async call<T>(
    scope: string,
    request: () => Promise<T>,
    notFoundIsAnswer = false,
  ): Promise<Outcome<T>> {
    this.requests += 1;
    try {
      return { ok: true, value: await request() };
    } catch (err) {
      const failure = classifyApiError(err);
      if (!(notFoundIsAnswer && failure.kind === 'not-found'))
        this.failures.push({ scope, failure });
      return { ok: false, failure };
    }
  }

  /** Follows `continue` tokens; undefined when any page failed. */
  async listAll<T>(
    scope: string,
    page: (token: string | undefined) => Promise<{
      readonly items?: readonly T[];
      readonly metadata?: { readonly continue?: string };
    }>,
  ): Promise<T[] | undefined> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      const result = await this.call(scope, () => page(token));
      if (!result.ok) return undefined;
      items.push(...(result.value.items ?? []));
      token = result.value.metadata?.continue || undefined;
    } while (token !== undefined);
    return items;
  }
}

export function candidateScope(namespace: string): string {
  return `list secrets in ${namespace}`;
}

/** The message of the first failure recorded under one of `scopes`: what the planner is told. */
export function failureMessage(pass: Pass, scopes: readonly string[]): string {
  const found = pass.failures.find((failure) => scopes.includes(failure.scope));
  return found?.failure.message ?? 'the read failed';
}
