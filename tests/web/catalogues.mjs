// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The web board's catalogues (clients/web/i18n/<code>.json) loaded into
// clients/web/i18n.js from the files, as the browser loads them from khetd,
// for the tests of modules that speak (t(), translate). Imported for that
// effect; readCatalogue reads one for loadLanguage.
import { readFileSync } from 'node:fs';

import { LANGUAGES, loadLanguage } from '../../clients/web/i18n.js';

export const readCatalogue = async (url) => JSON.parse(readFileSync(url, 'utf8'));

for (const language of LANGUAGES) {
  const loaded = await loadLanguage(language, readCatalogue);
  if (loaded !== language) throw new Error(`the ${language} catalogue did not load`);
}
