// The few parts of n3 and jsonld this folder uses (neither package ships its own types; @types/n3
// would bring @types/node into the browser build).

declare module 'n3' {
  export class Parser {
    constructor(options?: { format?: string; blankNodePrefix?: string; baseIRI?: string });
    parse(input: string): unknown[];
  }
}

declare module 'jsonld' {
  type Loader = (url: string) => Promise<unknown>;
  const jsonld: {
    toRDF(input: object, options?: { documentLoader?: Loader; format?: string }): Promise<unknown>;
    fromRDF(dataset: string | object[], options?: { format?: string }): Promise<object>;
    compact(input: object, ctx: object, options?: { documentLoader?: Loader }): Promise<object>;
    canonize(input: string | object, options?: { algorithm?: string; inputFormat?: string; format?: string }): Promise<string>;
  };
  export default jsonld;
}
