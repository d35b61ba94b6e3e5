/**
 * Type-level reading of the JSON Schemas in this folder: the schemas are written `as const` and
 * `Infer<typeof schema>` gives the TypeScript type of a value that validates, so the schema that
 * drives validation, defaults and the OpenAPI document also types the handlers.
 * Covers the subset the API schemas use: type (single or list), enum, const, properties/required,
 * items, anyOf, additionalProperties. A property with a `default` is always present after validation.
 */
type Prim<T> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'object'
          ? Record<string, unknown>
          : T extends 'array'
            ? unknown[]
            : unknown;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type InferObject<P, R> = Simplify<
  { [K in keyof P as K extends R ? K : P[K] extends { default: unknown } ? K : never]: Infer<P[K]> } & {
    [K in keyof P as K extends R ? never : P[K] extends { default: unknown } ? never : K]?: Infer<P[K]>;
  }
>;

export type Infer<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] }
      ? Infer<A>
      : S extends { type: 'object'; properties: infer P }
        ? InferObject<P, S extends { required: readonly (infer R)[] } ? R : never>
        : S extends { type: 'object'; additionalProperties: infer V }
          ? V extends false | true
            ? Record<string, unknown>
            : Record<string, Infer<V>>
          : S extends { type: 'array'; items: infer I }
            ? Infer<I>[]
            : S extends { type: readonly (infer T)[] }
              ? Prim<T>
              : S extends { type: infer T }
                ? Prim<T>
                : unknown;
