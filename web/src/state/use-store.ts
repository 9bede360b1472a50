import { createContext } from 'preact';
import { useContext, useEffect, useReducer, useRef } from 'preact/hooks';
import type { AppState } from './app-state';
import { appStore } from './app-store';
import type { Store } from './store';

/** The store components read: the page's by default; a test renders a component against a store of its own. */
export const StoreContext = createContext<Store>(appStore);

/** Subscribes a component to a slice of the state; it re-renders when the slice changes (by identity). */
export function useStore<T>(selector: (s: AppState) => T): T {
  const store = useContext(StoreContext);
  const [, force] = useReducer((c: number) => c + 1, 0);
  const selectorRef = useRef(selector);
  selectorRef.current = selector;
  const value = selector(store.get());
  const valueRef = useRef(value);
  valueRef.current = value;
  useEffect(() => {
    const check = () => {
      if (!Object.is(selectorRef.current(store.get()), valueRef.current)) force(0);
    };
    const unsubscribe = store.subscribe(check);
    check();
    return unsubscribe;
  }, [store]);
  return value;
}
