/** bench/results/scale-state.json: the master key of each database this benchmark made (git-ignored, mode 600). */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { RESULTS_DIR, STATE_FILE } from './settings.ts';

interface State {
  last?: string;
  databases: Record<string, { masterKey: string; createdAt: string }>;
}

export function readState(): State {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as State;
  } catch {
    return { databases: {} };
  }
}

export function writeState(state: State): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  chmodSync(STATE_FILE, 0o600);
}

export function forgetDatabase(name: string): void {
  const state = readState();
  if (!state.databases[name] && state.last !== name) return;
  delete state.databases[name];
  if (state.last === name) delete state.last;
  writeState(state);
}
