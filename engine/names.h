// Names for people, shared by error messages, notation and text boards.
#ifndef KHET_ENGINE_NAMES_H_
#define KHET_ENGINE_NAMES_H_

#include <string>

#include "engine/types.h"

namespace khet {

// "e4"; a value off the board reads "square #N".
std::string SquareName(Square s);

// "Silver" or "Red".
const char* ColorName(Color c);

// "Pharaoh", "Pyramid", "Scarab" (the "Djed" in Khet 1.0), "Anubis",
// "Sphinx", "Obelisk", "Eye of Horus"; "nothing" for kNone.
const char* PieceTypeName(PieceType t, Edition edition);

}  // namespace khet

#endif  // KHET_ENGINE_NAMES_H_
