import { render } from 'preact';
import { App } from './components/App';
import { boot } from './actions/session';
import { appStore } from './state/app-store';
import { watchTheme } from './theme-dom';
import './styles.css';
// After styles.css, so its narrow-window rules win over the base ones of the same specificity.
import './styles/phone.css';

performance.mark('parley:script-start');
watchTheme(appStore);
render(<App />, document.getElementById('app') as HTMLElement);
void boot();
