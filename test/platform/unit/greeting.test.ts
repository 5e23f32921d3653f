import { describe, expect, it } from 'vitest';
import { greeting } from '../../../src/platform/mail/greeting.js';

describe('the first line of a customer e-mail', () => {
  it('names the customer as the ERP holds the name, without its padding; a bare "Hola:" when unknown', () => {
    expect(greeting('Juan Pérez')).toBe('Hola, Juan Pérez:');
    expect(greeting('Juan Pérez      ')).toBe('Hola, Juan Pérez:');
    for (const unknown of [null, undefined, '', '   ']) expect(greeting(unknown)).toBe('Hola:');
  });
});
