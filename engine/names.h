// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Names for people, shared by error messages, notation and text boards.
#ifndef KHET_ENGINE_NAMES_H_
#define KHET_ENGINE_NAMES_H_

#include <string>
#include <string_view>

#include "engine/types.h"

namespace khet {

// "e4"; a value off the board reads "square #N".
std::string SquareName(Square s);

// "Silver" or "Red".
const char* ColorName(Color c);

// "Pharaoh", "Pyramid", "Scarab" (the "Djed" in Khet 1.0), "Anubis",
// "Sphinx", "Obelisk", "Eye of Horus"; "nothing" for kNone.
const char* PieceTypeName(PieceType t, Edition edition);

// Text from outside (a move, a square, a position, a record) as messages
// quote it: in double quotes, its first 64 characters, then, when cut, the
// whole text's size: `"e4-e5e4-e5e4"... (60000 bytes)`. Printable ASCII
// stays; `"` and `\` are escaped with a backslash, other bytes (control
// characters, every byte of a non-ASCII character) written \xNN. A cut
// never falls inside a UTF-8 character.
std::string QuotedText(std::string_view text);

}  // namespace khet

#endif  // KHET_ENGINE_NAMES_H_
