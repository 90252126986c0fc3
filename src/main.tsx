import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { loadLanguage } from './app/i18n/catalogue.ts';
import { followLanguage } from './app/i18n/i18n.ts';
import { AppStoreProvider, createAppStore } from './app/state/store.ts';
import { openingApplied, openingUrl } from './app/state/urlSync.ts';
import { takeRoomKey } from './app/state/roomKey.ts';
import { unsettle, watchSettled } from './app/state/settled.ts';
import './app/ui/styles.css';

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
// The page's one store; the URL fills it once mounted (state/urlSync.ts). Its language is the
// link's from the start, so that the page fetches no other language's text meanwhile.
const lang = openingUrl().state.lang ?? 'en';
const store = createAppStore({ lang });
// A link to a chapter holds answers back from the first paint: the walkthrough's code, which knows
// whether the chapter asks a question and whether it was answered, loads after the page and then says.
if (openingUrl().state.chapter != null) store.setState({ questionOpen: true, questionAhead: true });
// In a room, the talk's questions are still to come until the room says otherwise: the first screen a
// phone opens on holds back their answers from its first paint (walkthrough/runner.ts `questionAhead`).
if (openingUrl().state.room) store.setState({ questionAhead: true });
followLanguage(store);
// A workshop room (`?room=NAME`, npm run workshop): only then is a socket opened, to this page's own origin.
const room = openingUrl().state.room;
// The presenter key is read from the fragment and taken off the address bar at once (state/roomKey.ts).
// The room joins once the page holds its own link's state: the room's beat is applied over it, never under.
if (room) {
  const key = takeRoomKey(room);
  void Promise.all([import('./app/run/roomClient.ts'), openingApplied()]).then(([m]) => m.startRoom(store, room, key));
}

// The page says when it is at rest (`data-settled` on the root): nothing loading, nothing playing, the
// layout still. The video's frame-by-frame layout has its own rule for a drawn frame (render/driver.ts).
if (openingUrl().state.screen !== 'render') {
  watchSettled(document, () => {
    const s = store.getState();
    return queryClient.isFetching() + queryClient.isMutating() + (s.playing ? 1 : 0) + (s.handoffPlaying ? 1 : 0);
  });
  store.subscribe(unsettle);
  queryClient.getQueryCache().subscribe(unsettle);
}

function render() {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <AppStoreProvider store={store}>
          <App />
        </AppStoreProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}

// The page fetches its language's first-screen text first (only that language's: a page opened in
// French does not download English's), so that its first render is already in that language; if
// the text cannot be fetched it opens in English (the store's subscription in i18n.ts then says why).
loadLanguage(lang)
  .catch(() => loadLanguage('en'))
  .then(render, render);
