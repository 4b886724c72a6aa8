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

// The demo agent's release form in A2UI v0.8 (backend/demoagent/a2ui_v08.go): no version field, one
// operation key per message, components as {id, component: {<Type>: props}}.
export const SID08 = 'release-plan-v08';
const lit = (s: string) => ({ literalString: s });
export const planFormV08: A2uiMessage[] = [
  {
    surfaceUpdate: {
      surfaceId: SID08,
      components: [
        { id: 'root', component: { Card: { child: 'form' } } },
        { id: 'form', component: { Column: { children: { explicitList: ['title', 'version', 'date', 'channel', 'buttons'] } } } },
        { id: 'title', component: { Text: { text: lit('Plan a release'), usageHint: 'h3' } } },
        { id: 'version', component: { TextField: { label: lit('Version'), text: { path: '/release/version' } } } },
        { id: 'date', component: { DateTimeInput: { value: { path: '/release/date' }, enableDate: true } } },
        {
          id: 'channel',
          component: {
            MultipleChoice: {
              selections: { path: '/release/channel' },
              maxAllowedSelections: 1,
              options: [
                { label: lit('Stable'), value: 'stable' },
                { label: lit('Beta'), value: 'beta' },
              ],
            },
          },
        },
        { id: 'buttons', component: { Row: { children: { explicitList: ['submit'] } } } },
        {
          id: 'submit',
          component: {
            Button: {
              child: 'submit-label',
              primary: true,
              action: { name: 'plan_release', context: [{ key: 'version', value: { path: '/release/version' } }, { key: 'channel', value: { path: '/release/channel' } }] },
            },
          },
        },
        { id: 'submit-label', component: { Text: { text: lit('Plan it') } } },
      ],
    },
  },
  {
    dataModelUpdate: {
      surfaceId: SID08,
      path: '/release',
      contents: [
        { key: 'version', valueString: '1.0.0' },
        { key: 'date', valueString: '' },
        { key: 'channel', valueString: 'stable' },
      ],
    },
  },
  { beginRendering: { surfaceId: SID08, root: 'root', catalogId: 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json' } },
];

export const planConfirmedV08: A2uiMessage[] = [
  {
    surfaceUpdate: {
      surfaceId: SID08,
      components: [
        { id: 'form', component: { Column: { children: { explicitList: ['title', 'summary'] } } } },
        { id: 'title', component: { Text: { text: lit('Release planned'), usageHint: 'h3' } } },
        { id: 'summary', component: { Text: { text: lit('Version 2.0.0 goes out on the beta channel.') } } },
      ],
    },
  },
];

/** A v0.8 surface of one root component (plus others), with an optional data model. */
export function surfaceOfV08(components: Record<string, unknown>[], contents?: unknown[], id = 's8'): A2uiMessage[] {
  return [
    { surfaceUpdate: { surfaceId: id, components } },
    ...(contents !== undefined ? [{ dataModelUpdate: { surfaceId: id, contents } }] : []),
    { beginRendering: { surfaceId: id, root: 'root' } },
  ];
}
