// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet_render.lsl: what the Khet board shows with its child prims: the
// pieces, each turned the way it faces, the laser's beams, the markers on
// a chosen piece's targets or a hint's squares, the sparks and sound where
// the laser takes a piece off, the board's tint and its scale. It sends no
// HTTP request and keeps no game: it lies in the root prim next to
// khet_board.lsl, which tells it what to show in link messages
// (clients/lsl/README.md, "The scripts"). It also finds where a touch
// lands: the square, from the prim touched or the face's coordinates, the
// piece drawn there and that piece's legal moves (from the board's last
// "lm"), so that a touch lights a piece's targets without a request.
//
// The protocol. Every message is llMessageLinked(LINK_THIS, number, text,
// key) to the scripts of the root prim, the key NULL_KEY unless said; a
// script receives its own messages too, so each acts only on the numbers
// sent to it.
//   khet_board.lsl -> khet_render.lsl
//     7101 board    "<edge>|<position>": the position ("k9/... s 2", with
//                   a fourth field "f" for physical facings; "" for no
//                   pieces) and the tint: "" grey edges, "s"/"r" edges in
//                   the colour of the side to move, "S"/"R" the whole
//                   board in the winner's colour
//     7102 look     "<scheme> <metres>": the colour scheme; the longest edge
//                   to scale the linkset to (0: leave the size as it is)
//     7103 laser    the compact laser string ("j1j4h4 f4f2x"); "" takes
//                   the beams down, and markers showing hits with them
//     7104 hits     the compact "rm" ("f8k e5s\"): sparks on those squares
//     7105 targets  squares to light: a hint's ("e5 f5"); "" puts out what
//                   is lit and ends a choice
//     7106 debug    "1": tell the owner the laser and this script's memory
//     7107 moves    the side to move's legal moves, khetd's compact "lm"
//                   for the position of the last 7101 ("j4-j3-i3R
//                   e1-e2=f2 d1^d2-d2": per piece that can move, its
//                   square then each move: -sq a step, =sq a swap, ^sq an
//                   Obelisk stack's top, R or L a turn); "" none, "+" left
//                   out by khetd (the board asks it per square)
//     7108 pick     "<moves>", key who chose the piece: its legal moves in
//                   full ("e4-e5 e4R"); the squares they end on are lit,
//                   and that person's next touch ends the choice
//   khet_render.lsl -> khet_board.lsl
//     7201 ready    "": this script (re)started and shows nothing; the
//                   board answers with debug, look, board, laser, targets
//     7202 refused  "<metres> <size>": the region refused to scale the
//                   linkset to <metres>; it stays <size> m long (both as
//                   a person writes them: "6", "2.5")
//     7203 touched  "<square>|<token>|<moves>|<ends>", key the toucher: a
//                   touch landed on that square ("" off the squares),
//                   which holds that piece as the position writes it (""
//                   none), whose legal moves are those in full ("j4-j3
//                   j4-i3 j4R"; "" none, "+" not known here: ask khetd);
//                   ends: when the toucher had chosen a piece (7108), its
//                   moves that end on that square ("" none: the choice
//                   ends all the same)
// Pieces are drawn one prim at a time straight from the position string,
// so no list longer than one prim's parameters is ever built. At rotation
// zero a piece's texture faces north (+y): an Anubis, Sphinx or Pharaoh
// that way, a Pyramid's mirror north-east, a Scarab's or Eye's front
// mirror north-west (its mirror running "/"). Each is turned the way its
// attribute says; with physical facings (docs/notation.md) a Pharaoh's,
// Scarab's or Eye's attribute is its facing. Without them a Pharaoh stands
// as at rotation zero, and a Scarab or Eye by its diagonal alone: "/" as
// at rotation zero, "\" a quarter turn anticlockwise.

integer KR_BOARD = 7101;
integer KR_LOOK = 7102;
integer KR_LASER = 7103;
integer KR_HITS = 7104;
integer KR_TARGETS = 7105;
integer KR_DEBUG = 7106;
integer KR_MOVES = 7107;
integer KR_PICK = 7108;
integer KB_READY = 7201;
integer KB_REFUSED = 7202;
integer KB_TOUCHED = 7203;

