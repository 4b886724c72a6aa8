// A2UI v0.9 messages for tests: the demo agent's release form (backend/demoagent/a2ui.go) and its
// confirmation, as the agent sends them.
import { A2UI_BASIC_CATALOG, type A2uiMessage } from './a2ui';

export const SID = 'release-plan-abc';

export const planForm: A2uiMessage[] = [
  { version: 'v0.9', createSurface: { surfaceId: SID, catalogId: A2UI_BASIC_CATALOG, sendDataModel: true } },
  {
    version: 'v0.9',
    updateComponents: {
      surfaceId: SID,
      components: [
        { id: 'root', component: 'Card', child: 'form' },
        { id: 'form', component: 'Column', children: ['title', 'version', 'date', 'channel', 'buttons'] },
        { id: 'title', component: 'Text', text: 'Plan a release', variant: 'h3' },
        { id: 'version', component: 'TextField', label: 'Version', value: { path: '/release/version' } },
        { id: 'date', component: 'DateTimeInput', label: 'Release date', value: { path: '/release/date' }, enableDate: true },
        {
          id: 'channel',
          component: 'ChoicePicker',
          label: 'Channel',
          variant: 'mutuallyExclusive',
          options: [
            { label: 'Stable', value: 'stable' },
            { label: 'Beta', value: 'beta' },
          ],
          value: { path: '/release/channel' },
        },
        { id: 'buttons', component: 'Row', children: ['submit'] },
        {
          id: 'submit',
          component: 'Button',
          child: 'submit-label',
          variant: 'primary',
          action: { event: { name: 'plan_release', context: { version: { path: '/release/version' }, channel: { path: '/release/channel' } } } },
        },
        { id: 'submit-label', component: 'Text', text: 'Plan it' },
      ],
    },
  },
  { version: 'v0.9', updateDataModel: { surfaceId: SID, path: '/release', value: { version: '1.0.0', date: '', channel: ['stable'] } } },
];

export const planConfirmed: A2uiMessage[] = [
  {
    version: 'v0.9',
    updateComponents: {
      surfaceId: SID,
      components: [
        { id: 'form', component: 'Column', children: ['title', 'summary'] },
        { id: 'title', component: 'Text', text: 'Release planned', variant: 'h3' },
        { id: 'summary', component: 'Text', text: 'Version 2.0.0 goes out on the stable channel.' },
      ],
    },
  },
];

/** A surface of one root component (plus others), created and filled in one list. */
export function surfaceOf(components: Record<string, unknown>[], model?: unknown, id = 's1'): A2uiMessage[] {
  return [
    { version: 'v0.9', createSurface: { surfaceId: id, catalogId: A2UI_BASIC_CATALOG } },
    { version: 'v0.9', updateComponents: { surfaceId: id, components } },
    ...(model !== undefined ? [{ version: 'v0.9', updateDataModel: { surfaceId: id, path: '/', value: model } }] : []),
  ];
}
