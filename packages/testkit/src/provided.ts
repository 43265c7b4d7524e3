/** What the global setup hands to test files through vitest's provide/inject. */
export interface ProvidedPlane {
  readonly name: string;
  readonly kubeconfigPath: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    acrTestHost: ProvidedPlane;
    acrTestChild: ProvidedPlane;
  }
}
