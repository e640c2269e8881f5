// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The catalogues behind messages.h: one table per language, each listing
// every Message once with its template. Internal to khet_i18n and its test.
#ifndef KHET_SERVICE_I18N_CATALOG_H_
#define KHET_SERVICE_I18N_CATALOG_H_

#include <string_view>

#include "absl/types/span.h"
#include "service/i18n/messages.h"

namespace khet::i18n_internal {

struct CatalogEntry {
  Message message;
  std::string_view text;
};

absl::Span<const CatalogEntry> EnglishCatalog();  // catalog_en.cc
absl::Span<const CatalogEntry> GermanCatalog();   // catalog_de.cc
absl::Span<const CatalogEntry> FrenchCatalog();   // catalog_fr.cc
absl::Span<const CatalogEntry> DutchCatalog();    // catalog_nl.cc

// The table of `language`.
absl::Span<const CatalogEntry> Catalog(Language language);

}  // namespace khet::i18n_internal

#endif  // KHET_SERVICE_I18N_CATALOG_H_
