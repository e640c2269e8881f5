// What the server offers, fetched once per page load: setups, colour
// schemes and the computer's levels; and their names for people.

import { api } from './api.js';
import { t } from './language.js';

let loaded = null;

export function catalog() {
  loaded ??= Promise.all([api.setups(), api.colorSchemes(), api.levels()]).then(
    ([setups, schemes, levels]) => ({
      setups: setups.setups ?? [],
      schemes: schemes.schemes ?? [],
      levels: levels.levels ?? [],
    }),
    (error) => {
      loaded = null;  // try again next time
      throw error;
    });
  return loaded;
}

const EDITION = { KHET_2: 'Khet 2.0', KHET_1: 'Khet 1.0' };

export const editionName = (edition) => EDITION[edition] ?? edition;

// Options for a setup <select>, grouped by edition.
export function setupOptions(setups) {
  return setups.map((s) => ({
    value: s.id,
    label: s.beamSplitter ? t('setupWithEye', { setup: s.name }) : s.name,
    group: editionName(s.edition),
  }));
}

export function setupName(setups, id) {
  return setups.find((s) => s.id === id)?.name ?? id;
}

export function schemeOptions(schemes) {
  return schemes.map((s) => ({ value: s.id, label: s.name }));
}

const STATUS = {
  WAITING_FOR_PLAYERS: 'statusWaiting',
  IN_PROGRESS: 'statusInProgress',
  FINISHED: 'statusFinished',
};

export const statusText = (status) => (STATUS[status] ? t(STATUS[status]) : status);
