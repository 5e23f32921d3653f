import { describe, expect, it } from 'vitest';
import { carriedAlong } from '../../../web/src/lib/fifo-note.js';
import { toggleFifo } from '../../../web/src/lib/fifo.js';

describe('carriedAlong: what a tick did to the other boxes', () => {
  it('ticking a later invoice says the older ones came with it', () => {
    expect(carriedAlong(0, toggleFifo(0, 2))).toBe('También elegimos las 2 facturas anteriores.');
    expect(carriedAlong(1, toggleFifo(1, 2))).toBe('También elegimos la factura anterior.');
  });

  it('unticking an older one says the later ones went with it', () => {
    expect(carriedAlong(4, toggleFifo(4, 1))).toBe('También quitamos las 2 facturas posteriores.');
    expect(carriedAlong(3, toggleFifo(3, 1))).toBe('También quitamos la factura posterior.');
  });

  it('a tick that changes its own box only says nothing', () => {
    expect(carriedAlong(0, toggleFifo(0, 0))).toBeNull();
    expect(carriedAlong(2, toggleFifo(2, 2))).toBeNull();
    expect(carriedAlong(3, toggleFifo(3, 2))).toBeNull();
  });
});
