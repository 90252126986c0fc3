/**
 * The one store of the page, in slices: the situation (scenario, switches, comparison, time,
 * selection, view, traffic model), playback, the person's settings (language, presenter mode,
 * walkthrough chapter, decode backend), the notices shown, and the decode-backend panel. One store
 * per instance (createAppStore), given to the views by AppStoreProvider; views read it through
 * selectors (`useApp(s => s.time)`), never whole, and modules that act on it are handed it. The URL codec (url.ts) maps the
 * situation and settings to the query string.
 */
import { createContext, createElement, useContext, type ReactNode } from 'react';
import { createStore, useStore, type StateCreator, type StoreApi } from 'zustand';
import { INCIDENT_SWITCHES, type Language, type SwitchKey, type Switches } from '../../engine/switches.ts';
import { DEFAULT_TRAFFIC } from '../../engine/incident/traffic.ts';
import type { RunRequest, ScenarioName } from '../../engine/runs/index.ts';
import type { Deployment } from '../../engine/deployment.ts';
import type { BackendStatus, CompareReport, DecodeRunResult, GpuFault } from '../../gpu/reports.ts';
import type { RoomView } from './room.ts';

export type { ScenarioName, SwitchKey, Switches };
export type ViewName = 'cluster' | 'transfer' | 'response' | 'stage';
export type { Language };

export interface Selection {
  node: string;
  page: number;
}

export interface SituationSlice {
  scenario: ScenarioName;
  switches: Switches;
  /** A switch whose fix the run is compared with, or null. */
  compare: SwitchKey | null;
  /** Simulated ms since the run's start (the incident's clock: it picks the situation). */
  time: number;
  /**
   * Seconds on the selected request's handoff clock (moment/handoff.ts), or null: the stage
   * then shows the handoff where the incident's instant falls. Moving the incident's clock or
   * choosing another request sets it back to null.
   */
  handoff: number | null;
  selectedRequest: number | null;
  selectedPage: Selection | null;
  view: ViewName;
  /** Incident traffic model (assumptions A2, A1): ordinary requests per day, and tenants. */
  requestsPerDay: number;
  tenants: number;
  /** "Your deployment": an operator's numbers (URL `dep`); the page then replays one request on them. */
  deployment: Deployment | null;
}

export interface PlaybackSlice {
  playing: boolean;
  /** Simulated seconds per real second; 0: the whole run in about 30 s. */
  speed: number;
  /** The handoff clock playing, and its speed (1: the pace each step is given). */
  handoffPlaying: boolean;
  handoffSpeed: number;
  /** Play pressed while the handoff's picture was still being prepared: it plays once ready (handoffClock.ts). */
  handoffPlayAsked: boolean;
}

export interface SettingsSlice {
  lang: Language;
  /** The walkthrough chapter on screen (1-based, clamped by the walkthrough), or null when closed. */
  chapter: number | null;
  /** The beat of that chapter a link opened (walkthrough/timeline.ts), or null: from its start. Only with a chapter. */
  beat: number | null;
  /** Presenter mode: large type, clicker keys, blank screen, speaker notes. */
  presenter: boolean;
  /**
   * The lens on the evidence: 'report' shows only what the incident report says (every modelled or
   * assumed figure, word and mark dimmed; the report's facts left), 'all' shows everything.
   */
  lens: 'all' | 'report';
  /** Decode backend the person chose (the panel falls back to JS when WebGPU is unavailable). */
  backend: 'webgpu' | 'js';
  /** Test-only: a forced WebGPU failure (`?gpu-fault=`), see src/gpu/reports.ts. */
  gpuFault: GpuFault | null;
  /** `?bench`: exposes a measuring hook to the benchmarks; carries no state. */
  bench: boolean;
  /** `?screen`: the stage layout for a room or a recording; `?screen=render`: driven frame by frame by the video renderer. */
  screen: ScreenMode;
  /** `?room=NAME`: the page follows (or, with the presenter key in the fragment, drives) a workshop room (run/roomClient.ts). */
  room: string | null;
}

export type ScreenMode = 'off' | 'live' | 'render';

/** What the screen layout shows over the picture at one frame (set by the renderer or the live walkthrough). */
export interface ScreenFrame {
  frame: number;
  fps: number;
  scene: 'title' | 'card' | 'body' | 'end';
  /** Frames since the scene began, and its length in frames. */
  sceneFrame: number;
  sceneFrames: number;
  chapter: number | null;
  /** The cue up, its narration's length and the frames since it began. */
  cue: { key: string; kind: string; text: string; spoken: number; elapsed: number } | null;
  /** Predict beat: seconds left, fraction elapsed, answer revealed. */
  beat: { secondsLeft: number; elapsed: number; revealed: boolean } | null;
  highlight: string | null;
}

export interface ScreenSlice {
  screenFrame: ScreenFrame | null;
}

export interface NoticeSlice {
  notices: string[];
  notify: (message: string) => void;
  dismissNotice: (index: number) => void;
}

export type DecodeBusy = null | 'starting' | 'switching' | 'running' | 'comparing';

export interface DecodePanelState {
  status: BackendStatus | null;
  busy: DecodeBusy;
  run: DecodeRunResult | null;
  compare: CompareReport | null;
  error: string | null;
}

export interface DecodeSlice {
  decode: DecodePanelState;
  setDecode: (patch: Partial<DecodePanelState>) => void;
}

/** What the URL carries: every slice's state except notices and the decode panel's results. */
export type UrlState = SituationSlice & PlaybackSlice & SettingsSlice;

/** The page a response token points at while it is hovered or focused: lit on the grids (not in the URL). */
export interface LinkSlice {
  /** The page, and the slot in it, the token drew on most. */
  linkedPage: (Selection & { slot?: number }) | null;
}

