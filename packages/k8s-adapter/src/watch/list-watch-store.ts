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
  /**
   * A list read page by page: each page is taken as it arrives, and only the objects whose
   * resourceVersion differs from the store's are projected and held until commit(), so a
   * re-list of an unchanged world holds one page of raw objects at a time, not the whole
   * list beside the store (tens of MiB of registrations at 10,000 clusters). commit() makes
   * the store the list, with the differences reported.
   */
  readonly relist: () => { add(page: readonly WatchedObject[]): void; commit(): void };
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

  const relist = () => {
    const seen = new Set<string>();
    // Projected now, applied at commit: undefined is "the projection rejects it".
    const changed = new Map<string, T | undefined>();
    return {
      add(page: readonly WatchedObject[]): void {
        for (const item of page) {
          const key = keyOf(item);
          seen.add(key);
          const version = item.metadata?.resourceVersion;
          if (version !== undefined && store.get(key)?.resourceVersion === version) {
            changed.delete(key);
            continue;
          }
          const value = project(item);
          // Rejected and not kept: nothing to apply (most Secrets cluster-wide are these).
          if (value === undefined && !store.has(key)) changed.delete(key);
          else changed.set(key, value);
        }
      },
      commit(): void {
        for (const [key, value] of changed) {
          const previous = store.get(key);
          if (value === undefined) {
            if (previous === undefined) continue;
            store.delete(key);
            handlers.onDelete(key, previous);
          } else if (previous?.resourceVersion !== value.resourceVersion) {
            store.set(key, value);
            handlers.onUpsert(key, value, previous);
          }
        }
        for (const [key, previous] of [...store]) {
          if (seen.has(key)) continue;
          store.delete(key);
          handlers.onDelete(key, previous);
        }
      },
    };
  };

  return { store, upsert, remove, relist };
}
