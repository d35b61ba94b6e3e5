/** A Piscina task's result whose `buffers` go back to the main thread moved, not copied. */
import { Piscina } from 'piscina';

export function movedResult<T>(value: T, buffers: ArrayBuffer[]): T {
  const moved = { [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: value };
  return Piscina.move(moved as unknown as Parameters<typeof Piscina.move>[0]) as unknown as T;
}
