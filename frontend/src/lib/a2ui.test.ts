import { describe, expect, it } from 'vitest';
import { a2uiMessagesOf, actionMessage, checkSurface, describeAction, errorMessage, LIMITS, versionOf } from './a2ui';
import { planForm, planFormV08, surfaceOf, surfaceOfV08 } from './a2ui.fixtures';

const comps = (m: ReturnType<typeof checkSurface>) =>
  m.messages.flatMap((x) => ((x.updateComponents as { components?: Record<string, unknown>[] })?.components ?? []));

describe('A2UI parts', () => {
  it('finds A2UI messages in data parts of either media type, and only there: a list of messages, or one (v0.8)', () => {
    const msgs = a2uiMessagesOf([
      { kind: 'text', text: 'hi' },
      { kind: 'data', data: [{ version: 'v0.9', deleteSurface: { surfaceId: 'a' } }], mediaType: 'application/a2ui+json' },
      { kind: 'data', data: [{ version: 'v0.9', deleteSurface: { surfaceId: 'b' } }], mediaType: 'application/json+a2ui' },
      { kind: 'data', data: [{ version: 'v0.9', deleteSurface: { surfaceId: 'c' } }], mediaType: 'application/json' },
      { kind: 'data', data: { deleteSurface: { surfaceId: 'd' } }, mediaType: 'application/a2ui+json' }, // one v0.8 message
      { kind: 'data', data: 'e', mediaType: 'application/a2ui+json' }, // neither
    ]);
    expect(msgs.map((m) => (m.deleteSurface as { surfaceId: string }).surfaceId)).toEqual(['a', 'b', 'd']);
    expect(msgs.map(versionOf)).toEqual(['v0.9', 'v0.9', 'v0.8']);
    expect(versionOf({ version: 'v0.8', surfaceUpdate: {} })).toBe(''); // v0.8 has no version field
  });
});

