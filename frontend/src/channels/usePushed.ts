import { useEffect, useRef } from 'react';
import { useHub } from '../state/hub';

/** Subscribes to a pushed gateway topic the typed client does not list (e.g. the bridge's). */
export function usePushed(topic: string, handler: (data: unknown) => void): void {
  const { client } = useHub();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => (client as unknown as { on(t: string, h: (d: unknown) => void): () => void }).on(topic, (d) => ref.current(d)), [client, topic]);
}
