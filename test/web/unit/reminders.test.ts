import { describe, expect, it } from 'vitest';
import { reminderStages } from '../../../web/src/lib/reminders.js';

describe('reminderStages: when the reminders go, in words', () => {
  it('names the default stages as the issue writes them', () => {
    expect(reminderStages({ dias_antes: 3, dias_vencido: [1, 7] })).toBe(
      '3 días antes, 1 y 7 días después',
    );
  });

  it('singular days, one stage only, several after, none', () => {
    expect(reminderStages({ dias_antes: 1, dias_vencido: [] })).toBe('1 día antes');
    expect(reminderStages({ dias_antes: 0, dias_vencido: [1] })).toBe('1 día después');
    expect(reminderStages({ dias_antes: 0, dias_vencido: [2] })).toBe('2 días después');
    expect(reminderStages({ dias_antes: 5, dias_vencido: [1, 7, 15] })).toBe(
      '5 días antes, 1, 7 y 15 días después',
    );
    expect(reminderStages({ dias_antes: 0, dias_vencido: [] })).toBe('');
  });
});
