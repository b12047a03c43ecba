/** Entry point: settles the sign-in (a return from the identity provider), then mounts the app into #app. */
import { render } from 'preact';
import { App } from './App.js';
import { initAuth } from './oidc.js';
import './styles.css';

void initAuth().finally(() => render(<App />, document.getElementById('app')!));