/** A window the timeline is asked to zoom to (simulated ms), e.g. by a walkthrough chapter; not in the URL. */
export interface TimelineZoomSlice {
  timelineZoom: { from: number; to: number } | null;
}

/**
 * A walkthrough question waiting for its answer: the views hold back what would answer it (the
 * story's outcome), so a room predicts before it sees. Not in the URL: a link opens a chapter afresh.
 */
export interface QuestionSlice {
  questionOpen: boolean;
  /**
   * A question still to come in the talk waits (this chapter's or a later one's; in a room, before the
   * first chapter, all of them): the first screen's outcome (the story's and the probe's: what prefill
   * computed, the status, whose words) holds back, since it answers questions of chapters ahead. The
   * same hold as `questionOpen`, over the first screen only, for the talk's questions to come.
   */
  questionAhead: boolean;
}

/**
 * The workshop room this page is in (`?room`), as its client last heard it (state/room.ts), or null:
 * no room, and no socket. Written only by the room's client (run/roomClient.ts); views read it by selector.
 */
export interface RoomSlice {
  roomView: RoomView | null;
  setRoomView: (view: RoomView | null) => void;
}

/**
 * The run that replays one request on `deployment`, built by the deployment view when it loads (the
 * engine's module that builds it stays out of the first screen); `none` when no prompt reaches the
 * reject path on those numbers, and null until it is built: both show the scenario's run. Not in the
 * URL: `dep` is.
 */
export interface DeploymentSlice {
  deploymentReplay: RunRequest | 'none' | null;
}

export type AppState = UrlState & DeploymentSlice & NoticeSlice & DecodeSlice & ScreenSlice & LinkSlice & TimelineZoomSlice & QuestionSlice & RoomSlice & {
  set: (patch: Partial<UrlState & TimelineZoomSlice & QuestionSlice & DeploymentSlice>) => void;
  setSwitch: (key: SwitchKey, on: boolean) => void;
};

export const DEFAULT_STATE: UrlState = {
  scenario: 'incident',
  switches: INCIDENT_SWITCHES,
  compare: null,
  time: 0,
  handoff: null,
  selectedRequest: null,
  selectedPage: null,
  view: 'cluster',
  requestsPerDay: DEFAULT_TRAFFIC.requestsPerDay,
  tenants: DEFAULT_TRAFFIC.tenants,
  deployment: null,
  playing: false,
  speed: 0, // 0: the whole run in about 30 s (the incident's two weeks at about 40,000×)
  handoffPlaying: false,
  handoffSpeed: 1,
  handoffPlayAsked: false,
  lang: 'en',
  chapter: null,
  beat: null,
  presenter: false,
  lens: 'all',
  backend: 'webgpu',
  gpuFault: null,
  bench: false,
  screen: 'off',
  room: null,
};

const noticeSlice: StateCreator<AppState, [], [], NoticeSlice> = (set) => ({
  notices: [],
  notify: (message) => set((s) => ({ notices: [...s.notices.filter((n) => n !== message), message] })),
  dismissNotice: (index) => set((s) => ({ notices: s.notices.filter((_, i) => i !== index) })),
});

const decodeSlice: StateCreator<AppState, [], [], DecodeSlice> = (set) => ({
  decode: { status: null, busy: 'starting', run: null, compare: null, error: null },
  setDecode: (patch) => set((s) => ({ decode: { ...s.decode, ...patch } })),
});

/**
 * The incident's clock and the request pick the situation; the handoff clock plays within it. A patch
 * that moves the first or changes the second without naming the handoff clock stops it and hands
 * the stage back to the incident's instant.
 */
export function situationPatch<P extends Partial<UrlState>>(s: UrlState, patch: P): P {
  if (('time' in patch || 'selectedRequest' in patch) && !('handoff' in patch)) {
    const moved = ('time' in patch && patch.time !== s.time) || ('selectedRequest' in patch && patch.selectedRequest !== s.selectedRequest);
    if (moved) return { ...patch, handoff: null, handoffPlaying: false };
  }
  return patch;
}

export type AppStore = StoreApi<AppState>;

/**
 * A store of its own: the page makes one (main.tsx), as does each test, so that nothing (the
 * video's driver, the screen layout, a test) overwrites another's (as xyflow makes one per flow).
 */
export function createAppStore(initial: Partial<UrlState> = {}): AppStore {
  return createStore<AppState>()((...a) => {
    const [set, get] = a;
    return {
      ...DEFAULT_STATE,
      ...initial,
      timelineZoom: null,
      questionOpen: false,
      questionAhead: false,
      deploymentReplay: null,
      // Another chapter starts from its start unless the patch names the beat (a link does).
      set: (patch) => set(situationPatch(get(), 'chapter' in patch && !('beat' in patch) ? { ...patch, beat: null } : patch)),
      setSwitch: (key, on) => set((s) => ({ switches: { ...s.switches, [key]: on } })),
      ...noticeSlice(...a),
      ...decodeSlice(...a),
      screenFrame: null,
      linkedPage: null,
      roomView: null,
      setRoomView: (roomView) => set({ roomView }),
    };
  });
}

const AppStoreContext = createContext<AppStore | null>(null);

/** Gives the views below it their store. */
export function AppStoreProvider({ store, children }: { store: AppStore; children?: ReactNode }) {
  return createElement(AppStoreContext.Provider, { value: store }, children);
}

/** The store of the views' instance (for reading it in handlers and effects: `useAppStore().getState()`). */
export function useAppStore(): AppStore {
  const store = useContext(AppStoreContext);
  if (!store) throw new Error('useAppStore: no AppStoreProvider above this view');
  return store;
}

/** A slice of the store, by selector (`useApp((s) => s.time)`): the view re-renders when it changes. */
export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useAppStore(), selector);
}