integer BOARD_FACE = 0;      // the root prim's face showing the squares
float   LASER_SECONDS = 12.0;
float   PHYSICAL = 6.0;      // boards longer than this give pieces collisions

integer gDebug;
string  gScheme = "classic";
string  gRanks;            // the piece field last drawn
integer gFacings;          // its position has physical facings
string  gEdge;             // the tint, as in the board message
list    gPieceLinks;       // link numbers of piece prims
list    gBeamLinks;        // link numbers of beam prims
list    gMarkLinks;        // link numbers of marker prims (targets, hits)
integer gHitMarks;         // the markers show hits, not targets
string  gLm = "+";         // the legal moves (7107); "+" unknown: ask khetd
key     gPickWho = NULL_KEY; // who chose a piece (7108), or NULL_KEY
string  gPickMoves;        // that piece's moves

// Scheme id, Silver, Red, beam (as the server's ListColorSchemes).
list SCHEMES = ["classic", <0.75, 0.75, 0.75>, <0.61, 0.07, 0.12>, <1.0, 0.13, 0.13>,
                "deflexion", <0.75, 0.75, 0.75>, <0.83, 0.69, 0.22>, <1.0, 0.13, 0.13>,
                "nile", <1.0, 0.55, 0.0>, <0.12, 0.35, 0.66>, <0.22, 1.0, 0.08>,
                "royal", <0.18, 0.55, 0.34>, <0.42, 0.05, 0.68>, <1.0, 0.13, 0.13>];

vector schemeColour(integer which) {  // 1 Silver, 2 Red, 3 beam
    integer i = llListFindList(SCHEMES, [gScheme]);
    if (i < 0) i = 0;
    return llList2Vector(SCHEMES, i + which);
}

// 1 for a Silver piece's letter (upper case), 2 for Red.
integer sideColour(string letter) {
    return 1 + (llSubStringIndex("KPAXSEO", letter) < 0);
}

// The centre of a square ("e4") on the board's top, in the root's frame.
vector squareCentre(string sq, float lift) {
    vector size = llGetScale();
    float step = size.x / 10.0;
    integer file = llSubStringIndex("abcdefghij", llGetSubString(sq, 0, 0));
    integer rank = (integer)llGetSubString(sq, 1, 1) - 1;
    return <(file + 0.5) * step - size.x / 2.0,
            (rank + 0.5) * step - size.y / 2.0, size.z / 2.0 + lift>;
}

// An unused prim hidden inside the board, where no touch reaches it: half
// the board's thickness each way, so it never limits scaling.
park(integer link) {
    vector size = llGetScale();
    float side = size.z * 0.5;
    if (side < 0.01) side = 0.01;
    llSetLinkPrimitiveParamsFast(link, [PRIM_POS_LOCAL, ZERO_VECTOR,
        PRIM_SIZE, <side, side, side>, PRIM_COLOR, ALL_SIDES, ZERO_VECTOR, 0.0,
        PRIM_GLOW, ALL_SIDES, 0.0, PRIM_PHYSICS_SHAPE_TYPE, PRIM_PHYSICS_SHAPE_NONE]);
}

// Lays a marker prim over each of `squares` in `colour` (a chosen piece's
// targets, or where the laser hit) and parks the others.
mark(list squares, vector colour) {
    vector size = llGetScale();
    float step = size.x / 10.0;
    integer i;
    for (i = 0; i < llGetListLength(gMarkLinks); ++i) {
        integer link = llList2Integer(gMarkLinks, i);
        if (i < llGetListLength(squares)) {
            llSetLinkPrimitiveParamsFast(link, [
                PRIM_POS_LOCAL, squareCentre(llList2String(squares, i), 0.01),
                PRIM_SIZE, <step * 0.9, step * 0.9, 0.01>,
                PRIM_COLOR, ALL_SIDES, colour, 0.4, PRIM_FULLBRIGHT, ALL_SIDES, TRUE,
                PRIM_PHYSICS_SHAPE_TYPE, PRIM_PHYSICS_SHAPE_NONE]);
        } else {
            park(link);
            llLinkParticleSystem(link, []);
        }
    }
}

