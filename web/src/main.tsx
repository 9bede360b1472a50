import { render } from 'preact';
import { App } from './components/App';
import { boot } from './actions/session';
import './styles.css';

performance.mark('parley:script-start');
render(<App />, document.getElementById('app') as HTMLElement);
void boot();
