import { initialState } from './app-state';
import { createStore } from './store';

/** The page's one store: what the actions change and what the page's components read (through StoreContext). */
export const appStore = createStore(initialState);