// Sparks on each square the laser took a piece off ("f8k e5s\\"), in the
// piece's colour, and the sound "hit" from the board's inventory.
hits(string rm) {
    list gone = llParseString2List(rm, [" "], []);
    if (gone == []) return;
    list squares = [];
    integer i;
    for (i = 0; i < llGetListLength(gone); ++i)
        squares += [llGetSubString(llList2String(gone, i), 0, 1)];
    mark(squares, <1.0, 0.6, 0.1>);
    gHitMarks = TRUE;
    vector size = llGetScale();
    float spark = size.x / 100.0;
    for (i = 0; i < llGetListLength(gone) && i < llGetListLength(gMarkLinks); ++i) {
        string letter = llGetSubString(llList2String(gone, i), 2, 2);
        llLinkParticleSystem(llList2Integer(gMarkLinks, i), [
            PSYS_PART_FLAGS, PSYS_PART_EMISSIVE_MASK | PSYS_PART_INTERP_COLOR_MASK,
            PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_EXPLODE,
            PSYS_PART_START_COLOR, schemeColour(sideColour(letter)),
            PSYS_PART_END_COLOR, <1.0, 0.8, 0.2>,
            PSYS_PART_START_SCALE, <spark, spark, 0.0>,
            PSYS_PART_MAX_AGE, 1.5, PSYS_SRC_MAX_AGE, 1.0,
            PSYS_SRC_BURST_RATE, 0.1, PSYS_SRC_BURST_PART_COUNT, 30,
            PSYS_SRC_BURST_SPEED_MIN, spark * 5.0, PSYS_SRC_BURST_SPEED_MAX, spark * 15.0]);
    }
    if (llGetInventoryType("hit") == INVENTORY_SOUND) llTriggerSound("hit", 1.0);
}

// How many quarter turns anticlockwise a piece of kind `letter` with
// `attr` (its attribute in the position, "" for none) stands from
// rotation zero (the header says which way that faces); 0 for a piece
// without a facing (an Obelisk, a Pharaoh without physical facings).
integer quarters(string letter, string attr) {
    list order = ["n", "w", "s", "e"];  // Anubis, Sphinx, Pharaoh
    string kind = llToUpper(letter);
    if (kind == "P") order = ["ne", "nw", "sw", "se"];
    if (kind == "S" || kind == "E") order = ["nw", "sw", "se", "ne", "/", "\\"];
    integer at = llListFindList(order, [attr]);
    if (at < 0) return 0;
    return at % 4;
}

// One piece prim standing on square `n` (0..79, rank 8 first, files a..j)
// as the token `t` ("pne", "K", "Kn", "S/", "Ssw", "O2") says.
piece(integer link, string t, integer n, float step, integer shape) {
    string sq = llGetSubString("abcdefghij", n % 10, n % 10) + (string)(8 - n / 10);
    string letter = llGetSubString(t, 0, 0);
    string attr = "";  // (llGetSubString(t, 1, -1) of one letter is itself)
    if (llStringLength(t) > 1) attr = llToLower(llGetSubString(t, 1, -1));
    integer turn = quarters(letter, attr);
    float height = step * 0.5;
    if (attr == "2") height = step;
    llSetLinkPrimitiveParamsFast(link, [
        PRIM_POS_LOCAL, squareCentre(sq, height / 2.0),
        PRIM_ROT_LOCAL, llEuler2Rot(<0, 0, turn * PI_BY_TWO>),
        PRIM_SIZE, <step * 0.8, step * 0.8, height>,
        PRIM_TEXTURE, 0, llToUpper(letter), <1, 1, 0>, ZERO_VECTOR, 0.0,
        PRIM_COLOR, ALL_SIDES, schemeColour(sideColour(letter)), 1.0,
        PRIM_PHYSICS_SHAPE_TYPE, shape]);
}

// The length of the attribute after a piece's letter `c` in gRanks: a
// Pyramid's two letters, a Pharaoh's none, the others' one; with physical
// facings a Pharaoh's one, a Scarab's or Eye's two. -1: not a piece.
integer attribute(string c) {
    integer kind = llSubStringIndex("KkPpAaXxSsEeOo", c);
    if (kind < 0) return -1;
    if (kind < 2) return gFacings;
    if (kind < 4 || (gFacings && kind >= 8 && kind < 12)) return 2;
    return 1;
}

