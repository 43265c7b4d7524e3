// The reflector's state: the local store of projected objects, and how an event or a
// completed list changes it. Only changes are reported: an object whose resourceVersion is
// unchanged is not, and one the projection rejects is dropped (a delete, if it was kept).
import type { ListWatchHandlers, Versioned, WatchedObject } from './list-watch-types.js';

export function keyOf(object: WatchedObject): string {
  const meta = object.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? '');
}

export interface ReflectorStore<T> {
  readonly store: Map<string, T>;
  readonly upsert: (object: WatchedObject) => void;
  readonly remove: (object: WatchedObject) => void;
  /** A completed list: the store becomes `items`, with the differences reported. */
  readonly replace: (items: readonly WatchedObject[]) => void;
}

export function createReflectorStore<T extends Versioned>(
  project: (object: WatchedObject) => T | undefined,
  handlers: ListWatchHandlers<T>,
): ReflectorStore<T> {
  const store = new Map<string, T>();

  const upsert = (object: WatchedObject): void => {
    const key = keyOf(object);
    const value = project(object);
    const previous = store.get(key);
    if (value === undefined) {
      if (previous !== undefined) {
        store.delete(key);
        handlers.onDelete(key, previous);
      }
      return;
    }
    if (previous?.resourceVersion === value.resourceVersion) return;
    store.set(key, value);
    handlers.onUpsert(key, value, previous);
  };

  const remove = (object: WatchedObject): void => {
    const key = keyOf(object);
    const previous = store.get(key);
    if (previous === undefined) return;
    store.delete(key);
    handlers.onDelete(key, previous);
  };

  const replace = (items: readonly WatchedObject[]): void => {
    const seen = new Set<string>();
    for (const item of items) {
      seen.add(keyOf(item));
      upsert(item);
    }
    for (const [key, previous] of [...store]) {
      if (seen.has(key)) continue;
      store.delete(key);
      handlers.onDelete(key, previous);
    }
  };

  return { store, upsert, remove, replace };
}
