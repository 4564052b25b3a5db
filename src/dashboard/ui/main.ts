import './styles.css';
import { render } from 'preact';
import { html } from './html';
import { App } from './components/App';

render(html`<${App} />`, document.getElementById('app')!);
