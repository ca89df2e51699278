// Public bodies named in Spanish (Puerto Rico's, and Spanish renderings of bodies elsewhere: "Condado
// de Hidalgo", "Distrito Escolar Independiente de El Paso") read as their English names, in English
// word order, before anything else reads the name: "Condado de Hidalgo" is Hidalgo County, "Departamento
// de Salud de Nuevo México" the New Mexico Department of Health. Accents do not matter (the name is
// folded first). Only a name that opens with a public body's Spanish head is read this way, so an
// English name that holds a Spanish place ("Los Angeles", "Boca Raton") is left as it is.

/** Spanish head → the English name, `{p}` standing for what follows "de" (the place). */
const HEADS: readonly [RegExp, string][] = [
  [/^condado de (.+)$/, '{p} County'],
  [/^ciudad de (.+)$/, 'City of {p}'],
  [/^municipio (?:autonomo )?de (.+)$/, 'Municipality of {p}'],
  [/^pueblo de (.+)$/, 'Town of {p}'],
  [/^distrito escolar independiente (?:consolidado )?de (.+)$/, '{p} Independent School District'],
  [/^distrito escolar unificado de (.+)$/, '{p} Unified School District'],
  [/^distrito escolar de (.+)$/, '{p} School District'],
  [/^departamento de (?:la )?policia de (.+)$/, '{p} Police Department'],
  [/^departamento de bomberos de (.+)$/, '{p} Fire Department'],
  [/^departamento de salud de (.+)$/, '{p} Department of Health'],
  [/^departamento de salud$/, 'Department of Health'],
  [/^departamento de (?:transporte|transportes|transportacion) de (.+)$/, '{p} Department of Transportation'],
  [/^departamento de educacion de (.+)$/, '{p} Department of Education'],
  [/^departamento de educacion$/, 'Department of Education'],
  [/^departamento de justicia de (.+)$/, '{p} Department of Justice'],
  [/^departamento de hacienda de (.+)$/, '{p} Department of the Treasury'],
  [/^biblioteca publica de (.+)$/, '{p} Public Library'],
  [/^universidad de (.+)$/, 'University of {p}'],
  [/^colegio comunitario de (.+)$/, '{p} Community College'],
  [/^oficina del alguacil del condado de (.+)$/, '{p} County Sheriff’s Office'],
  [/^oficina del alguacil de (.+)$/, '{p} Sheriff’s Office'],
  [/^autoridad de vivienda de (.+)$/, '{p} Housing Authority'],
  [/^autoridad de carreteras y transportacion(?: de (.+))?$/, '{p} Highway and Transportation Authority'],
  [/^autoridad de acueductos y alcantarillados(?: de (.+))?$/, '{p} Aqueduct and Sewer Authority'],
  [/^autoridad de energia electrica(?: de (.+))?$/, '{p} Electric Power Authority'],
  [/^autoridad de (?:transito|transporte) de (.+)$/, '{p} Transit Authority'],
  [/^junta de planificacion(?: de (.+))?$/, '{p} Planning Board'],
  [/^junta de (?:educacion|escuelas) de (.+)$/, '{p} Board of Education'],
];

/** States whose Spanish name differs from the English one. */
const STATES: Readonly<Record<string, string>> = {
  'nuevo mexico': 'New Mexico',
  'nueva york': 'New York',
  'nueva jersey': 'New Jersey',
  'nuevo hampshire': 'New Hampshire',
  'carolina del norte': 'North Carolina',
  'carolina del sur': 'South Carolina',
  'dakota del norte': 'North Dakota',
  'dakota del sur': 'South Dakota',
  'virginia occidental': 'West Virginia',
  pensilvania: 'Pennsylvania',
  luisiana: 'Louisiana',
  misuri: 'Missouri',
  hawai: 'Hawaii',
  florida: 'Florida',
};

const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

/** The English name of a public body named in Spanish, or null when the name is not one. */
export function englishOfSpanish(name: string): string | null {
  const folded = fold(name);
  if (
    !/^(?:condado|ciudad|municipio|pueblo|distrito|departamento|biblioteca|universidad|colegio|oficina|autoridad|junta) /.test(
      folded,
    )
  )
    return null;
  for (const [head, english] of HEADS) {
    const m = head.exec(folded);
    if (!m) continue;
    // The place as written (accents kept for display; the reader folds them again).
    const place = m[1] === undefined ? '' : placeAsWritten(name, m[1]);
    return english
      .replace('{p}', STATES[fold(place)] ?? place)
      .replace(/\s+/g, ' ')
      .trim();
  }
  return null;
}

/** The tail of `name` whose folded form is `folded` (the place after the head, as the rep wrote it). */
function placeAsWritten(name: string, folded: string): string {
  const words = name.trim().split(/\s+/);
  const count = folded.split(' ').length;
  return words.slice(words.length - count).join(' ');
}
