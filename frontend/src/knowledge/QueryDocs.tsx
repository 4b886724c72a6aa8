// The query console's docs pane, as GraphiQL has one: the hub's GraphQL schema (from the same
// introspection that drives completion), starting at Query; a type's name opens that type, Back
// returns. Read-only, built from graphql-js's GraphQLSchema.
import { useState } from 'react';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';

function TypeRef({ type, open }: { type: GraphQLType; open: (name: string) => void }) {
  const named = getNamedType(type);
  const text = String(type);
  const at = text.indexOf(named.name);
  return (
    <code className="kgq-docs-type">
      {text.slice(0, at)}
      <button type="button" className="kgq-docs-link" onClick={() => open(named.name)}>
        {named.name}
      </button>
      {text.slice(at + named.name.length)}
    </code>
  );
}

function TypeDocs({ type, open }: { type: GraphQLNamedType; open: (name: string) => void }) {
  const fields = isObjectType(type) || isInputObjectType(type) ? Object.values(type.getFields()) : [];
  return (
    <>
      <h4>{type.name}</h4>
      {type.description && <p className="small">{type.description}</p>}
      {isScalarType(type) && <p className="muted small">A scalar.</p>}
      {isEnumType(type) && (
        <ul className="kgq-docs-list">
          {type.getValues().map((v) => (
            <li key={v.name}>
              <code>{v.name}</code>
              {v.description && <span className="muted small"> {v.description}</span>}
            </li>
          ))}
        </ul>
      )}
      {fields.length > 0 && (
        <ul className="kgq-docs-list" aria-label={`Fields of ${type.name}`}>
          {fields.map((f) => (
            <li key={f.name} data-testid="kgq-docs-field">
              <code>{f.name}</code>
              {'args' in f && (f.args as readonly GraphQLArgument[]).length > 0 && (
                <span className="kgq-docs-args">
                  (
                  {(f.args as readonly GraphQLArgument[]).map((a, i) => (
                    <span key={a.name}>
                      {i > 0 && ', '}
                      {a.name}: <TypeRef type={a.type} open={open} />
                    </span>
                  ))}
                  )
                </span>
              )}
              : <TypeRef type={f.type} open={open} />
              {f.description && <div className="muted small">{f.description}</div>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function QueryDocs({ schema }: { schema: GraphQLSchema }) {
  const root = schema.getQueryType()?.name ?? 'Query';
  const [trail, setTrail] = useState<string[]>([root]);
  const type = schema.getType(trail[trail.length - 1]) ?? schema.getType(root);
  return (
    <aside className="kgq-docs" aria-label="Schema docs" data-testid="kgq-docs">
      <div className="kgq-docs-bar">
        {trail.length > 1 && (
          <button type="button" className="btn btn-small" onClick={() => setTrail((t) => t.slice(0, -1))}>
            ← {trail[trail.length - 2]}
          </button>
        )}
      </div>
      {type && <TypeDocs type={type} open={(name) => setTrail((t) => [...t, name])} />}
    </aside>
  );
}
