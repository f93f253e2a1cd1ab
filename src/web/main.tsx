import { createRoot } from 'react-dom/client';
import { App } from './app/App.js';
import { checkVersion } from './app/versionCheck.js';

createRoot(document.getElementById('root')!).render(<App />);
void checkVersion();