// The token on square `sq` ("e4") of gRanks ("pne", "K", "S/"), "" when
// it is empty.
string tokenOn(string sq) {
    integer want = (8 - (integer)llGetSubString(sq, 1, 1)) * 10
        + llSubStringIndex("abcdefghij", llGetSubString(sq, 0, 0));
    integer square = 0;
    integer i = 0;
    while (i < llStringLength(gRanks) && square <= want) {
        string c = llGetSubString(gRanks, i, i);
        integer len = attribute(c);
        if (len >= 0) {
            if (square == want) return llGetSubString(gRanks, i, i + len);
            ++square;
            i += len + 1;
        } else if (c == "/") {
            ++i;
        } else {
            integer empty = (integer)c;
            if (c == "1" && llGetSubString(gRanks, i + 1, i + 1) == "0") {
                empty = 10;
                ++i;
            }
            ++i;
            square += empty;
        }
    }
    return "";
}

// The square under a touch at `st` on the board's face (0..1 each way).
string stSquare(vector st) {
    if (st.x < 0.0) return "";
    integer file = (integer)(st.x * 10.0);
    integer rank = (integer)(st.y * 8.0);
    if (file > 9) file = 9;
    if (rank > 7) rank = 7;
    return llGetSubString("abcdefghij", file, file) + (string)(rank + 1);
}

// The square a touch lands on: on the board's face, or on the piece or
// marker prim touched, the square it stands on; "" elsewhere (a beam, a
// prim parked inside the board, another face).
string touchedSquare() {
    integer link = llDetectedLinkNumber(0);
    if (link > 1) {
        string name = llGetLinkName(link);
        if (name != "piece" && name != "mark") return "";
        vector at = llList2Vector(llGetLinkPrimitiveParams(link, [PRIM_POS_LOCAL]), 0);
        vector size = llGetScale();
        if (at.z <= 0.0) return "";
        return stSquare(<at.x / size.x + 0.5, at.y / size.y + 0.5, 0.0>);
    }
    if (llDetectedTouchFace(0) != BOARD_FACE) return "";
    return stSquare(llDetectedTouchST(0));
}

// The legal moves of the piece on `sq` in full, from gLm: its entry
// "j4-j3-i3R" gives "j4-j3 j4-i3 j4R"; "" none, "+" unknown.
string movesOn(string sq) {
    if (gLm == "+") return "+";
    integer at = llSubStringIndex(" " + gLm, " " + sq);
    if (at < 0) return "";
    string entry = llList2String(llParseString2List(llGetSubString(gLm, at, -1),
                                                    [" "], []), 0);
    string out = "";
    integer i = 2;
    while (i < llStringLength(entry)) {
        string c = llGetSubString(entry, i, i);
        if (c == "R" || c == "L") {
            out += " " + sq + c;
            ++i;
        } else {
            out += " " + sq + llGetSubString(entry, i, i + 2);
            i += 3;
        }
    }
    return llGetSubString(out, 1, -1);
}

// The square a move ends on: "e4-e5", "f4=g3", "d1^d2" their second square,
// a turn ("j1L") its own.
string targetOf(string move) {
    if (llStringLength(move) >= 5) return llGetSubString(move, 3, 4);
    return llGetSubString(move, 0, 1);
}

// Walks gRanks ("k9/..."), putting a piece prim on every occupied square
// and parking the rest; tints the board's edge with the colour to move, or
// all of it with the winner's.
draw() {
    vector size = llGetScale();
    float step = size.x / 10.0;
    // Above 6 m pieces collide with avatars (seed 000); smaller, they have
    // no physics shape, which keeps the land impact down.
    integer shape = PRIM_PHYSICS_SHAPE_NONE;
    if (size.x > PHYSICAL) shape = PRIM_PHYSICS_SHAPE_CONVEX;
    integer used = 0;
    integer square = 0;
    integer n = llStringLength(gRanks);
    integer i = 0;
    while (i < n) {
        string c = llGetSubString(gRanks, i, i);
        integer len = attribute(c);
        if (len >= 0) {
            if (used < llGetListLength(gPieceLinks)) {
                piece(llList2Integer(gPieceLinks, used),
                      llGetSubString(gRanks, i, i + len), square, step, shape);
                ++used;
            }
            ++square;
            i += len + 1;
        } else if (c == "/") {
            ++i;
        } else {
            integer empty = (integer)c;
            if (c == "1" && llGetSubString(gRanks, i + 1, i + 1) == "0") {
                empty = 10;
                ++i;
            }
            ++i;
            square += empty;
        }
    }
    for (i = used; i < llGetListLength(gPieceLinks); ++i)
        park(llList2Integer(gPieceLinks, i));
    integer winner = -1;  // "" (no side) must not match at 0
    if (gEdge != "") winner = llSubStringIndex("SR", gEdge);
    if (winner >= 0) {
        llSetLinkPrimitiveParamsFast(LINK_ROOT, [PRIM_COLOR, ALL_SIDES,
            schemeColour(1 + winner), 1.0]);
    } else {
        vector edge = <0.3, 0.3, 0.3>;
        if (gEdge != "") edge = schemeColour(1 + (gEdge == "r"));
        llSetLinkPrimitiveParamsFast(LINK_ROOT, [PRIM_COLOR, ALL_SIDES, edge, 1.0,
            PRIM_COLOR, BOARD_FACE, <1, 1, 1>, 1.0]);
    }
}

