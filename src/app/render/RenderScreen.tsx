/**
 * `?screen=render`: the screen layout driven frame by frame by the video renderer. Installs the
 * renderer's API on the window (`__render`, see driver.ts) and reports each committed frame.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useLayoutEffect } from 'react';
import { useApp, useAppStore } from '../state/store.ts';
import { Screen } from '../picture/Screen.tsx';
import { createRenderApi, markDrawn, type RenderApi } from './driver.ts';

declare global {
  interface Window {
    __render?: RenderApi;
  }
}

export function RenderScreen() {
  const client = useQueryClient();
  const store = useAppStore();
  const frame = useApp((s) => s.screenFrame);
  useEffect(() => {
    document.documentElement.classList.add('screen-mode');
    window.__render = createRenderApi(client, store);
    return () => {
      delete window.__render;
    };
  }, [client, store]);
  useLayoutEffect(() => {
    if (frame) markDrawn(store, frame.frame);
  }, [frame, store]);
  return frame ? <Screen frame={frame} /> : <div className="screen" data-testid="screen-waiting" />;
}
