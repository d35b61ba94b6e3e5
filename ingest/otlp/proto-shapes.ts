/**
 * The tables the protobuf reader (proto-reader.ts) reads by: per message type, its fields by field
 * number with their kind, wire type and proto3 presence. They come from the same .proto files
 * (schemas/otlp/) through protobufjs's reflection, so a field cannot be missing from one side.
 */
import protobuf from 'protobufjs';

export const enum Kind {
  Str,
  Bytes,
  Bool,
  Int32,
  Uint32,
  Int64,
  Uint64,
  Fixed64,
  Fixed32,
  Double,
  Float,
  Msg,
  /** A `repeated KeyValue attributes` field read straight into its map (`mapAttributes`). */
  Attrs,
}

const KINDS: Record<string, [Kind, number]> = {
  string: [Kind.Str, 2],
  bytes: [Kind.Bytes, 2],
  bool: [Kind.Bool, 0],
  int32: [Kind.Int32, 0],
  uint32: [Kind.Uint32, 0],
  int64: [Kind.Int64, 0],
  uint64: [Kind.Uint64, 0],
  fixed64: [Kind.Fixed64, 1],
  fixed32: [Kind.Fixed32, 5],
  double: [Kind.Double, 1],
  float: [Kind.Float, 5],
};

export interface Field {
  name: string;
  kind: Kind;
  wire: number;
  repeated: boolean;
  /**
   * proto3 presence: `implicit` scalars are absent at their default value (protobufjs deletes them);
   * a oneof member is present whatever its value and removes the other members.
   */
  implicit: boolean;
  others?: string[];
  shape?: Shape;
  /** Kind.Attrs: field numbers of KeyValue and AnyValue, from the same tables. */
  kv?: KeyValueIds;
}

export interface KeyValueIds {
  key: number;
  value: number;
  string: number;
  bool: number;
  int: number;
  double: number;
  bytes: number;
}

/** One message type: its fields indexed by field number. */
export interface Shape {
  name: string;
  fields: Array<Field | undefined>;
}

const shapes = new Map<protobuf.Type, Shape>();
const mappedShapes = new Map<protobuf.Type, Shape>();

/**
 * The reader's table of a message type (and, recursively, of every type it holds). Throws for a
 * field type the reader does not handle (enums, maps, packed scalars: none occur in logs or traces).
 *
 * With `mapAttributes`, every `repeated KeyValue attributes` field (of a resource, scope, log
 * record, span, span event or link) is read straight into an attribute map, a `ReadAttributes`
 * (anyvalue.ts), instead of a list of KeyValue objects: the edge's shape, not protobufjs's. Lists of
 * KeyValue inside an AnyValue (`kvlistValue`) keep the general shape.
 */
export function shapeOf(type: protobuf.Type, mapAttributes = false): Shape {
  const cache = mapAttributes ? mappedShapes : shapes;
  let shape = cache.get(type);
  if (shape) return shape;
  shape = { name: type.name, fields: [] };
  cache.set(type, shape);
  for (const f of type.fieldsArray) {
    f.resolve();
    const others = f.partOf ? f.partOf.fieldsArray.map((o) => o.name).filter((n) => n !== f.name) : undefined;
    let field: Field;
    if (f.resolvedType instanceof protobuf.Type) {
      const inner = f.resolvedType;
      if (mapAttributes && f.repeated && f.name === 'attributes' && inner.name === 'KeyValue') {
        const kvShape = shapeOf(inner);
        field = { name: f.name, kind: Kind.Attrs, wire: 2, repeated: true, implicit: false, shape: kvShape, kv: keyValueIds(kvShape) };
      } else field = { name: f.name, kind: Kind.Msg, wire: 2, repeated: f.repeated, implicit: false, others, shape: shapeOf(inner, mapAttributes && inner.name !== 'AnyValue') };
    } else {
      const k = KINDS[f.type];
      if (!k || f.map || (f.repeated && k[1] !== 2)) throw new Error(`${type.name}.${f.name}: field type ${f.type} is not read directly`);
      field = { name: f.name, kind: k[0], wire: k[1], repeated: f.repeated, implicit: !f.repeated && !f.partOf && !f.options?.proto3_optional, others };
    }
    shape.fields[f.id] = field;
  }
  return shape;
}

/** Field numbers of KeyValue's key and value and of AnyValue's scalar members, by name. */
function keyValueIds(kv: Shape): KeyValueIds {
  const idOf = (shape: Shape, name: string) => {
    const id = shape.fields.findIndex((f) => f?.name === name);
    if (id < 0) throw new Error(`${shape.name} has no field ${name}`);
    return id;
  };
  const value = kv.fields[idOf(kv, 'value')]!.shape!;
  return { key: idOf(kv, 'key'), value: idOf(kv, 'value'), string: idOf(value, 'stringValue'), bool: idOf(value, 'boolValue'), int: idOf(value, 'intValue'), double: idOf(value, 'doubleValue'), bytes: idOf(value, 'bytesValue') };
}