// One beam prim per straight run of the laser path string ("j1j4h4h5j5j8N
// f4f2x"): squares where a beam starts, turns and ends, then how it ended.
// "" takes the beams down, and the markers with them if they show hits.
drawLaser(string laser) {
    list beams = llParseString2List(laser, [" "], []);
    integer used = 0;
    vector size = llGetScale();
    float step = size.x / 10.0;
    float thick = step * 0.08;
    if (thick < 0.01) thick = 0.01;  // the smallest prim
    integer b;
    for (b = 0; b < llGetListLength(beams); ++b) {
        string beam = llList2String(beams, b);
        integer points = (llStringLength(beam) - 1) / 2;
        string end = llGetSubString(beam, -1, -1);
        if (points == 1) {
            // It left the board from where it starts ("j3E", split off an
            // Eye on an edge square): that square twice, so that it too
            // runs on to the edge.
            beam = llGetSubString(beam, 0, 1) + beam;
            points = 2;
        }
        integer p;
        for (p = 0; p + 1 < points; ++p) {
            vector a = squareCentre(llGetSubString(beam, 2 * p, 2 * p + 1), step * 0.3);
            vector z = squareCentre(llGetSubString(beam, 2 * p + 2, 2 * p + 3), step * 0.3);
            if (p + 2 == points && llSubStringIndex("NESW", end) >= 0) {
                // A beam that left the board runs on to the edge.
                integer d = llSubStringIndex("NESW", end);
                z += step / 2.0 * llList2Vector([<0, 1, 0>, <1, 0, 0>,
                                                  <0, -1, 0>, <-1, 0, 0>], d);
            }
            vector run = z - a;
            if (used < llGetListLength(gBeamLinks) && llVecMag(run) > 0.001) {
                llSetLinkPrimitiveParamsFast(llList2Integer(gBeamLinks, used), [
                    PRIM_POS_LOCAL, (a + z) / 2.0,
                    PRIM_SIZE, <llFabs(run.x) + thick, llFabs(run.y) + thick, thick>,
                    PRIM_COLOR, ALL_SIDES, schemeColour(3), 1.0,
                    PRIM_GLOW, ALL_SIDES, 0.3, PRIM_FULLBRIGHT, ALL_SIDES, TRUE]);
                ++used;
            }
        }
    }
    integer i;
    for (i = used; i < llGetListLength(gBeamLinks); ++i)
        park(llList2Integer(gBeamLinks, i));
    if (laser != "") {
        if (gDebug) llOwnerSay("laser " + laser + "; render memory used "
                               + (string)llGetUsedMemory());
        llSetTimerEvent(LASER_SECONDS);
    } else {
        llSetTimerEvent(0.0);
        if (gHitMarks) {
            mark([], ZERO_VECTOR);
            gHitMarks = FALSE;
        }
    }
}

// Metres as a person writes them: to the centimetre, without trailing
// zeros ("6", "2.5", "0.75").
string readable(float m) {
    string text = (string)(llRound(m * 100.0) / 100.0);
    while (llGetSubString(text, -1, -1) == "0") text = llGetSubString(text, 0, -2);
    if (llGetSubString(text, -1, -1) == ".") text = llGetSubString(text, 0, -2);
    return text;
}

