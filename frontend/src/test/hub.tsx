import { act, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { HubClient } from '../api/client';
import { HubProvider } from '../state/hub';
import { FakeSocket, socketFactory } from './fakeSocket';

export const tick = () => act(() => new Promise<void>((r) => setTimeout(r, 0)));

/** Renders ui inside a HubProvider whose client talks to a FakeSocket the test drives. */
export async function renderWithHub(ui: ReactNode) {
  FakeSocket.reset();
  const client = new HubClient({ resolveUrl: () => 'ws://test/ui/ws?token=t', socketFactory, requestTimeoutMs: 60_000 });
  client.start();
  const r = render(<HubProvider client={client}>{ui}</HubProvider>);
  await tick();
  const socket = FakeSocket.last();
  await act(async () => socket.open());
  await tick();
  return { ...r, client, socket };
}

/** Runs a hub-side action inside act() and lets effects settle. */
export async function hub(fn: () => void) {
  await act(async () => fn());
  await tick();
}
