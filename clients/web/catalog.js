// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

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

// A setup's name; a position given as text (setup id "custom") is "own
// position".
export function setupName(setups, id) {
  if (id === 'custom') return t('customSetup');
  return setups.find((s) => s.id === id)?.name ?? id;
}

// Per setup id, the key of its description (a setup the page does not know
// keeps the server's English one).
const SETUP_ABOUT = {
  'classic-2': 'aboutClassic2',
  'imhotep-2': 'aboutImhotep2',
  'dynasty-2': 'aboutDynasty2',
  'classic-2b': 'aboutClassic2b',
  'imhotep-2b': 'aboutImhotep2b',
  'dynasty-2b': 'aboutDynasty2b',
  osiris: 'aboutOsiris',
  isis: 'aboutIsis',
  'classic-1': 'aboutClassic1',
  'imhotep-1': 'aboutImhotep1',
  'dynasty-1': 'aboutDynasty1',
  'classic-1b': 'aboutClassic1b',
  'imhotep-1b': 'aboutImhotep1b',
  'dynasty-1b': 'aboutDynasty1b',
};

export const setupDescription = (setup) =>
  (SETUP_ABOUT[setup?.id] ? t(SETUP_ABOUT[setup.id]) : setup?.description ?? '');

// Per colour scheme id, the key of its name.
const SCHEME_NAME = {
  classic: 'schemeClassic',
  deflexion: 'schemeDeflexion',
  nile: 'schemeNile',
  royal: 'schemeRoyal',
};

export function schemeOptions(schemes) {
  return schemes.map((s) => ({ value: s.id,
                               label: SCHEME_NAME[s.id] ? t(SCHEME_NAME[s.id]) : s.name }));
}

const STATUS = {
  WAITING_FOR_PLAYERS: 'statusWaiting',
  IN_PROGRESS: 'statusInProgress',
  FINISHED: 'statusFinished',
};

export const statusText = (status) => (STATUS[status] ? t(STATUS[status]) : status);