// Scales the linkset so its longest edge is `metres`. Beams and markers
// are parked first (a thin beam would stop a shrink); a scale the region
// refuses is told back to the board script.
scaleTo(float metres) {
    vector size = llGetScale();
    if (metres < 1.0 || llFabs(metres - size.x) <= 0.01) return;
    gHitMarks = FALSE;
    mark([], ZERO_VECTOR);
    drawLaser("");
    if (llScaleByFactor(metres / size.x)) return;
    llMessageLinked(LINK_THIS, KB_REFUSED, readable(metres) + " " + readable(size.x),
                    NULL_KEY);
}

// A message from khet_board.lsl (the protocol at the top).
onMessage(integer num, string text, key id) {
    if (num == KR_BOARD) {
        list f = llParseStringKeepNulls(text, ["|"], []);
        gEdge = llList2String(f, 0);
        f = llParseString2List(llList2String(f, 1), [" "], []);
        gRanks = llList2String(f, 0);
        gFacings = llList2String(f, 3) == "f";
        draw();
    } else if (num == KR_LOOK) {
        list f = llParseString2List(text, [" "], []);
        string scheme = llList2String(f, 0);
        vector size = llGetScale();
        scaleTo(llList2Float(f, 1));
        vector now = llGetScale();
        if (scheme != gScheme || now.x != size.x) {
            gScheme = scheme;
            draw();
        }
    } else if (num == KR_LASER) {
        drawLaser(text);
    } else if (num == KR_HITS) {
        hits(text);
    } else if (num == KR_TARGETS) {
        gPickWho = NULL_KEY;
        gHitMarks = FALSE;
        mark(llParseString2List(text, [" "], []), <0.2, 1.0, 0.2>);
    } else if (num == KR_PICK) {
        // A piece chosen: the squares its moves end on, each once.
        gPickWho = id;
        gPickMoves = text;
        list moves = llParseString2List(text, [" "], []);
        list squares = [];
        integer i;
        for (i = 0; i < llGetListLength(moves); ++i) {
            string target = targetOf(llList2String(moves, i));
            if (llListFindList(squares, [target]) < 0) squares += [target];
        }
        gHitMarks = FALSE;
        mark(squares, <0.2, 1.0, 0.2>);
    } else if (num == KR_DEBUG) {
        gDebug = (integer)text;
    } else if (num == KR_MOVES) {
        gLm = text;
    }
}

default {
    // Lists the child prims by name: only prims, up to
    // llGetObjectPrimCount(), as seated avatars are numbered after them.
    state_entry() {
        integer i;
        for (i = 2; i <= llGetObjectPrimCount(llGetKey()); ++i) {
            string name = llGetLinkName(i);
            if (name == "piece") gPieceLinks += [i];
            else if (name == "beam") gBeamLinks += [i];
            else if (name == "mark") gMarkLinks += [i];
        }
        llMessageLinked(LINK_THIS, KB_READY, "", NULL_KEY);
    }

    link_message(integer sender, integer num, string text, key id) {
        onMessage(num, text, id);
    }

    touch_start(integer n) {
        string sq = touchedSquare();
        string token = "";
        string moves = "";
        if (sq != "") {
            token = tokenOn(sq);
            moves = movesOn(sq);
        }
        // The chooser's touch ends the choice: the chosen piece's moves
        // that end here go with it.
        string ends = "";
        if (llDetectedKey(0) == gPickWho) {
            list chosen = llParseString2List(gPickMoves, [" "], []);
            integer i;
            for (i = 0; i < llGetListLength(chosen); ++i)
                if (targetOf(llList2String(chosen, i)) == sq)
                    ends += " " + llList2String(chosen, i);
            gPickWho = NULL_KEY;
            mark([], ZERO_VECTOR);
        }
        llMessageLinked(LINK_THIS, KB_TOUCHED, sq + "|" + token + "|" + moves + "|"
                        + llGetSubString(ends, 1, -1), llDetectedKey(0));
    }

    timer() {
        drawLaser("");  // the laser has shone its LASER_SECONDS
    }

    on_rez(integer param) {
        llResetScript();
    }

    changed(integer change) {
        if (change & (CHANGED_OWNER | CHANGED_LINK | CHANGED_REGION_START))
            llResetScript();
    }
}
