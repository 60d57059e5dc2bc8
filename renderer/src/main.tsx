import { render } from 'preact';
import { App } from './App';
import './theme';

render(<App />, document.getElementById('app')!);
