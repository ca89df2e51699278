// A public body named in Spanish reads as its English name; an English name with a Spanish place in
// it is left alone.
import { describe, expect, it } from 'vitest';
import { normalizeName } from '../../src/resolve/normalize.ts';
import { englishOfSpanish } from '../../src/resolve/spanish.ts';

describe('public bodies named in Spanish', () => {
  it.each([
    ['Condado de Hidalgo', 'Hidalgo County'],
    ['Condado de Los Ángeles', 'Los Ángeles County'],
    ['Ciudad de El Paso', 'City of El Paso'],
    ['Distrito Escolar Independiente de Laredo', 'Laredo Independent School District'],
    ['Departamento de Salud de Nuevo México', 'New Mexico Department of Health'],
    ['Departamento de Transporte de Texas', 'Texas Department of Transportation'],
    ['Departamento de Policía de Laredo', 'Laredo Police Department'],
    ['Biblioteca Pública de San Antonio', 'San Antonio Public Library'],
    ['Municipio Autónomo de Ponce', 'Municipality of Ponce'],
    ['Autoridad de Carreteras y Transportación', 'Highway and Transportation Authority'],
  ])('%s → %s', (spanish, english) => {
    expect(englishOfSpanish(spanish)).toBe(english);
    expect(normalizeName(spanish).tokens).toEqual(normalizeName(english).tokens);
  });

  it.each([
    'Los Angeles Unified School District',
    'Boca Raton',
    'San Antonio ISD',
    'Ciudad Juarez Consulate Office',
  ])('leaves %s as it is', (name) => {
    expect(englishOfSpanish(name)).toBeNull();
  });
});