describe('checkSurface: hostile input', () => {
  it('passes the demo form unchanged, without notes', () => {
    const c = checkSurface(planForm);
    expect(c.refused).toBeUndefined();
    expect(c.notes).toEqual([]);
    expect(c.messages).toEqual(planForm);
    expect(c.sendDataModel).toBe(true);
  });

  it('shows an unknown component type as a short text with a note', () => {
    const c = checkSurface(surfaceOf([{ id: 'root', component: 'Column', children: ['x'] }, { id: 'x', component: 'Script', src: 'alert(1)' }]));
    expect(c.refused).toBeUndefined();
    expect(comps(c).find((x) => x.id === 'x')).toEqual({ id: 'x', component: 'Text', text: '[unsupported component: Script]' });
    expect(c.notes.join()).toMatch(/unknown component type “Script”/);
  });

  it('refuses a reference cycle', () => {
    const c = checkSurface(surfaceOf([{ id: 'root', component: 'Column', children: ['a'] }, { id: 'a', component: 'Card', child: 'root' }]));
    expect(c.refused).toMatch(/cycle/);
    expect(c.messages).toEqual([]);
  });

  it('refuses a cycle an update makes later, and one not reachable from root', () => {
    const ok = surfaceOf([{ id: 'root', component: 'Card', child: 'a' }, { id: 'a', component: 'Text', text: 'x' }]);
    const loop = { version: 'v0.9', updateComponents: { surfaceId: 's1', components: [{ id: 'a', component: 'Card', child: 'root' }] } };
    expect(checkSurface(ok).refused).toBeUndefined();
    expect(checkSurface([...ok, loop]).refused).toMatch(/cycle/);
    const island = surfaceOf([{ id: 'root', component: 'Text', text: 'x' }, { id: 'p', component: 'Card', child: 'q' }, { id: 'q', component: 'Card', child: 'p' }]);
    expect(checkSurface(island).refused).toMatch(/cycle/);
  });

  it('refuses a tree over the depth limit and over the component limit', () => {
    const deep = Array.from({ length: LIMITS.depth + 2 }, (_, i) => ({ id: i === 0 ? 'root' : `c${i}`, component: 'Card', child: `c${i + 1}` }));
    expect(checkSurface(surfaceOf(deep)).refused).toMatch(/nested more than 32 deep/);
    const wide = [{ id: 'root', component: 'Column', children: Array.from({ length: LIMITS.components + 1 }, (_, i) => `t${i}`) }];
    for (let i = 0; i <= LIMITS.components; i++) wide.push({ id: `t${i}`, component: 'Text', text: 'x' } as never);
    expect(checkSurface(surfaceOf(wide)).refused).toMatch(/more than 500 components/);
  });

  it('refuses a data model over the byte limit, even when sent in pieces', () => {
    const big = 'x'.repeat(LIMITS.dataModelBytes / 2);
    const msgs = surfaceOf([{ id: 'root', component: 'Text', text: { path: '/a' } }], { a: big });
    expect(checkSurface(msgs).refused).toBeUndefined();
    const more = { version: 'v0.9', updateDataModel: { surfaceId: 's1', path: '/b', value: big } };
    expect(checkSurface([...msgs, more]).refused).toMatch(/data model is larger than 64 KiB/);
  });

  it('empties javascript:, data: and file: URLs in components and in the data model', () => {
    const c = checkSurface(
      surfaceOf(
        [
          { id: 'root', component: 'Button', child: 'l', action: { functionCall: { call: 'openUrl', args: { url: ' JavaScript:alert(1)' } } } },
          { id: 'l', component: 'Text', text: 'go' },
        ],
        { link: 'data:text/html,<script>alert(1)</script>', ok: 'https://example.com' },
      ),
    );
    expect(c.refused).toBeUndefined();
    const json = JSON.stringify(c.messages);
    expect(json).not.toMatch(/javascript:|data:text/i);
    expect(json).toContain('https://example.com');
    expect(c.notes.join()).toMatch(/2 links with a javascript:, data: or file: URL were removed/);
  });

  it('loads no image, video or audio (remote or data:), and says so', () => {
    const c = checkSurface(
      surfaceOf([
        { id: 'root', component: 'Column', children: ['i', 'v'] },
        { id: 'i', component: 'Image', url: 'https://tracker.example/pixel.png', description: 'a chart' },
        { id: 'v', component: 'Video', url: 'https://example.com/v.mp4' },
      ]),
    );
    expect(comps(c).filter((x) => x.component === 'Image' || x.component === 'Video')).toEqual([]);
    expect(comps(c).find((x) => x.id === 'i')?.text).toBe('[image not loaded: a chart]');
    expect(JSON.stringify(c.messages)).not.toContain('tracker.example');
    expect(c.notes.join()).toMatch(/not loaded/);
  });

  it('notes HTML in text (it is rendered as plain text)', () => {
    const c = checkSurface(surfaceOf([{ id: 'root', component: 'Text', text: '**hi** <img src=x onerror=alert(1)>' }]));
    expect(c.refused).toBeUndefined();
    expect(c.notes).toContain('HTML in text is shown as plain text');
  });

  it('refuses mixed and unknown versions with a reason, and an oversized surface', () => {
    expect(checkSurface([...surfaceOf([{ id: 'root', component: 'Text', text: 'x' }]), { beginRendering: { surfaceId: 's1', root: 'root' } }]).refused).toMatch(/mixes A2UI v0\.9 and v0\.8/);
    expect(checkSurface([{ beginRendering: { surfaceId: 's', root: 'root' } }, { version: 'v0.9', deleteSurface: { surfaceId: 's' } }]).refused).toMatch(/mixes A2UI v0\.8 and v0\.9/);
    expect(checkSurface([{ version: 'v9', createSurface: { surfaceId: 's' } }]).refused).toMatch(/version/);
    const huge = surfaceOf([{ id: 'root', component: 'Text', text: 'x'.repeat(LIMITS.surfaceBytes) }]);
    expect(checkSurface(huge).refused).toMatch(/larger than 512 KiB/);
  });

  it("drops an agent's theme and forces the basic catalog", () => {
    const c = checkSurface([{ version: 'v0.9', createSurface: { surfaceId: 's', catalogId: 'https://evil.example/catalog.json', theme: { primaryColor: '#f00' } } }]);
    expect(c.messages[0]).toEqual({ version: 'v0.9', createSurface: { surfaceId: 's', catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' } });
    expect(c.notes.join()).toMatch(/basic catalog is used/);
  });
});

describe('checkSurface: v0.8 surfaces, the same hostile-input handling', () => {
  const comps08 = (c: ReturnType<typeof checkSurface>) =>
    c.messages.flatMap((x) => ((x.surfaceUpdate as { components?: Record<string, unknown>[] })?.components ?? []));

  it('passes the demo form unchanged, without notes', () => {
    const c = checkSurface(planFormV08);
    expect(c.refused).toBeUndefined();
    expect(c.notes).toEqual([]);
    // the same, but for beginRendering's catalogId (the standard catalog is the only one anyway)
    expect(c.messages.slice(0, 2)).toEqual(planFormV08.slice(0, 2));
    expect(c.messages[2]).toEqual({ beginRendering: { surfaceId: 'release-plan-v08', root: 'root' } });
    expect(c.sendDataModel).toBe(false);
  });

  it('shows an unknown component type, and a wrapper of two types, as a short text with a note', () => {
    const c = checkSurface(
      surfaceOfV08([
        { id: 'root', component: { Column: { children: { explicitList: ['x', 'y'] } } } },
        { id: 'x', component: { Script: { src: 'alert(1)' } } },
        { id: 'y', component: { Text: { text: { literalString: 'a' } }, Button: { child: 'x' } } },
      ]),
    );
    expect(c.refused).toBeUndefined();
    expect(comps08(c).find((x) => x.id === 'x')).toEqual({ id: 'x', component: { Text: { text: { literalString: '[unsupported component: Script]' } } } });
    expect(comps08(c).find((x) => x.id === 'y')).toEqual({ id: 'y', component: { Text: { text: { literalString: '[unsupported component: Text+Button]' } } } });
    expect(c.notes.join()).toMatch(/unknown component type “Script”/);
  });

  it('refuses reference cycles through children, templates, modals and tabs, from the root beginRendering names', () => {
    const card = (id: string, child: string) => ({ id, component: { Card: { child } } });
    expect(checkSurface(surfaceOfV08([card('root', 'a'), card('a', 'root')])).refused).toMatch(/cycle/);
    const tmpl = [{ id: 'root', component: { List: { children: { template: { componentId: 'item', dataBinding: '/items' } } } } }, card('item', 'root')];
    expect(checkSurface(surfaceOfV08(tmpl)).refused).toMatch(/cycle/);
    const modal = [{ id: 'root', component: { Modal: { entryPointChild: 'a', contentChild: 'b' } } }, { id: 'a', component: { Text: { text: { literalString: 'x' } } } }, card('b', 'root')];
    expect(checkSurface(surfaceOfV08(modal)).refused).toMatch(/cycle/);
    const tabs = [{ id: 'root', component: { Tabs: { tabItems: [{ title: { literalString: 't' }, child: 'c' }] } } }, card('c', 'root')];
    expect(checkSurface(surfaceOfV08(tabs)).refused).toMatch(/cycle/);
    // the root is the one beginRendering names
    const named: Record<string, unknown>[] = [{ surfaceUpdate: { surfaceId: 's', components: [card('top', 'x'), card('x', 'top')] } }, { beginRendering: { surfaceId: 's', root: 'top' } }];
    expect(checkSurface(named).refused).toMatch(/cycle \(through “top”\)/);
  });

  it('refuses a tree over the depth limit and over the component limit', () => {
    const deep = Array.from({ length: LIMITS.depth + 2 }, (_, i) => ({ id: i === 0 ? 'root' : `c${i}`, component: { Card: { child: `c${i + 1}` } } }));
    expect(checkSurface(surfaceOfV08(deep)).refused).toMatch(/nested more than 32 deep/);
    const ids = Array.from({ length: LIMITS.components + 1 }, (_, i) => `t${i}`);
    const wide = [{ id: 'root', component: { Column: { children: { explicitList: ids } } } }, ...ids.map((id) => ({ id, component: { Text: { text: { literalString: 'x' } } } }))];
    expect(checkSurface(surfaceOfV08(wide)).refused).toMatch(/more than 500 components/);
  });

  it('refuses a data model over the byte limit, even when sent in pieces', () => {
    const big = 'x'.repeat(LIMITS.dataModelBytes / 2);
    const msgs = surfaceOfV08([{ id: 'root', component: { Text: { text: { path: '/a' } } } }], [{ key: 'a', valueString: big }]);
    expect(checkSurface(msgs).refused).toBeUndefined();
    expect(checkSurface([...msgs, { dataModelUpdate: { surfaceId: 's8', contents: [{ key: 'b', valueString: big }] } }]).refused).toMatch(/data model is larger than 64 KiB/);
  });

  it('empties javascript:/data: URLs, loads no media, notes HTML, ignores a validation pattern and the agent’s styles', () => {
    const c = checkSurface([
      ...surfaceOfV08(
        [
          { id: 'root', component: { Column: { children: { explicitList: ['i', 'v', 't', 'f'] } } } },
          { id: 'i', component: { Image: { url: { literalString: 'https://tracker.example/p.png' }, altText: { literalString: 'a chart' } } } },
          { id: 'v', component: { Video: { url: { literalString: 'javascript:alert(1)' } } } },
          { id: 't', component: { Text: { text: { literalString: '<img src=x onerror=alert(1)>' } } } },
          { id: 'f', component: { TextField: { label: { literalString: 'Note' }, text: { path: '/n' }, validationRegexp: '^(a+)+$' } } },
        ],
        [{ key: 'link', valueString: 'data:text/html,<script>alert(1)</script>' }],
      ),
      { beginRendering: { surfaceId: 's8', root: 'root', styles: { primaryColor: 'red; background: url(https://x)' }, catalogId: 'https://evil.example/c.json' } },
    ]);
    expect(c.refused).toBeUndefined();
    const json = JSON.stringify(c.messages);
    expect(json).not.toMatch(/javascript:|data:text|tracker\.example|validationRegexp|primaryColor|evil\.example/i);
    expect(comps08(c).find((x) => x.id === 'i')).toEqual({ id: 'i', component: { Text: { text: { literalString: '[image not loaded: a chart]' } } } });
    const notes = c.notes.join('|');
    for (const want of [/image was not loaded/, /media was not loaded/, /HTML in text/, /validation pattern/, /links with a javascript:/, /standard catalog is used/]) expect(notes).toMatch(want);
  });
});

describe('what goes back, in the surface’s version', () => {
  it('builds a v0.9 action or a v0.8 userAction, and errors of either', () => {
    const a = { name: 'go', surfaceId: 's', sourceComponentId: 'b', timestamp: 't', context: { x: 1 } };
    expect(actionMessage(a)).toEqual({ version: 'v0.9', action: a });
    expect(actionMessage({ ...a, version: 'v0.8' })).toEqual({ userAction: a });
    expect(errorMessage('s', 'bad', 'RENDER_FAILED', undefined, 'v0.8')).toEqual({ error: { code: 'RENDER_FAILED', surfaceId: 's', message: 'bad' } });
    expect(errorMessage('s', 'bad')).toEqual({ version: 'v0.9', error: { code: 'RENDER_FAILED', surfaceId: 's', message: 'bad' } });
    expect(describeAction({ userAction: { ...a, context: { version: '2.0', channel: ['beta'] } } })).toBe('You chose go (version: 2.0 · channel: beta)');
  });
});

describe('describeAction', () => {
  it('says what the person chose, compactly', () => {
    const text = describeAction({
      version: 'v0.9',
      action: { name: 'plan_release', surfaceId: 's', sourceComponentId: 'b', timestamp: 't', context: { version: '2.0', date: '', channel: ['beta'] } },
    });
    expect(text).toBe('You chose plan release (version: 2.0 · channel: beta)');
  });
});
